package entries_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/entries"
)

func TestParseWhere(t *testing.T) {
	tests := []struct {
		in   string
		want []entries.Cond
		err  string
	}{
		{in: ``, want: nil},
		{in: `title:"Hello world"`, want: []entries.Cond{{Key: "title", Value: "Hello world"}}},
		{in: `_slug:"a-b"`, want: []entries.Cond{{Key: "_slug", Value: "a-b"}}},
		{in: `count:10`, want: []entries.Cond{{Key: "count", Value: "10"}}},
		{in: `a:"x", b:true c:1.5`, want: []entries.Cond{{Key: "a", Value: "x"}, {Key: "b", Value: "true"}, {Key: "c", Value: "1.5"}}},
		{in: `title: "with \"quotes\" and , commas"`, want: []entries.Cond{{Key: "title", Value: `with "quotes" and , commas`}}},
		{in: `title:"caf\u00e9"`, want: []entries.Cond{{Key: "title", Value: "café"}}},
		{in: `{"title":"x","count":10,"ok":false}`, want: []entries.Cond{{Key: "count", Value: "10"}, {Key: "ok", Value: "false"}, {Key: "title", Value: "x"}}},
		{in: `title`, err: "field:"},
		{in: `:x`, err: "field:"},
		{in: `title:"open`, err: "unterminated"},
		{in: `title:`, err: "missing value"},
		{in: `title:null`, err: "null"},
		{in: `{"title":[1]}`, err: "must be"},
		{in: `{"title":`, err: "JSON"},
		// OR: the client's copy selects entries by id this way.
		{in: `id:"a" OR id:"b"`, want: []entries.Cond{{Any: []entries.Cond{{Key: "id", Value: "a"}, {Key: "id", Value: "b"}}}}},
		{in: `_slug:"x" or title:"y" Or n:3`, want: []entries.Cond{{Any: []entries.Cond{
			{Key: "_slug", Value: "x"}, {Key: "title", Value: "y"}, {Key: "n", Value: "3"}}}}},
		{in: `a:1, b:2 OR c:3 d:4`, want: []entries.Cond{{Key: "a", Value: "1"},
			{Any: []entries.Cond{{Key: "b", Value: "2"}, {Key: "c", Value: "3"}}}, {Key: "d", Value: "4"}}},
		{in: `a:"x"OR b:"y"`, want: []entries.Cond{{Any: []entries.Cond{{Key: "a", Value: "x"}, {Key: "b", Value: "y"}}}}},
		{in: "a:1\tOR\nb:2", want: []entries.Cond{{Any: []entries.Cond{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}}}}},
		{in: `a:"OR" OR b:"or"`, want: []entries.Cond{{Any: []entries.Cond{{Key: "a", Value: "OR"}, {Key: "b", Value: "or"}}}}},
		{in: `or:"x"`, want: []entries.Cond{{Key: "or", Value: "x"}}},
		{in: `or :"x", order:1`, want: []entries.Cond{{Key: "or", Value: "x"}, {Key: "order", Value: "1"}}},
		{in: `OR a:1`, err: "OR must stand"},
		{in: `a:1 OR`, err: "OR must stand"},
		{in: `a:1 OR OR b:2`, err: "OR must stand"},
		{in: `a:1 OR, b:2`, want: []entries.Cond{{Any: []entries.Cond{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := entries.ParseWhere(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseWhere(%q): got %v, %v; want error containing %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseWhere(%q): got %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseSort(t *testing.T) {
	tests := []struct {
		in   string
		want []entries.SortKey
		err  bool
	}{
		{in: "title", want: []entries.SortKey{{Key: "title"}}},
		{in: "-title", want: []entries.SortKey{{Key: "title", Desc: true}}},
		{in: "title:desc, count:asc", want: []entries.SortKey{{Key: "title", Desc: true}, {Key: "count"}}},
		{in: "created_at DESC", want: []entries.SortKey{{Key: "created_at", Desc: true}}},
		{in: "title:sideways", err: true},
		{in: "-", err: true},
		{in: ",,", want: nil},
	}
	for _, tt := range tests {
		got, err := entries.ParseSort(tt.in)
		if (err != nil) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSort(%q): got %v, %v; want %v (error %t)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// FuzzParseWhere checks that no input panics, and that every parsed
// condition prints as key:"value" and parses back to itself.
func FuzzParseWhere(f *testing.F) {
	for _, s := range []string{`title:"x"`, `a:1,b:"2"`, `{"a":"b"}`, `a:"\"",b:x`, `x:"\u00e9"`, `  a : "b" `,
		`id:"a" OR id:"b"`, `a:1, b:2 or c:3`, `or:x OR ORx:1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		conds, err := entries.ParseWhere(s)
		if err != nil {
			return
		}
		var b strings.Builder
		for _, c := range conds {
			if len(c.Any) < 2 && (c.Key == "" || c.Any != nil) {
				t.Fatalf("%q parsed to %v: an OR group of %d", s, conds, len(c.Any))
			}
			for i, a := range c.Any {
				if i > 0 {
					b.WriteString(" OR ")
				}
				b.WriteString(a.Key + ":" + quote(a.Value))
			}
			if c.Any == nil {
				b.WriteString(c.Key + ":" + quote(c.Value))
			}
			b.WriteString(",")
		}
		again, err := entries.ParseWhere(b.String())
		if err != nil || !reflect.DeepEqual(again, conds) {
			t.Fatalf("%q parsed to %v; printed %q parsed to %v, %v", s, conds, b.String(), again, err)
		}
	})
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func FuzzParseSort(f *testing.F) {
	for _, s := range []string{"title", "-a,b:desc", "x asc", ":", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		keys, err := entries.ParseSort(s)
		if err != nil {
			return
		}
		for _, k := range keys {
			if k.Key == "" || strings.ContainsAny(k.Key, ", ") {
				t.Fatalf("%q gave key %q", s, k.Key)
			}
		}
	})
}
