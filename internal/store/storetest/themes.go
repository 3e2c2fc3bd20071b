package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

func fileKey(f *store.ThemeFile) string { return f.Theme + "/" + f.Kind + "/" + f.Name }

func testThemesPutAndGet(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	now := t0.Truncate(time.Millisecond)
	files := []*store.ThemeFile{
		newFile(now, s.ID, "default", store.KindTemplates, "page"),
		newFile(now, s.ID, "default", store.KindLayouts, "main"),
		newFile(now, s.ID, "default", store.KindTemplates, "home"),
		newFile(now, s.ID, "default", store.KindAssets, "site.css"),
		newFile(now, s.ID, "b-theme", store.KindLayouts, "main"),
		newFile(now, s.ID, "a-theme", store.KindSnippets, "nav"),
	}
	e.update(t, func(tx store.Tx) error {
		for _, f := range files {
			if err := tx.Themes().PutFile(f); err != nil {
				return err
			}
		}
		return nil
	})
	e.view(t, func(tx store.Tx) error {
		names, err := tx.Themes().ListThemes(s.ID)
		if err != nil {
			t.Fatalf("ListThemes: %v", err)
		}
		checkDiff(t, "ListThemes", names, []string{"a-theme", "b-theme", "default"})

		all, err := tx.Themes().ListFiles(s.ID, "default", "")
		if err != nil {
			t.Fatalf("ListFiles: %v", err)
		}
		checkDiff(t, "ListFiles(all kinds)", ids(all, fileKey), []string{
			"default/assets/site.css", "default/layouts/main", "default/templates/home", "default/templates/page"})
		templates, err := tx.Themes().ListFiles(s.ID, "default", store.KindTemplates)
		if err != nil {
			t.Fatalf("ListFiles: %v", err)
		}
		checkDiff(t, "ListFiles(templates)", templates, []*store.ThemeFile{files[2], files[0]})

		got, err := tx.Themes().GetFile(s.ID, "default", store.KindLayouts, "main")
		if err != nil {
			t.Fatalf("GetFile: %v", err)
		}
		checkDiff(t, "GetFile", got, files[1])
		got, err = tx.Themes().GetFileByID(s.ID, files[4].ID)
		if err != nil {
			t.Fatalf("GetFileByID: %v", err)
		}
		checkDiff(t, "GetFileByID", got, files[4])

		_, err = tx.Themes().GetFile(s.ID, "default", store.KindSnippets, "main")
		checkCode(t, "GetFile(missing)", err, cms.ENotFound)
		_, err = tx.Themes().GetFileByID(s.ID, cms.NewID(now))
		checkCode(t, "GetFileByID(missing)", err, cms.ENotFound)
		return nil
	})
}

func testThemesPutReplaces(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	var first *store.ThemeFile
	e.update(t, func(tx store.Tx) error {
		first = newFile(tx.Now(), s.ID, "default", store.KindTemplates, "page")
		return tx.Themes().PutFile(first)
	})
	e.clock.Advance(time.Minute)
	var second *store.ThemeFile
	e.update(t, func(tx store.Tx) error {
		second = newFile(tx.Now(), s.ID, "default", store.KindTemplates, "page")
		second.Code = "new code"
		return tx.Themes().PutFile(second) // replaces: no conflict
	})
	if second.ID != first.ID || !second.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("PutFile(replace): got id %s created %v written back, want %s %v",
			second.ID, second.CreatedAt, first.ID, first.CreatedAt)
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Themes().ListFiles(s.ID, "default", "")
		if err != nil {
			t.Fatalf("ListFiles: %v", err)
		}
		want := *first
		want.Code, want.UpdatedAt = "new code", first.UpdatedAt.Add(time.Minute)
		checkDiff(t, "ListFiles after replace", got, []*store.ThemeFile{&want})
		return nil
	})
}

