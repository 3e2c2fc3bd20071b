package sqldb

import (
	"encoding/base64"
	"fmt"

	"github.com/tessera-cms/tessera/internal/store"
)

// themes stores theme files. Every statement filters on site_id, so a site
// can never see another site's files, even by id.
type themes struct{ *tx }

const themeFileColumns = `id, site_id, theme, kind, name, code, is_binary, created_at, updated_at`

// Binary files are kept base64-encoded in the code column: a text column
// holds neither NUL bytes nor invalid UTF-8 on PostgreSQL.
func scanThemeFile(row scanner) (*store.ThemeFile, error) {
	var f store.ThemeFile
	err := row.Scan(&f.ID, &f.SiteID, &f.Theme, &f.Kind, &f.Name, &f.Code, &f.Binary,
		timeCol{&f.CreatedAt}, timeCol{&f.UpdatedAt})
	if err != nil {
		return nil, err
	}
	if f.Binary {
		raw, err := base64.StdEncoding.DecodeString(f.Code)
		if err != nil {
			return nil, fmt.Errorf("theme file %s: %w", f.ID, err)
		}
		f.Code = string(raw)
	}
	return &f, nil
}

func storedCode(f *store.ThemeFile) string {
	if f.Binary {
		return base64.StdEncoding.EncodeToString([]byte(f.Code))
	}
	return f.Code
}

func scanString(row scanner) (string, error) {
	var s string
	err := row.Scan(&s)
	return s, err
}

func (x themes) ListThemes(siteID string) ([]string, error) {
	names, err := scanAll(x.tx, scanString,
		`SELECT DISTINCT theme FROM theme_files WHERE site_id = ? ORDER BY theme`, siteID)
	if err != nil {
		return nil, x.fail(err, "list themes of site "+siteID, "")
	}
	return names, nil
}

func (x themes) ListFiles(siteID, theme, kind string) ([]*store.ThemeFile, error) {
	files, err := scanAll(x.tx, scanThemeFile, `SELECT `+themeFileColumns+` FROM theme_files
		WHERE site_id = ? AND theme = ? AND (kind = ? OR ? = '') ORDER BY kind, name`,
		siteID, theme, kind, kind)
	if err != nil {
		return nil, x.fail(err, "list files of theme "+theme+" of site "+siteID, "")
	}
	return files, nil
}

func (x themes) GetFile(siteID, theme, kind, name string) (*store.ThemeFile, error) {
	f, err := scanThemeFile(x.queryRow(`SELECT `+themeFileColumns+` FROM theme_files
		WHERE site_id = ? AND theme = ? AND kind = ? AND name = ?`, siteID, theme, kind, name))
	if err != nil {
		return nil, x.fail(err, "get theme file "+theme+"/"+kind+"/"+name+" of site "+siteID, "")
	}
	return f, nil
}

func (x themes) GetFileByID(siteID, id string) (*store.ThemeFile, error) {
	f, err := scanThemeFile(x.queryRow(`SELECT `+themeFileColumns+` FROM theme_files
		WHERE site_id = ? AND id = ?`, siteID, id))
	if err != nil {
		return nil, x.fail(err, "get theme file "+id+" of site "+siteID, "")
	}
	return f, nil
}

// PutFile inserts the file or, when (site, theme, kind, name) exists,
// replaces its code and updated_at in the same statement, so concurrent puts
// of one file never conflict; RETURNING hands back the kept id and created_at.
func (x themes) PutFile(f *store.ThemeFile) error {
	err := x.queryRow(`INSERT INTO theme_files (`+themeFileColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (site_id, theme, kind, name)
		DO UPDATE SET code = excluded.code, is_binary = excluded.is_binary, updated_at = excluded.updated_at
		RETURNING id, created_at`,
		f.ID, f.SiteID, f.Theme, f.Kind, f.Name, storedCode(f), f.Binary, x.time(f.CreatedAt), x.time(f.UpdatedAt),
	).Scan(&f.ID, timeCol{&f.CreatedAt})
	if err != nil {
		return x.fail(err, "put theme file "+f.Theme+"/"+f.Kind+"/"+f.Name+" of site "+f.SiteID,
			"A theme file with id "+f.ID+" already exists.")
	}
	return nil
}

func (x themes) DeleteFile(siteID, theme, kind, name string) error {
	res, err := x.exec(`DELETE FROM theme_files WHERE site_id = ? AND theme = ? AND kind = ? AND name = ?`,
		siteID, theme, kind, name)
	if err != nil {
		return x.fail(err, "delete theme file "+theme+"/"+kind+"/"+name+" of site "+siteID, "")
	}
	return x.mustAffect(res, "delete theme file "+theme+"/"+kind+"/"+name+" of site "+siteID)
}

func (x themes) Stamp(siteID, theme string) (store.Stamp, error) {
	var st store.Stamp
	err := x.queryRow(`SELECT COUNT(*), MAX(updated_at) FROM theme_files WHERE site_id = ? AND theme = ?`,
		siteID, theme).Scan(&st.Count, optTimeCol{&st.Latest})
	if err != nil {
		return st, x.fail(err, "stamp theme "+theme+" of site "+siteID, "")
	}
	return st, nil
}
