package customers

import (
	"errors"
	"testing"

	"github.com/tessera-cms/tessera/internal/cms"
)

// wantClientError fails unless err is a *cms.Error a client can act on:
// a message, and a code that is not internal.
func wantClientError(t *testing.T, in []byte, err error) {
	t.Helper()
	var ce *cms.Error
	if !errors.As(err, &ce) || ce.Message == "" || ce.Code == cms.EInternal || ce.Code == "" {
		t.Fatalf("%q: got %v, want a coded client error", in, err)
	}
}

func FuzzDecodeWrite(f *testing.F) {
	for _, s := range []string{`{"email":"a@b.co","password":"12345678","password_confirmation":"12345678"}`,
		`{"groups":["a",""," a "],"roles":null}`, `{"name":1}`, `[]`, `null`, `{"password":"short"}`,
		`{"id":"x","number":"3","shoe":1}`, `{"email":"\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		w, err := decodeWrite(in)
		if err != nil {
			wantClientError(t, in, err)
			return
		}
		if w.password != nil && (len(*w.password) < minPassword || len(*w.password) > maxPassword) {
			t.Fatalf("%q: accepted a password of %d bytes", in, len(*w.password))
		}
		for _, l := range []*[]string{w.groups, w.roles} {
			if l != nil && len(*l) > maxList {
				t.Fatalf("%q: accepted %d names", in, len(*l))
			}
		}
	})
}

func FuzzDecodeLogin(f *testing.F) {
	for _, s := range []string{`{"username":"a@b.co","password":"x"}`, `{"username":1}`, `{}`, `x`, `{"username":"a","password":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if _, err := decodeLogin(in); err != nil {
			wantClientError(t, in, err)
		}
	})
}

func TestValidEmail(t *testing.T) {
	for in, want := range map[string]bool{
		"ann@example.com": true, "a.b+c@sub.example.org": true, "Ann@Example.COM": true,
		"": false, "ann": false, "@example.com": false, "ann@": false, "ann@example": false, "a@b@c.com": false,
		"ann @example.com": false, "ann@.example.com": false, "ann@example.com.": false, "a\x00@b.com": false,
	} {
		if got := validEmail(in); got != want {
			t.Errorf("validEmail(%q) = %v, want %v", in, got, want)
		}
	}
}
