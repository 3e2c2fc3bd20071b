package themes

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/lru"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service stores theme files and serves parsed template schemas.
type Service struct {
	Store store.Store
	// MaxDepth bounds how deeply a pushed or stored Liquid file may nest
	// (see CheckDepth); zero means DefaultMaxDepth.
	MaxDepth int

	// cache holds parsed schemas keyed by template id and updated_at. Those
	// two never change for a given content (every push bumps updated_at, also
	// of templates whose snippets changed), so entries never go stale, and
	// several processes sharing one database may each keep their own.
	// Bounded to maxCached on first use.
	once  sync.Once
	cache lru.Cache[cacheKey, *Template]
}

type cacheKey struct {
	id string
	at time.Time
}

// maxCached bounds the schema cache; past it the least recently used go.
const maxCached = 4096

// File is a theme file to store.
type File struct {
	Kind string
	// Name is the file's name; Liquid names may carry ".liquid" (see
	// CanonicalName).
	Name string
	// Code is the content: Liquid source, or an asset's bytes.
	Code string
	// Binary marks an asset whose bytes are not text (images, fonts).
	Binary bool
}

// Kinds lists the kinds of theme files, in the order they are shown.
var Kinds = []string{store.KindLayouts, store.KindTemplates, store.KindSnippets, store.KindAssets}

// namePattern keeps theme names safe as URL segments and folder names: no
// slashes, no leading dot.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_. -]{0,127}$`)

