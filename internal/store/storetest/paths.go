package storetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func testPagesSetPaths(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := newPage(t0, s.ID, "", 1, "Page")
	e.createPages(t, p)
	e.setPaths(t, s.ID, p.ID, map[string]string{"en": "one", "nl": "een", "fr": "un"})
	e.view(t, func(tx store.Tx) error {
		checkPaths(t, tx, "first paths", s.ID, map[string]map[string]string{
			"en": {"one": p.ID, "een": ""}, "nl": {"een": p.ID, "one": ""}, "fr": {"un": p.ID}})
		return nil
	})

	// The page's own paths never conflict with its new ones, even swapped
	// between locales or kept; a locale left out loses its path.
	e.setPaths(t, s.ID, p.ID, map[string]string{"en": "een", "nl": "one", "de": "un"})
	e.view(t, func(tx store.Tx) error {
		checkPaths(t, tx, "swapped paths", s.ID, map[string]map[string]string{
			"en": {"een": p.ID, "one": ""}, "nl": {"one": p.ID, "een": ""}, "de": {"un": p.ID}, "fr": {"un": ""}})
		return nil
	})
	e.setPaths(t, s.ID, p.ID, map[string]string{"en": "een", "nl": "one", "de": "un"})
	e.setPaths(t, s.ID, p.ID, nil)
	e.view(t, func(tx store.Tx) error {
		checkPaths(t, tx, "no paths", s.ID, map[string]map[string]string{
			"en": {"een": ""}, "nl": {"one": ""}, "de": {"un": ""}})
		if _, err := tx.Pages().Get(s.ID, p.ID); err != nil {
			t.Errorf("Get after clearing paths: %v", err)
		}
		return nil
	})
}

func testPagesSetPathsConflict(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	a := newPage(t0, s.ID, "", 1, "A")
	b := newPage(t0.Add(time.Millisecond), s.ID, "", 2, "B")
	e.createPages(t, a, b)
	e.setPaths(t, s.ID, a.ID, map[string]string{"en": "taken", "nl": "bezet"})
	e.setPaths(t, s.ID, b.ID, map[string]string{"en": "mine", "nl": "taken"}) // another locale: no conflict
	stored := map[string]map[string]string{
		"en": {"taken": a.ID, "mine": b.ID, "free": ""},
		"nl": {"bezet": a.ID, "taken": b.ID},
	}
	for _, c := range []struct {
		name  string
		paths map[string]string
		taken string // the path the error names
	}{
		{"OneTaken", map[string]string{"en": "taken"}, "/taken"},
		{"TakenAmongFree", map[string]string{"de": "frei", "en": "free", "nl": "bezet"}, "/bezet"},
		{"KeepsOwnTakesOther", map[string]string{"en": "mine", "nl": "bezet"}, "/bezet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := e.tryUpdate(func(tx store.Tx) error { return tx.Pages().SetPaths(s.ID, b.ID, c.paths) })
			checkCode(t, "SetPaths to a taken path", err, cms.EConflict)
			if msg := cms.ErrorMessage(err); !strings.Contains(msg, `"`+c.taken+`"`) {
				t.Errorf("SetPaths to a taken path: got message %q, want one naming %q", msg, c.taken)
			}
			e.view(t, func(tx store.Tx) error {
				checkPaths(t, tx, "after the failed SetPaths", s.ID, stored)
				return nil
			})
		})
	}

	// Once a frees a path, b may take it in the same transaction.
	e.update(t, func(tx store.Tx) error {
		return errors.Join(
			tx.Pages().SetPaths(s.ID, a.ID, map[string]string{"en": "moved"}),
			tx.Pages().SetPaths(s.ID, b.ID, map[string]string{"en": "taken", "nl": "bezet"}))
	})
	e.view(t, func(tx store.Tx) error {
		checkPaths(t, tx, "after the hand-over", s.ID, map[string]map[string]string{
			"en": {"moved": a.ID, "taken": b.ID, "mine": ""}, "nl": {"bezet": b.ID, "taken": ""}})
		return nil
	})
}

// testPagesUnstorablePaths checks that both stores agree on paths
// PostgreSQL cannot hold as text: look-ups find nothing, writes fail.
func testPagesUnstorablePaths(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	p := newPage(t0, s.ID, "", 1, "Page")
	e.createPages(t, p)
	e.setPaths(t, s.ID, p.ID, map[string]string{"en": "ok"})
	for _, bad := range []string{"\xff", "ok\xc3", "ok\x00"} {
		e.view(t, func(tx store.Tx) error {
			_, err := tx.Pages().IDByPath(s.ID, "en", bad)
			checkCode(t, fmt.Sprintf("IDByPath(%q)", bad), err, cms.ENotFound)
			_, err = tx.Pages().IDByPath(s.ID, bad, "ok")
			checkCode(t, fmt.Sprintf("IDByPath(locale %q)", bad), err, cms.ENotFound)
			for _, f := range []store.PageFilter{{Locale: "en", Fullpath: bad}, {Locale: "en", FullpathPrefix: bad}} {
				got, total, err := tx.Pages().List(s.ID, f, store.ListOptions{})
				if err != nil || len(got) != 0 || total != 0 {
					t.Errorf("List(%#v): got %v (total %d), %v; want none", f, ids(got, pageID), total, err)
				}
			}
			return nil
		})
		err := e.tryUpdate(func(tx store.Tx) error {
			return tx.Pages().SetPaths(s.ID, p.ID, map[string]string{"en": "new", "nl": bad})
		})
		if err == nil {
			t.Errorf("SetPaths(nl: %q): got no error, want one", bad)
		}
	}
	e.view(t, func(tx store.Tx) error {
		checkPaths(t, tx, "after failed SetPaths", s.ID, map[string]map[string]string{"en": {"ok": p.ID, "new": ""}})
		return nil
	})
}
