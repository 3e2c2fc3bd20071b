package files_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
)

const (
	refPageID = "5f1b7c9e2a4d6b8c0e1f2a3b"
	heroID    = "5f1b7c9e2a4d6b8c0e1f2a3c"
	article1  = "64b7f0c2a1d3e5f708192a3b"
	article2  = "64b7f0c2a1d3e5f708192a3c"
)

func TestParseRef(t *testing.T) {
	tests := []struct {
		in   string
		want files.Ref
		ok   bool
	}{
		{"service://acme/pages/" + refPageID + "/og_image", files.Ref{SiteShortID: "acme", Resource: "pages", RecordID: refPageID, Field: "og_image"}, true},
		{"service://acme/pages/" + refPageID + "/Image/" + heroID, files.Ref{SiteShortID: "acme", Resource: "pages", RecordID: refPageID, Field: "Image", EmbeddedID: heroID}, true},
		{"SERVICE://acme/entries/" + strings.ToUpper(article1) + "/cover", files.Ref{SiteShortID: "acme", Resource: "entries", RecordID: article1, Field: "cover"}, true},
		{"service://acme/products/" + article1 + "/images/" + article2, files.Ref{SiteShortID: "acme", Resource: "products", RecordID: article1, Field: "images", EmbeddedID: article2}, true},
		{"service://acme/uploads/" + article1, files.Ref{SiteShortID: "acme", Resource: "uploads", RecordID: article1}, true},
		{"service://acme/tmp/k3y/photo%20a.jpg", files.Ref{SiteShortID: "acme", Resource: "tmp", RecordID: "k3y", Field: "photo a.jpg"}, true},
		{in: "service://acme/pages/" + refPageID},
		{in: "service://acme/entries/" + article1},
		{in: "service://acme/products/" + article1 + "/images"},
		{in: "service://acme/products/" + article1 + "/videos/" + article2},
		{in: "service://acme/tmp/k3y"},
		{in: "service://acme/pages/about/x"},
		{in: "service://acme/widgets/" + article1 + "/x"},
		{in: "service://acme//" + article1 + "/x"},
		{in: "service://acme/pages/" + article1 + "/x/y/z"},
		{in: "service://acme/pages/" + article1 + "/%zz"},
		{in: "http://acme/pages/" + article1 + "/x"},
		{in: ""},
	}
	for _, tt := range tests {
		got, err := files.ParseRef(tt.in)
		if !tt.ok {
			if !cms.IsCode(err, cms.EValidationFailed) {
				t.Errorf("ParseRef(%q): got %v, want validation_failed", tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRef(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseRef(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzParseBatchValue: any JSON value parses to a value of a known kind or a
// *cms.Error with a message, and an upload carries bytes within the limit
// under a name without directories.
func FuzzParseBatchValue(f *testing.F) {
	for _, s := range []string{`null`, `"https://x.example/a.png"`, `{"remove":true}`, `{"data":"aGVsbG8=","filename":"a.txt"}`,
		`{"data":"data:text/plain;base64,aGk=","filename":"../a.txt"}`, `{"attachment":"PHN2Zz4=","filename":"a.png"}`,
		`{"__type":"FileRef","source":"service://acme/uploads/64b7f0c2a1d3e5f708192a3b"}`, `{"url":"ftp://x"}`, `{"data":"%%%","filename":"a"}`} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, in string, batch bool) {
		var v any
		if json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		parse := files.ParseValue
		if batch {
			parse = files.ParseBatchValue
		}
		fv, act, err := parse(v, nil, "f")
		if err != nil {
			var ce *cms.Error
			if !cmsError(err, &ce) || ce.Message == "" {
				t.Fatalf("got %T %v, want a *cms.Error with a message", err, err)
			}
			return
		}
		if act != files.Set {
			return
		}
		switch fv.Kind {
		case files.KindUpload:
			if len(fv.Data) == 0 || len(fv.Data) > files.MaxValueSize || fv.Filename == "" || strings.ContainsAny(fv.Filename, "/\\") {
				t.Fatalf("upload %q with %d bytes", fv.Filename, len(fv.Data))
			}
		case files.KindURL, files.KindCopy:
		default:
			t.Fatalf("kind %d", fv.Kind)
		}
	})
}

// FuzzParseRef: a parsed FileRef names a known resource and, but for tmp,
// a lower-case record id.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"service://acme/pages/" + refPageID + "/og_image", "service://a/tmp/k/x%20y.jpg", "service://", "service://a/b/c/d/e/f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ref, err := files.ParseRef(in)
		if err != nil {
			if !cms.IsCode(err, cms.EValidationFailed) {
				t.Fatalf("ParseRef(%q): %v", in, err)
			}
			return
		}
		switch ref.Resource {
		case "pages", "entries", "products", "uploads":
			if !cms.IsID(ref.RecordID) || ref.RecordID != strings.ToLower(ref.RecordID) {
				t.Fatalf("ParseRef(%q): record id %q", in, ref.RecordID)
			}
		case "tmp":
		default:
			t.Fatalf("ParseRef(%q): resource %q", in, ref.Resource)
		}
	})
}

func cmsError(err error, target **cms.Error) bool {
	ce, ok := err.(*cms.Error)
	*target = ce
	return ok
}
