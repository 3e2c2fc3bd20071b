package jsonw_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/jsonw"
)

func TestWriter(t *testing.T) {
	var w jsonw.Writer
	w.Reset(nil)
	w.OpenObject()
	w.K("a")
	w.Int(1)
	w.Key(`b"c`)
	w.OpenArray()
	w.Elem()
	w.Str("x")
	w.Elem()
	w.Null()
	w.Elem()
	w.Bool(true)
	w.Elem()
	w.Time(time.Date(2026, 9, 10, 14, 31, 12, 408e6, time.UTC))
	w.Elem()
	w.Time(time.Date(2026, 9, 10, 14, 31, 12, 408e6, time.UTC))
	w.CloseArray()
	w.K("d")
	w.StrOrNull("")
	w.K("e")
	w.Strings([]string{"p", "q"})
	w.CloseObject()
	want := `{"a":1,"b\"c":["x",null,true,"2026-09-10T14:31:12.408Z","2026-09-10T14:31:12.408Z"],"d":null,"e":["p","q"]}`
	if got := string(w.B); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":            `"plain"`,
		"a\"b\\c":          `"a\"b\\c"`,
		"\n\r\t\x00\x1f":   `"\n\r\t\u0000\u001f"`,
		"\u2028\u2029":     `"\u2028\u2029"`,
		"é\xff":            `"é\ufffd"`,
		"<&>":              `"<&>"`,
		"\x7f\x0b\x1a\x1b": "\"\x7f\\u000b\\u001a\\u001b\"",
	} {
		if got := string(jsonw.AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q): got %s, want %s", in, got, want)
		}
	}
}

// FuzzAppendString: any string is written as JSON that decodes to what
// encoding/json carries for it.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"plain", "a\"b\\c", "\x00\x1f\x7f", "\u2028\u2029", "é\xff\xfe", "<&>", "\f\b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got string
		if err := json.Unmarshal(jsonw.AppendString(nil, s), &got); err != nil {
			t.Fatalf("AppendString(%q) is not a JSON string: %v", s, err)
		}
		ref, _ := json.Marshal(s)
		var want string
		if err := json.Unmarshal(ref, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

func TestArray(t *testing.T) {
	for _, c := range []struct {
		docs [][]byte
		want string
	}{
		{nil, "[]\n"},
		{[][]byte{[]byte(`{"a":1}`)}, "[{\"a\":1}]\n"},
		{[][]byte{[]byte(`1`), []byte(`"x"`), []byte(`{}`)}, "[1,\"x\",{}]\n"},
	} {
		got := jsonw.Array(c.docs)
		if string(got) != c.want || len(got) != cap(got) {
			t.Errorf("Array(%q) = %q (cap %d), want %q in an exact-size slice", c.docs, got, cap(got), c.want)
		}
	}
}
