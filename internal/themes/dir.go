package themes

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// maxThemeFileBytes bounds one theme file read from disk.
const maxThemeFileBytes = 4 << 20

// LoadDir reads a theme laid out as a directory: layouts/, templates/ and
// snippets/ of *.liquid files (named without the extension) and assets/ of
// any files (named with it). Subdirectories and dot files are skipped.
func LoadDir(fsys fs.FS) ([]File, error) {
	var files []File
	for _, kind := range Kinds {
		entries, err := fs.ReadDir(fsys, kind)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			name := e.Name()
			if kind != "assets" {
				var ok bool
				if name, ok = strings.CutSuffix(name, ".liquid"); !ok {
					continue
				}
			}
			info, err := e.Info()
			if err != nil {
				return nil, err
			}
			if info.Size() > maxThemeFileBytes {
				return nil, fmt.Errorf("%s/%s is larger than %d bytes", kind, e.Name(), maxThemeFileBytes)
			}
			code, err := fs.ReadFile(fsys, kind+"/"+e.Name())
			if err != nil {
				return nil, err
			}
			files = append(files, File{Kind: kind, Name: name, Code: string(code)})
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no theme files found (expected layouts/, templates/, snippets/ or assets/)")
	}
	return files, nil
}
