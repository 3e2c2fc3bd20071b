package scopes

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, canon string }{
		{"", ""},
		{"pages:read", "pages:read"},
		{"pages:read pages:write", "pages:write"},
		{"entries:read:blog,entries:write:news", "entries:read:blog entries:write:news"},
		{"entries:read entries:read:blog entries:write:news", "entries:read entries:write:news"},
		{"entries:write entries:write:news", "entries:write"},
		{"read_content", "pages:read drafts:read uploads:read"},
		{"write_channels, read_customers", "entries:write customers:read"},
	} {
		s, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		if s.String() != c.canon {
			t.Errorf("Parse(%q) = %q, want %q", c.in, s.String(), c.canon)
		}
	}
	for _, bad := range []string{"pages", "pages:delete", "nope:read", "pages:read:blog", "entries:read:Blog", "entries:read:", strings.Repeat("a", MaxLen+1)} {
		if _, err := Parse(bad); !IsInvalid(err) {
			t.Errorf("Parse(%q) = %v, want refused", bad, err)
		}
	}
}

func TestNeeds(t *testing.T) {
	s, _ := Parse("entries:read:blog pages:write")
	for _, c := range []struct {
		need    Need
		channel string
		ok      bool
	}{
		{Read(Entries), "blog", true},
		{Read(Entries), "news", false},
		{Read(Entries), "", false},
		{Write(Entries), "blog", false},
		{Read(Pages), "", true},
		{Write(Pages), "", true},
		{Read(Drafts), "", false},
		{None, "", true},
		{FullOnly, "", false},
	} {
		if got := c.need.Allows(s, c.channel); got != c.ok {
			t.Errorf("%v.Allows(%q) = %v, want %v", c.need.accepted, c.channel, got, c.ok)
		}
	}
	if !FullOnly.Allows(Full, "") || !Write(Settings).Allows(Full, "") {
		t.Error("Full must allow everything")
	}
	if (Need{}).Declared() || (Need{}).Allows(Full, "") {
		t.Error("the zero Need must be undeclared and allow nothing")
	}
	if got := Read(Entries).Accepted("blog")[0]; got != "entries:read, entries:read:blog" {
		t.Errorf("Accepted = %q", got)
	}
}

func TestHeaderNamesLegacy(t *testing.T) {
	h := Full.Header()[0]
	for _, want := range []string{"pages:write", "entries:write", "read_content", "write_cloudcode", "read_channels"} {
		if !strings.Contains(h, want) {
			t.Errorf("Full header %q lacks %s", h, want)
		}
	}
	s, _ := Parse("pages:read drafts:read")
	if strings.Contains(s.Header()[0], "read_content") {
		t.Errorf("read_content needs uploads too: %q", s.Header()[0])
	}
}

func TestIntersectWithin(t *testing.T) {
	a, _ := Parse("entries:read pages:write")
	b, _ := Parse("entries:write:blog pages:read customers:read")
	got := a.Intersect(b)
	if got.String() != "pages:read entries:read:blog" {
		t.Errorf("Intersect = %q", got.String())
	}
	if !got.Within(a) || !got.Within(b) || a.Within(b) {
		t.Error("Within")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "pages:read", "entries:write:blog,read_content", "entries:read:a entries:write:a", "x:y:z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			if !IsInvalid(err) {
				t.Fatalf("error of another kind: %v", err)
			}
			return
		}
		// The canonical form reads back as the same grant.
		again, err := Parse(s.String())
		if err != nil || again.String() != s.String() {
			t.Fatalf("canonical %q reparsed as %v, %v", s.String(), again, err)
		}
		if !s.Within(again) || !again.Within(s) || s.Intersect(s).String() != s.String() {
			t.Fatalf("%q is not equal to itself", s.String())
		}
		if len(s.Header()) != 1 {
			t.Fatal("header")
		}
	})
}

// BenchmarkRouteCheck is what every API request adds: the check of the
// route's need and the header values, for a full and a channel grant.
func BenchmarkRouteCheck(b *testing.B) {
	ch, _ := Parse("entries:read:articles pages:read")
	need := Read(Entries)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, g := range []*Set{Full, ch} {
			if !need.Allows(g, "articles") || len(g.Header()) != 1 || len(need.Accepted("")) != 1 {
				b.Fatal("refused")
			}
		}
	}
}

func TestLenient(t *testing.T) {
	if got := Lenient([]string{"read_orders", "read_channels", "pages:write", "bad word", "entries:read:blog"}).String(); got != "pages:write entries:read" {
		t.Errorf("Lenient = %q", got)
	}
}