// ValidKind reports whether kind names a kind of theme file.
func ValidKind(kind string) bool {
	for _, k := range Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// checkFile validates f, whose name is canonical: its kind, its name, for
// an asset its type (files.CheckAsset), and for a Liquid file its size and
// its nesting, at most maxDepth deep (CheckDepth). The nesting is checked
// first: it is what could take the process down, it names the line, and
// it happens before the write transaction, so before any parser sees the
// file (validate checks the stored files it parses again).
func checkFile(f File, maxDepth int) error {
	if !ValidKind(f.Kind) {
		return cms.Errorf(cms.EInvalid, "Unknown theme file kind %q: use layouts, templates, snippets or assets.", f.Kind)
	}
	if err := checkName(f.Kind, f.Name); err != nil {
		return err
	}
	if f.Kind == store.KindAssets {
		return files.CheckAsset(f.Name, []byte(f.Code))
	}
	if err := CheckDepth(f.Name, f.Code, maxDepth); err != nil {
		return templateError(f, err)
	}
	if len(f.Code) > MaxLiquidBytes {
		return cms.Errorf(cms.ETooLarge, "%s/%s is larger than %d KiB; split it into snippets.", f.Kind, f.Name, MaxLiquidBytes>>10)
	}
	if f.Binary || !utf8.ValidString(f.Code) || strings.ContainsRune(f.Code, 0) {
		return cms.Errorf(cms.EInvalid, "%s/%s: a Liquid file must be UTF-8 text.", f.Kind, f.Name)
	}
	return nil
}

// MaxLiquidBytes bounds one layout, template or snippet.
const MaxLiquidBytes = 1 << 20

// canonical returns f with its canonical name.
func canonical(f File) File {
	f.Name = CanonicalName(f.Kind, f.Name)
	return f
}

// CheckThemeName validates a theme name. A name may not have the shape of
// a theme id (24 hex digits): routes take either, and an id must never
// name a theme by accident.
func CheckThemeName(theme string) error {
	if !namePattern.MatchString(theme) || strings.Contains(theme, "..") {
		return cms.Errorf(cms.EInvalid, "Invalid theme name %q.", theme)
	}
	if looksLikeID(theme) {
		return cms.Errorf(cms.EInvalid, "Invalid theme name %q: 24 hex digits is how a theme id looks.", theme)
	}
	return nil
}

// Push stores files in the site's theme, all or nothing. Every Liquid file
// of the resulting theme is parsed first; a file that does not parse fails
// the push with cms.EInvalidTemplate naming file, line and problem, and
// nothing is stored. Templates whose own code or included snippets changed
// get a new updated_at, so pages re-sync against them on their next save.
// It returns the stored files that changed.
func (s *Service) Push(ctx context.Context, siteID, theme string, files []File) ([]*store.ThemeFile, error) {
	res, err := s.PushTheme(ctx, siteID, theme, files, PushOptions{})
	if err != nil {
		return nil, err
	}
	return res.Changed, nil
}

// PushOptions are what a push does besides storing its files.
type PushOptions struct {
	// Prune removes the theme's files that the push does not hold, so
	// that the theme is exactly the pushed files (a theme folder).
	Prune bool
	// Activate makes the theme the site's active theme.
	Activate bool
	// Force lets the push take templates away from pages, by removing them
	// or by activating a theme without them; those pages then read without
	// a template (their schema warns of it). Without Force such a push
	// fails with cms.ETemplateInUse naming the pages.
	Force bool
}

// PushResult is what a push changed.
type PushResult struct {
	// Changed are the stored files written with a new updated_at.
	Changed []*store.ThemeFile
	// Removed are the files a pruning push removed, as "kind/name".
	Removed []string
	// Orphaned are the templates taken away from pages by a forced push.
	Orphaned []TemplateUse
}

// TemplateUse is a template and the pages that use it.
type TemplateUse struct {
	Template string
	// Count is the number of pages; Pages holds the first maxListedPages ids.
	Count int
	Pages []string
}

// PushTheme is Push with options: see PushOptions.
func (s *Service) PushTheme(ctx context.Context, siteID, theme string, files []File, opt PushOptions) (*PushResult, error) {
	if err := CheckThemeName(theme); err != nil {
		return nil, err
	}
	for i := range files {
		files[i] = canonical(files[i])
		if err := checkFile(files[i], s.MaxDepth); err != nil {
			return nil, err
		}
	}
	var res *PushResult
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		res = &PushResult{}
		stored, err := tx.Themes().ListFiles(siteID, theme, "")
		if err != nil {
			return err
		}
		next := newFileSet(stored)
		dirty := map[string]bool{} // kind/name of files whose code changes or that go
		pushed := map[string]bool{}
		for _, f := range files {
			k := key(f.Kind, f.Name)
			if old, ok := next.files[k]; !ok || old.Code != f.Code || old.Binary != f.Binary {
				dirty[k] = true
			}
			pushed[k] = true
			next.put(f)
		}
		if opt.Prune {
			for k := range next.files {
				if !pushed[k] {
					delete(next.files, k)
					dirty[k] = true
					res.Removed = append(res.Removed, k)
				}
			}
			sort.Strings(res.Removed)
		}
		touched, err := next.validate(dirty, s.MaxDepth)
		if err != nil {
			return err
		}
		site := &store.Site{ID: siteID, Theme: theme}
		if opt.Prune || opt.Activate {
			if site, err = tx.Sites().Get(siteID); err != nil {
				return err
			}
		}
		if opt.Prune && site.Theme == theme || opt.Activate && site.Theme != theme {
			uses, err := lostTemplates(tx, site, next)
			if err != nil {
				return err
			}
			if len(uses) > 0 && !opt.Force {
				return inUseError(uses, "push it with force (theme push --force)")
			}
			res.Orphaned = uses
		}
		if res.Changed, err = writeTouched(tx, siteID, theme, next, touched); err != nil {
			return err
		}
		for _, k := range res.Removed {
			prev := next.stored[k]
			if err := tx.Themes().DeleteFile(siteID, theme, prev.Kind, prev.Name); err != nil {
				return err
			}
		}
		activate := opt.Activate && site.Theme != theme
		if activate {
			prev := site.UpdatedAt
			site.Theme, site.UpdatedAt = theme, cms.NextUpdatedAt(prev, tx.Now())
			if err := tx.Sites().Update(site, prev); err != nil {
				return err
			}
		}
		// A push that changed nothing is no event.
		if len(res.Changed) == 0 && len(res.Removed) == 0 && !activate {
			return nil
		}
		return sitevents.AppendTheme(tx, siteID, theme)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// lostTemplates returns the templates of the site's active theme that
// pages use and that next, the files of the theme being pushed, lacks: the
// ones a push removes from the active theme, or, when the pushed theme
// becomes the active theme, the ones the active theme has and it has not.
func lostTemplates(tx store.Tx, site *store.Site, next *fileSet) ([]TemplateUse, error) {
	if site.Theme == "" {
		return nil, nil
	}
	active, err := tx.Themes().ListFiles(site.ID, site.Theme, store.KindTemplates)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, f := range active {
		name := CanonicalName(f.Kind, f.Name)
		if _, ok := next.files[key(store.KindTemplates, name)]; !ok {
			names[name] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var uses []TemplateUse
	for _, name := range sorted {
		u, err := templateUse(tx, site.ID, name)
		if err != nil {
			return nil, err
		}
		if u.Count > 0 {
			uses = append(uses, u)
		}
	}
	return uses, nil
}

// Delete removes one file. Removing a snippet that a template includes
// fails with cms.EInvalidTemplate, like a push that breaks the template.
// Removing a template of the site's active theme that pages use fails
// with cms.ETemplateInUse naming them, unless force is set: those pages
// then read without a template (their schema warns of it).
func (s *Service) Delete(ctx context.Context, siteID, theme, kind, name string, force bool) error {
	name = CanonicalName(kind, name)
	if !ValidKind(kind) || checkName(kind, name) != nil {
		return cms.ErrNotFound()
	}
	return s.Store.Update(ctx, func(tx store.Tx) error {
		stored, err := tx.Themes().ListFiles(siteID, theme, "")
		if err != nil {
			return err
		}
		next := newFileSet(stored)
		prev, ok := next.stored[key(kind, name)]
		if !ok {
			return cms.ErrNotFound()
		}
		if kind == store.KindTemplates && !force {
			if err := checkUnused(tx, siteID, theme, name); err != nil {
				return err
			}
		}
		delete(next.files, key(kind, name))
		touched, err := next.validate(map[string]bool{key(kind, name): true}, s.MaxDepth)
		if err != nil {
			return err
		}
		if _, err := writeTouched(tx, siteID, theme, next, touched); err != nil {
			return err
		}
		if err := tx.Themes().DeleteFile(siteID, theme, kind, prev.Name); err != nil {
			return err
		}
		// Removing a file changes the theme as a push does.
		return sitevents.AppendTheme(tx, siteID, theme)
	})
}

// maxListedPages bounds the pages a refused template removal names.
const maxListedPages = 50

// templateUse counts the pages of the site on template name.
func templateUse(tx store.Tx, siteID, name string) (TemplateUse, error) {
	recs, n, err := tx.Pages().List(siteID, store.PageFilter{Template: name}, store.ListOptions{Limit: maxListedPages})
	if err != nil {
		return TemplateUse{}, err
	}
	u := TemplateUse{Template: name, Count: n, Pages: make([]string, len(recs))}
	for i, r := range recs {
		u.Pages[i] = r.ID
	}
	return u, nil
}

// checkUnused refuses the removal of template name of theme when theme is
// the site's active theme and pages use the template.
func checkUnused(tx store.Tx, siteID, theme, name string) error {
	site, err := tx.Sites().Get(siteID)
	if err != nil || site.Theme != theme {
		return err
	}
	u, err := templateUse(tx, siteID, name)
	if err != nil || u.Count == 0 {
		return err
	}
	return inUseError([]TemplateUse{u}, "remove it with ?force=true")
}

// inUseError is the cms.ETemplateInUse refusal of a change that takes
// templates away from pages. Its data names the first template (template),
// every one (templates), the number of pages and the first page ids.
func inUseError(uses []TemplateUse, force string) error {
	names := make([]string, len(uses))
	n := 0
	ids := []string{}
	for i, u := range uses {
		names[i] = u.Template
		n += u.Count
		for _, id := range u.Pages {
			if len(ids) < maxListedPages {
				ids = append(ids, id)
			}
		}
	}
	what := "Template " + names[0] + " is"
	if len(names) > 1 {
		what = "Templates " + strings.Join(names, ", ") + " are"
	}
	return cms.Errorf(cms.ETemplateInUse, "%s used by %d page(s) (%s); change their template first, or %s.",
		what, n, listIDs(ids, n), force).
		WithData(map[string]any{"template": names[0], "templates": names, "pages_count": n, "pages": ids})
}

// listIDs shows up to 10 page ids of n.
func listIDs(ids []string, n int) string {
	const shown = 10
	if len(ids) > shown {
		ids = ids[:shown]
	}
	s := strings.Join(ids, ", ")
	if n > len(ids) {
		s += fmt.Sprintf(" and %d more", n-len(ids))
	}
	return s
}

// writeTouched stores the files of set named in touched with a new updated_at.
func writeTouched(tx store.Tx, siteID, theme string, set *fileSet, touched []string) ([]*store.ThemeFile, error) {
	var out []*store.ThemeFile
	for _, k := range touched {
		f, ok := set.files[k]
		if !ok {
			continue // deleted
		}
		tf := &store.ThemeFile{SiteID: siteID, Theme: theme, Kind: f.Kind, Name: f.Name, Code: f.Code, Binary: f.Binary,
			CreatedAt: tx.Now(), UpdatedAt: tx.Now()}
		if prev, ok := set.stored[k]; ok {
			tf.ID, tf.CreatedAt = prev.ID, prev.CreatedAt
			tf.UpdatedAt = cms.NextUpdatedAt(prev.UpdatedAt, tx.Now())
			if prev.Name != f.Name {
				if err := tx.Themes().DeleteFile(siteID, theme, prev.Kind, prev.Name); err != nil {
					return nil, err
				}
			}
		} else {
			tf.ID = cms.NewID(tx.Now())
		}
		if err := tx.Themes().PutFile(tf); err != nil {
			return nil, err
		}
		out = append(out, tf)
	}
	return out, nil
}

// fileSet is a theme's files as they would be after a change.
type fileSet struct {
	files  map[string]File
	stored map[string]*store.ThemeFile
}

func key(kind, name string) string { return kind + "/" + name }

// newFileSet keys stored files by canonical name; a file stored under
// another spelling (before names were canonical) is rewritten under its
// canonical name when it is next written.
func newFileSet(stored []*store.ThemeFile) *fileSet {
	fs := &fileSet{files: map[string]File{}, stored: map[string]*store.ThemeFile{}}
	for _, f := range stored {
		name := CanonicalName(f.Kind, f.Name)
		k := key(f.Kind, name)
		fs.stored[k] = f
		fs.files[k] = File{Kind: f.Kind, Name: name, Code: f.Code, Binary: f.Binary}
	}
	return fs
}

func (fs *fileSet) put(f File) { fs.files[key(f.Kind, f.Name)] = f }

func (fs *fileSet) include(used map[string]bool) func(string) (string, error) {
	return func(name string) (string, error) {
		k := key(store.KindSnippets, CanonicalName(store.KindSnippets, name))
		f, ok := fs.files[k]
		if !ok {
			return "", fmt.Errorf("snippet %q does not exist", name)
		}
		used[k] = true
		return f.Code, nil
	}
}

// validate parses every Liquid file of the set, each nesting at most
// maxDepth deep, and returns the keys of the files to rewrite: the dirty
// ones plus the templates that include a dirty snippet. Keys come back
// sorted so writes happen in a stable order.
func (fs *fileSet) validate(dirty map[string]bool, maxDepth int) ([]string, error) {
	touched := map[string]bool{}
	for k := range dirty {
		touched[k] = true
	}
	keys := make([]string, 0, len(fs.files))
	for k := range fs.files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := fs.files[k]
		if f.Kind == store.KindAssets {
			continue
		}
		if f.Kind != store.KindTemplates {
			// Layouts and snippets are checked as Liquid only: a snippet may
			// hold repeatables that make sense only where a canvas includes it,
			// and the templates that include it are parsed in full below.
			if err := checkSyntax(f.Name, f.Code, maxDepth); err != nil {
				return nil, templateError(f, err)
			}
			continue
		}
		used := map[string]bool{}
		if _, err := parse(f.Name, f.Code, fs.include(used), maxDepth); err != nil {
			return nil, templateError(f, err)
		}
		for u := range used {
			if dirty[u] {
				touched[k] = true
			}
		}
	}
	out := make([]string, 0, len(touched))
	for k := range touched {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// templateError turns a parse failure into the API error of a refused push.
func templateError(f File, err error) error {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return cms.Errorf(cms.EInvalidTemplate, "%s/%s: %v", f.Kind, f.Name, err)
	}
	file := pe.File
	if file == "" || file == f.Name {
		file = f.Kind + "/" + f.Name
	} else {
		file = store.KindSnippets + "/" + file
	}
	return cms.Errorf(cms.EInvalidTemplate, "%s:%d: %s", file, pe.Line, pe.Message).
		WithData(map[string]any{"file": file, "line": pe.Line, "problem": pe.Message, "included_from": f.Kind + "/" + f.Name})
}

// Template returns the schema of the named template (a name, with or
// without ".liquid", or an id) of the site's theme, with the stored file it
// was parsed from. Schemas are parsed once per template version and then
// served from memory. ENotFound.
func (s *Service) Template(tx store.Tx, siteID, theme, nameOrID string) (*Template, *store.ThemeFile, error) {
	f, err := getFile(tx, siteID, theme, store.KindTemplates, nameOrID)
	if cms.IsCode(err, cms.ENotFound) && cms.IsID(nameOrID) {
		f, err = tx.Themes().GetFileByID(siteID, nameOrID)
		if err == nil && (f.Kind != store.KindTemplates || f.Theme != theme) {
			err = cms.ErrNotFound()
		}
	}
	if err != nil {
		return nil, nil, err
	}
	k := cacheKey{f.ID, f.UpdatedAt}
	s.once.Do(func() { s.cache.MaxEntries = maxCached })
	t, ok := s.cache.Get(k)
	if ok {
		return t, f, nil
	}
	t, err = parse(CanonicalName(f.Kind, f.Name), f.Code, func(name string) (string, error) {
		sn, err := getFile(tx, siteID, theme, store.KindSnippets, name)
		if err != nil {
			return "", fmt.Errorf("snippet %q: %w", name, err)
		}
		return sn.Code, nil
	}, s.MaxDepth)
	if err != nil {
		// A stored template always parsed when it was pushed; failing now
		// means a parser change, which is a server bug, not a client error.
		return nil, nil, fmt.Errorf("themes: parse stored template %s: %w", f.Name, err)
	}
	s.cache.Put(k, t)
	return t, f, nil
}

// Themes returns the names of the site's themes.
func (s *Service) Themes(ctx context.Context, siteID string) (names []string, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		names, err = tx.Themes().ListThemes(siteID)
		return err
	})
	return names, err
}

// Files returns the files of one theme, ordered by kind and name. ENotFound
// when the theme has no files.
func (s *Service) Files(ctx context.Context, siteID, theme string) (files []*store.ThemeFile, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		files, err = tx.Themes().ListFiles(siteID, theme, "")
		if err == nil && len(files) == 0 {
			err = cms.ErrNotFound()
		}
		return err
	})
	return files, err
}