func testThemesDelete(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	e.update(t, func(tx store.Tx) error {
		return errors.Join(
			tx.Themes().PutFile(newFile(tx.Now(), s.ID, "default", store.KindSnippets, "nav")),
			tx.Themes().PutFile(newFile(tx.Now(), s.ID, "default", store.KindSnippets, "footer")))
	})
	e.update(t, func(tx store.Tx) error {
		return tx.Themes().DeleteFile(s.ID, "default", store.KindSnippets, "nav")
	})
	e.view(t, func(tx store.Tx) error {
		_, err := tx.Themes().GetFile(s.ID, "default", store.KindSnippets, "nav")
		checkCode(t, "GetFile(deleted)", err, cms.ENotFound)
		if _, err := tx.Themes().GetFile(s.ID, "default", store.KindSnippets, "footer"); err != nil {
			t.Errorf("GetFile(kept): got error %v, want none", err)
		}
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Themes().DeleteFile(s.ID, "default", store.KindSnippets, "nav")
	})
	checkCode(t, "DeleteFile(deleted)", err, cms.ENotFound)
}

func testThemesSiteScoping(t *testing.T, e *env) {
	a := e.createSite(t, "site-a")
	b := e.createSite(t, "site-b")
	var fa *store.ThemeFile
	e.update(t, func(tx store.Tx) error {
		fa = newFile(tx.Now(), a.ID, "default", store.KindLayouts, "main")
		return tx.Themes().PutFile(fa)
	})
	e.view(t, func(tx store.Tx) error {
		names, err := tx.Themes().ListThemes(b.ID)
		if err != nil || len(names) != 0 {
			t.Errorf("ListThemes(B): got %q, %v; want none", names, err)
		}
		files, err := tx.Themes().ListFiles(b.ID, "default", "")
		if err != nil || len(files) != 0 {
			t.Errorf("ListFiles(B): got %d files, %v; want none", len(files), err)
		}
		_, err = tx.Themes().GetFile(b.ID, "default", store.KindLayouts, "main")
		checkCode(t, "GetFile(B, A's file)", err, cms.ENotFound)
		_, err = tx.Themes().GetFileByID(b.ID, fa.ID)
		checkCode(t, "GetFileByID(B, A's id)", err, cms.ENotFound)
		return nil
	})
	err := e.tryUpdate(func(tx store.Tx) error {
		return tx.Themes().DeleteFile(b.ID, "default", store.KindLayouts, "main")
	})
	checkCode(t, "DeleteFile(B, A's file)", err, cms.ENotFound)

	// The same key under B is B's own file and leaves A's alone.
	var fb *store.ThemeFile
	e.update(t, func(tx store.Tx) error {
		fb = newFile(tx.Now(), b.ID, "default", store.KindLayouts, "main")
		fb.Code = "B's code"
		return tx.Themes().PutFile(fb)
	})
	if fb.ID == fa.ID {
		t.Errorf("PutFile(B, same key as A): got A's id %s, want a file of its own", fa.ID)
	}
	e.view(t, func(tx store.Tx) error {
		got, err := tx.Themes().GetFile(a.ID, "default", store.KindLayouts, "main")
		if err != nil {
			t.Fatalf("GetFile(A): %v", err)
		}
		checkDiff(t, "A's file after B's put", got, fa)
		return nil
	})
}

var errBoom = errors.New("boom")

func testThemesBinary(t *testing.T, e *env) {
	s := e.createSite(t, "acme")
	bytes := string([]byte{0x89, 'P', 'N', 'G', 0, 0xff, 0xfe, '\n', 0})
	e.update(t, func(tx store.Tx) error {
		return tx.Themes().PutFile(&store.ThemeFile{ID: cms.NewID(tx.Now()), SiteID: s.ID, Theme: "main", Kind: store.KindAssets,
			Name: "images/logo.png", Code: bytes, Binary: true, CreatedAt: tx.Now(), UpdatedAt: tx.Now()})
	})
	e.view(t, func(tx store.Tx) error {
		f, err := tx.Themes().GetFile(s.ID, "main", store.KindAssets, "images/logo.png")
		if err != nil || f.Code != bytes || !f.Binary {
			t.Errorf("binary file read back as %q (binary %v), %v", f.Code, f.Binary, err)
		}
		list, err := tx.Themes().ListFiles(s.ID, "main", store.KindAssets)
		if err != nil || len(list) != 1 || list[0].Code != bytes {
			t.Errorf("ListFiles: %v, %v", list, err)
		}
		return nil
	})
}
