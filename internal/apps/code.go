package apps

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// PutCode stores the code file name of app key (POST /apps/{key}/code, PUT
// /apps/{key}/code/{name}) and recompiles the app. A file that breaks the
// compilation is stored all the same and answered *CompileFailed.
func (s *Service) PutCode(ctx context.Context, site *store.Site, key, name, code string) (*File, error) {
	if !fileNamePattern.MatchString(name) || strings.Contains(name, "..") {
		return nil, cms.FieldError("name", "is a file name of letters, digits, '_', '-' and '.', folders separated by '/'")
	}
	if len(code) > maxFileBytes {
		return nil, cms.Errorf(cms.ETooLarge, "A code file holds at most %d KiB.", maxFileBytes>>10)
	}
	var f *store.AppFile
	comp, err := s.changeCode(ctx, site, key, func(files []*store.AppFile, now time.Time) ([]*store.AppFile, error) {
		f = &store.AppFile{SiteID: site.ID, Name: name, Code: code, CreatedAt: now, UpdatedAt: now}
		out := slices.Clone(files)
		for i, old := range out {
			if old.Name == name {
				f.CreatedAt, f.UpdatedAt = old.CreatedAt, cms.NextUpdatedAt(old.UpdatedAt, now)
				out[i] = f
				return out, nil
			}
		}
		if len(files) >= maxFiles {
			return nil, cms.Errorf(cms.EInvalid, "An app holds at most %d code files.", maxFiles)
		}
		return append(out, f), nil
	}, func(tx store.Tx, rec *store.App) error {
		f.AppID = rec.ID
		return tx.Apps().PutFile(f)
	})
	if err != nil {
		return nil, err
	}
	view := s.fileView(site, key, f, true)
	view.Compilation = comp
	if !comp.Success {
		return view, &CompileFailed{File: view}
	}
	return view, nil
}

// DeleteFile removes a code file and recompiles the app. ENotFound.
func (s *Service) DeleteFile(ctx context.Context, site *store.Site, key, name string) (*Compilation, error) {
	return s.changeCode(ctx, site, key, func(files []*store.AppFile, _ time.Time) ([]*store.AppFile, error) {
		i := slices.IndexFunc(files, func(f *store.AppFile) bool { return f.Name == name })
		if i < 0 {
			return nil, cms.ErrNotFound()
		}
		return slices.Delete(slices.Clone(files), i, i+1), nil
	}, func(tx store.Tx, rec *store.App) error {
		return tx.Apps().DeleteFile(site.ID, rec.ID, name)
	})
}

// codeAttempts bounds how often a code change compiles again because the
// app's code changed while it compiled.
const codeAttempts = 3

// changeCode changes the code of app key: edit gives the files as they
// will be, which compile on a worker with no transaction open (code that
// loads for seconds holds no write lock, which on SQLite is every
// site's); then write stores the change and the compilation in one
// transaction, if the app is still as it was read, or the whole runs again.
// A failed compilation records its errors and keeps the previous
// registrations.
func (s *Service) changeCode(ctx context.Context, site *store.Site, key string,
	edit func(files []*store.AppFile, now time.Time) ([]*store.AppFile, error),
	write func(tx store.Tx, rec *store.App) error) (*Compilation, error) {
	for range codeAttempts {
		var base *store.App
		var next []*store.AppFile
		var now time.Time
		err := s.Store.View(ctx, func(tx store.Tx) error {
			rec, _, err := load(tx, site, key)
			if err != nil {
				return err
			}
			files, err := tx.Apps().Files(site.ID, rec.ID)
			if err != nil {
				return err
			}
			base, now = rec, tx.Now()
			next, err = edit(files, now)
			return err
		})
		if err != nil {
			return nil, err
		}
		reg, errs := s.compile(ctx, next, now)
		var comp *Compilation
		err = s.Store.Update(ctx, func(tx store.Tx) error {
			rec, a, err := load(tx, site, key)
			if err != nil {
				return err
			}
			if rec.ID != base.ID || !rec.UpdatedAt.Equal(base.UpdatedAt) {
				return errCodeMoved
			}
			if err := write(tx, rec); err != nil {
				return err
			}
			names := make([]string, len(next))
			for i, f := range next {
				names[i] = f.Name
			}
			comp = storeCompilation(tx, rec, a, reg, errs, names)
			return nil
		})
		if err == errCodeMoved {
			continue
		}
		return comp, err
	}
	return nil, cms.Errorf(cms.EConflict, "The app's code changed while it compiled; try again.")
}

// errCodeMoved is an app whose code changed while a change of it compiled.
var errCodeMoved = cms.Errorf(cms.EConflict, "the app's code moved")

// storeCompilation records a compilation's result in a and stores the app:
// a failure records its errors and keeps the previous registrations.
func storeCompilation(tx store.Tx, rec *store.App, a *app, reg Registry, errs, files []string) *Compilation {
	comp := &Compilation{Success: len(errs) == 0, Errors: orNone(errs), Problems: problemsOf(errs, files)}
	a.CompileErrors, a.CompileProblems = errs, comp.Problems
	if len(errs) == 0 {
		a.CompileProblems = nil
	}
	if comp.Success {
		reg.keepTimes(a.Registry)
		a.Registry, a.CompiledAt = reg, tx.Now()
		if err := tx.AppQueue().SetSchedules(rec.SiteID, rec.ID, schedules(rec.SiteID, rec.ID, reg, tx.Now())); err != nil {
			comp.Success, comp.Errors, comp.Problems = false, []string{err.Error()}, []Problem{{Message: err.Error()}}
		}
	}
	prev := rec.UpdatedAt
	rec.UpdatedAt, rec.Doc = cms.NextUpdatedAt(prev, tx.Now()), mustJSON(a)
	if err := tx.Apps().Update(rec, prev); err != nil {
		comp.Success, comp.Errors, comp.Problems = false, []string{err.Error()}, []Problem{{Message: err.Error()}}
	}
	return comp
}
