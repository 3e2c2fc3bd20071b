package files_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/files"
)

func TestSpillUploads(t *testing.T) {
	big := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0, 1, 2, 3}, 20<<10) // 160 KiB
	b64 := base64.StdEncoding.EncodeToString(big)
	for _, tc := range []struct {
		name  string
		body  string
		spill bool
	}{
		{"Attachment", `{"items":{"Hero":{"__type":"File","filename":"a.png","attachment":"` + b64 + `"}}}`, true},
		{"DataURL", `{"operations":[{"op":"set","path":"/items/Hero","value":{"data":"data:image/png;base64,` + b64 + `","filename":"a.png"}}]}`, true},
		{"SmallStaysInline", `{"attachment":"aGVsbG8="}`, false},
		{"TextContentNotTouched", `{"items":{"Intro":"` + b64 + `"}}`, false},
		{"NotBase64", `{"attachment":"` + strings.Repeat("%", 70<<10) + `"}`, false},
		{"Escaped", `{"attachment":"` + strings.Repeat(`\/`, 40<<10) + `"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ctx := files.SpillUploads(context.Background(), []byte(tc.body))
			if !json.Valid(out) {
				t.Fatalf("result is not JSON: %.200s", out)
			}
			if got := len(out) < len(tc.body); got != tc.spill {
				t.Fatalf("spilled: got %v, want %v", got, tc.spill)
			}
			if !tc.spill {
				if string(out) != tc.body || ctx != context.Background() {
					t.Errorf("body changed though nothing was spilled")
				}
				return
			}
			// The placeholder decodes to bytes that unspill back to the file.
			var v any
			_ = json.Unmarshal(out, &v)
			ph := findLongest(v)
			if i := strings.Index(ph, ","); i >= 0 {
				ph = ph[i+1:]
			}
			raw, err := base64.StdEncoding.DecodeString(ph)
			if err != nil {
				t.Fatalf("placeholder %q is not base64: %v", ph, err)
			}
			if files.AllSpillsUsed(ctx) {
				t.Errorf("AllSpillsUsed before the file was unspilled: got true, want false")
			}
			if got := files.Unspill(ctx, raw); !bytes.Equal(got, big) {
				t.Errorf("unspilled: got %d bytes, want the %d-byte file", len(got), len(big))
			}
			if !files.AllSpillsUsed(ctx) {
				t.Errorf("AllSpillsUsed after the file was unspilled: got false, want true")
			}
			if got := files.Unspill(context.Background(), raw); !bytes.Equal(got, raw) {
				t.Errorf("another request's context must not find the file")
			}
		})
	}
}

func findLongest(v any) string {
	best := ""
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		for _, e := range v {
			if s := findLongest(e); len(s) > len(best) {
				best = s
			}
		}
	case []any:
		for _, e := range v {
			if s := findLongest(e); len(s) > len(best) {
				best = s
			}
		}
	}
	return best
}

// FuzzSpillUploads: no panic, and a valid JSON body stays valid JSON.
func FuzzSpillUploads(f *testing.F) {
	f.Add([]byte(`{"attachment":"aGVsbG8="}`))
	f.Add([]byte(`{"data":"data:image/png;base64,` + strings.Repeat("QUJD", 17<<10) + `"}`))
	f.Add([]byte(`{"a":"\"","attachment":"` + strings.Repeat("QUJD", 17<<10) + `"`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, _ := files.SpillUploads(context.Background(), body)
		if json.Valid(body) && !json.Valid(out) {
			t.Errorf("valid body became invalid: %.200q", out)
		}
	})
}
