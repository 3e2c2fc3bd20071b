package notifications

import (
	"testing"

	"github.com/tessera-cms/tessera/internal/store"
)

func FuzzParseWrite(f *testing.F) {
	for _, s := range []string{`{"slug":"a","name":"A","subject":"S","text":"T","translations":{"nl":{"subject":"x"}}}`,
		`{"subject":"a\nb","text":null}`, `{"translations":{"nl":{"from":"x"}}}`, `{"html_enabled":"yes"}`} {
		f.Add([]byte(s))
	}
	site := &store.Site{ID: "s", DefaultLocale: "en", Locales: []string{"en", "nl"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		w, err := parseWrite(body)
		if err != nil {
			return
		}
		tpl := builtin(site, PasswordReset)
		if err := (&Service{}).apply(site, tpl, w); err != nil {
			return
		}
		if tpl.Name == "" || tpl.Subject == "" || checkField("subject", tpl.Subject, maxSubject, true) != nil {
			t.Fatalf("accepted %+v", tpl.doc)
		}
		for l := range tpl.Translations {
			if l != "en" && l != "nl" {
				t.Fatalf("accepted the locale %q", l)
			}
		}
	})
}