// File returns one theme file, by its name in either spelling. ENotFound.
func (s *Service) File(ctx context.Context, siteID, theme, kind, name string) (f *store.ThemeFile, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		f, err = getFile(tx, siteID, theme, kind, name)
		return err
	})
	return f, err
}

// getFile looks a file up by its canonical name, then (for Liquid files
// stored before names were canonical) with ".liquid". The file comes back
// with its canonical name. ENotFound.
func getFile(tx store.Tx, siteID, theme, kind, name string) (*store.ThemeFile, error) {
	name = CanonicalName(kind, name)
	f, err := tx.Themes().GetFile(siteID, theme, kind, name)
	if cms.IsCode(err, cms.ENotFound) && IsLiquid(kind) {
		f, err = tx.Themes().GetFile(siteID, theme, kind, name+LiquidExt)
	}
	if err != nil {
		return nil, err
	}
	f.Name = name
	return f, nil
}

// Put creates or replaces one file, validated like a push, and returns the
// stored file and whether it was new.
func (s *Service) Put(ctx context.Context, siteID, theme string, f File) (*store.ThemeFile, bool, error) {
	f = canonical(f)
	_, err := s.File(ctx, siteID, theme, f.Kind, f.Name)
	created := cms.IsCode(err, cms.ENotFound)
	if err != nil && !created {
		return nil, false, err
	}
	if _, err := s.Push(ctx, siteID, theme, []File{f}); err != nil {
		return nil, false, err
	}
	stored, err := s.File(ctx, siteID, theme, f.Kind, f.Name)
	return stored, created, err
}
