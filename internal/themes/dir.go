package themes

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
)

// AssetFolders are the folders theme tools keep assets in; an asset found
// there is named with its folder ("stylesheets/site.css"). Assets under
// assets/ are named without it.
var AssetFolders = []string{"images", "fonts", "javascripts", "stylesheets"}

// LoadDir reads a theme laid out as a folder, as theme tools keep one:
// layouts/, templates/ and snippets/ of *.liquid files, subfolders
// included (templates/customers/login.liquid is the template
// "customers/login"); assets under assets/ (named without that folder) and
// under images/, fonts/, javascripts/ and stylesheets/ (named with it).
// Dot files and dot folders are skipped, as are files of other kinds in
// the Liquid folders. An asset whose bytes are not UTF-8 text is Binary.
func LoadDir(fsys fs.FS) ([]File, error) {
	var out []File
	seen := map[string]string{}
	add := func(kind, name, at string) error {
		k := key(kind, name)
		if prev, ok := seen[k]; ok {
			return fmt.Errorf("%s and %s are the same %s file %q", prev, at, kind, name)
		}
		seen[k] = at
		data, err := readLimited(fsys, at)
		if err != nil {
			return err
		}
		f := File{Kind: kind, Name: name, Code: string(data)}
		if kind == store.KindAssets {
			f.Binary = !utf8.Valid(data) || strings.IndexByte(f.Code, 0) >= 0
		}
		out = append(out, f)
		return nil
	}
	for _, kind := range []string{store.KindLayouts, store.KindTemplates, store.KindSnippets} {
		err := walk(fsys, kind, func(rel string) error {
			name, ok := strings.CutSuffix(rel, LiquidExt)
			if !ok {
				return nil
			}
			return add(kind, name, kind+"/"+rel)
		})
		if err != nil {
			return nil, err
		}
	}
	if err := walk(fsys, store.KindAssets, func(rel string) error { return add(store.KindAssets, rel, store.KindAssets+"/"+rel) }); err != nil {
		return nil, err
	}
	for _, folder := range AssetFolders {
		err := walk(fsys, folder, func(rel string) error {
			return add(store.KindAssets, folder+"/"+rel, folder+"/"+rel)
		})
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no theme files found (expected layouts/, templates/, snippets/, assets/, images/, fonts/, javascripts/ or stylesheets/)")
	}
	return out, nil
}

// walk calls fn with the path, relative to dir, of every regular file
// under dir, skipping dot files and dot folders; a missing dir is empty.
func walk(fsys fs.FS, dir string, fn func(rel string) error) error {
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return fn(strings.TrimPrefix(p, dir+"/"))
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// readLimited reads one theme file, refusing ones larger than an asset
// may be.
func readLimited(fsys fs.FS, name string) ([]byte, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if info.Size() > files.MaxAssetBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB", name, files.MaxAssetBytes>>20)
	}
	return fs.ReadFile(fsys, name)
}

// WriteDir writes theme files into dir in the folder layout LoadDir reads
// (see Path), creating folders as needed, so that LoadDir gives the same
// files back. It returns the paths written, sorted. Names were checked
// when the files were stored; dir is still opened as a root, so that no
// name could write outside it.
func WriteDir(dir string, list []*store.ThemeFile) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var written []string
	for _, f := range list {
		p := Path(f.Kind, CanonicalName(f.Kind, f.Name))
		if !filepath.IsLocal(p) {
			return written, fmt.Errorf("theme file %q would be written outside %s", p, dir)
		}
		if err := root.MkdirAll(path.Dir(p), 0o755); err != nil {
			return written, err
		}
		if err := root.WriteFile(p, []byte(f.Code), 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	sort.Strings(written)
	return written, nil
}
