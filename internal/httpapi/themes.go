package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

// themeFileBodyBytes bounds POST /themes/{theme}/{kind}: an asset of
// files.MaxAssetBytes, base64-encoded, with room for the JSON around it.
const themeFileBodyBytes = files.MaxAssetBytes/3*4 + 64<<10

// themeJSON is a theme as GET /themes lists it. Short is the name again:
// theme tools of the original service prefer it to the id when they write
// a project's theme down.
type themeJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Short       string `json:"short"`
	SiteID      string `json:"site_id"`
	SiteShortID string `json:"site_short_id"`
	Active      bool   `json:"active"`
	CreatedAt   any    `json:"created_at"`
	UpdatedAt   any    `json:"updated_at"`
}

func toThemeJSON(site *store.Site, theme string, list []*store.ThemeFile) themeJSON {
	j := themeJSON{ID: themes.ID(site.ID, theme), Name: theme, Short: theme, SiteID: site.ID, SiteShortID: site.ShortID, Active: theme == site.Theme}
	var first, last time.Time
	for _, f := range list {
		if first.IsZero() || f.CreatedAt.Before(first) {
			first = f.CreatedAt
		}
		if f.UpdatedAt.After(last) {
			last = f.UpdatedAt
		}
	}
	if !first.IsZero() {
		j.CreatedAt, j.UpdatedAt = cms.FormatTime(first), cms.FormatTime(last)
	}
	return j
}

// themeFileJSON is a theme file: its name as theme tools know it
// ("page.liquid", "customers/login.liquid", "stylesheets/site.css"), its
// path (a Liquid file's place in a theme folder, an asset's name), its API
// URL (absolute, like every URL the API hands out) and, for assets, the URL
// the public site serves it at. Folder is always empty: theme tools join
// folder and name into the file's name within its kind, and a name here is
// already the whole of it.
type themeFileJSON struct {
	ID        string  `json:"id"`
	Theme     string  `json:"theme"`
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	Path      string  `json:"path"`
	Folder    string  `json:"folder"`
	URL       string  `json:"url"`
	PublicURL *string `json:"public_url"`
	Code      *string `json:"code,omitempty"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
}

func (s *Server) toThemeFileJSON(site *store.Site, f *store.ThemeFile, withCode bool) themeFileJSON {
	name := themes.CanonicalName(f.Kind, f.Name)
	base := s.URLs.Base(site)
	j := themeFileJSON{ID: f.ID, Theme: f.Theme, Kind: f.Kind, Name: themes.ToolName(f.Kind, name),
		Path:      filePath(f.Kind, name),
		URL:       base + "/api/themes/" + url.PathEscape(f.Theme) + "/" + f.Kind + "/" + url.PathEscape(themes.ToolName(f.Kind, name)),
		CreatedAt: cms.FormatTime(f.CreatedAt), UpdatedAt: cms.FormatTime(f.UpdatedAt)}
	if f.Kind == store.KindAssets {
		u := base + render.AssetURL(name, f.Code)
		j.PublicURL = &u
	}
	if withCode && !f.Binary {
		j.Code = &f.Code
	}
	return j
}

// filePath is the path of a theme file on the wire: where a Liquid file
// lies in a theme folder ("templates/customers/login.liquid"); for an
// asset its name, which is what theme tools take an asset's path for (they
// send it back as the name when they push or copy it).
func filePath(kind, name string) string {
	if kind == store.KindAssets {
		return name
	}
	return themes.Path(kind, name)
}

// theme resolves the {theme} of r's path, a theme's name or id, to the
// name of one of the site's themes (ENotFound).
func (s *Server) theme(r *http.Request) (string, error) {
	return s.Themes.Resolve(r.Context(), principal(r).Site.ID, r.PathValue("theme"))
}

// handleThemeList handles "GET /api/themes".
func (s *Server) handleThemeList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	site := principal(r).Site
	names, err := s.Themes.Themes(r.Context(), site.ID)
	if err != nil {
		return err
	}
	out := []themeJSON{}
	for i := (page - 1) * perPage; i < len(names) && i < page*perPage; i++ {
		list, err := s.Themes.Files(r.Context(), site.ID, names[i])
		if err != nil && !cms.IsCode(err, cms.ENotFound) {
			return err
		}
		out = append(out, toThemeJSON(site, names[i], list))
	}
	writeList(w, r, out, len(names), page, perPage)
	return nil
}

// handleThemeCount handles "GET /api/themes/count".
func (s *Server) handleThemeCount(w http.ResponseWriter, r *http.Request) error {
	names, err := s.Themes.Themes(r.Context(), principal(r).Site.ID)
	if err != nil {
		return err
	}
	writeCount(w, len(names))
	return nil
}

// handleThemeGet handles "GET /api/themes/{theme}": the theme with its
// Liquid files as {name, folder} and its assets as {path, public_url}.
// The theme's own fields are also under "theme", where theme tools read
// them.
func (s *Server) handleThemeGet(w http.ResponseWriter, r *http.Request) error {
	site := principal(r).Site
	theme, err := s.theme(r)
	if err != nil {
		return err
	}
	list, err := s.Themes.Files(r.Context(), site.ID, theme)
	if err != nil {
		return err
	}
	tj := toThemeJSON(site, theme, list)
	out := map[string]any{"id": tj.ID, "name": tj.Name, "short": tj.Short, "site_id": tj.SiteID, "site_short_id": tj.SiteShortID, "active": tj.Active,
		"created_at": tj.CreatedAt, "updated_at": tj.UpdatedAt, "theme": tj}
	byKind := map[string][]any{}
	for _, k := range themes.Kinds {
		byKind[k] = []any{}
	}
	for _, f := range list {
		j := s.toThemeFileJSON(site, f, false)
		if f.Kind == store.KindAssets {
			byKind[f.Kind] = append(byKind[f.Kind], map[string]any{"path": j.Path, "name": j.Name, "public_url": j.PublicURL})
		} else {
			byKind[f.Kind] = append(byKind[f.Kind], map[string]any{"name": j.Name, "folder": j.Folder})
		}
	}
	for k, files := range byKind {
		out[k] = files
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func themeKind(r *http.Request) (string, error) {
	kind := r.PathValue("kind")
	if !themes.ValidKind(kind) {
		return "", cms.ErrNotFound()
	}
	return kind, nil
}

// themeInfoJSON is GET /api/themes/{theme}/info: where the theme's assets
// are served. cdn_root is the URL an asset's name is appended to
// (cdn_host plus cdn_base_path); the public site serves its active
// theme's assets there, each also under its fingerprinted public_url.
type themeInfoJSON struct {
	ThemeID      string `json:"theme_id"`
	ThemeShortID string `json:"theme_short_id"`
	SiteID       string `json:"site_id"`
	SiteShortID  string `json:"site_short_id"`
	Active       bool   `json:"active"`
	CDNHost      string `json:"cdn_host"`
	CDNBasePath  string `json:"cdn_base_path"`
	CDNRoot      string `json:"cdn_root"`
}

// handleThemeInfo handles "GET /api/themes/{theme}/info".
func (s *Server) handleThemeInfo(w http.ResponseWriter, r *http.Request) error {
	site := principal(r).Site
	theme, err := s.theme(r)
	if err != nil {
		return err
	}
	base := s.URLs.Base(site)
	writeJSON(w, http.StatusOK, themeInfoJSON{ThemeID: themes.ID(site.ID, theme), ThemeShortID: theme,
		SiteID: site.ID, SiteShortID: site.ShortID, Active: theme == site.Theme,
		CDNHost: base, CDNBasePath: render.AssetPrefix, CDNRoot: base + render.AssetPrefix})
	return nil
}

// handleThemeKindList handles "GET /api/themes/{theme}/{kind}": a paged
// list of the theme's files of one kind.
func (s *Server) handleThemeKindList(w http.ResponseWriter, r *http.Request) error {
	kind, err := themeKind(r)
	if err != nil {
		return err
	}
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	site := principal(r).Site
	theme, err := s.theme(r)
	if err != nil {
		return err
	}
	list, err := s.Themes.Files(r.Context(), site.ID, theme)
	if err != nil {
		return err
	}
	var ofKind []*store.ThemeFile
	for _, f := range list {
		if f.Kind == kind {
			ofKind = append(ofKind, f)
		}
	}
	out := []themeFileJSON{}
	for i := (page - 1) * perPage; i < len(ofKind) && i < page*perPage; i++ {
		out = append(out, s.toThemeFileJSON(site, ofKind[i], false))
	}
	writeList(w, r, out, len(ofKind), page, perPage)
	return nil
}

// handleThemeFileGet handles "GET /api/themes/{theme}/{kind}/{name...}"
// (the name's "/" escaped or not, ".liquid" or not).
func (s *Server) handleThemeFileGet(w http.ResponseWriter, r *http.Request) error {
	kind, err := themeKind(r)
	if err != nil {
		return err
	}
	site := principal(r).Site
	theme, err := s.theme(r)
	if err != nil {
		return err
	}
	f, err := s.Themes.File(r.Context(), site.ID, theme, kind, r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.toThemeFileJSON(site, f, true))
	return nil
}

// handleThemeFilePut handles "POST /api/themes/{theme}/{kind}": {name,
// code}, or for assets {name, source} with source in the File upload form;
// a folder, when sent, is the folder of name within its kind (theme tools
// send {name: "welcome.liquid", folder: "emails"}). It creates or replaces
// the file (201 or 200). {theme} names one of the site's themes by name or
// id; a name no theme has yet creates that theme, an id never does (404).
// A site without an active theme gets this one, so a first upload is
// immediately usable.
func (s *Server) handleThemeFilePut(w http.ResponseWriter, r *http.Request) error {
	kind := r.PathValue("kind") // checked with the file: an unknown kind is a 422
	var body struct {
		Name   *string         `json:"name"`
		Folder *string         `json:"folder"`
		Code   *string         `json:"code"`
		Source json.RawMessage `json:"source"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	if body.Name == nil || *body.Name == "" {
		return cms.FieldError("name", "is required")
	}
	f := themes.File{Kind: kind, Name: *body.Name}
	if body.Folder != nil {
		if folder := strings.Trim(*body.Folder, "/"); folder != "" {
			f.Name = folder + "/" + strings.TrimPrefix(f.Name, "/")
		}
	}
	switch {
	case body.Code != nil:
		f.Code = *body.Code
	case len(body.Source) > 0 && string(body.Source) != "null" && kind == store.KindAssets:
		var src any
		if err := json.Unmarshal(body.Source, &src); err != nil {
			return cms.FieldError("source", "must be a File upload object")
		}
		data, err := files.ParseAssetSource(src, "source")
		if err != nil {
			return err
		}
		f.Code = string(data)
		f.Binary = !utf8.Valid(data) || strings.IndexByte(f.Code, 0) >= 0
	case kind == store.KindAssets:
		return cms.Errorf(cms.EInvalid, "Send 'name' and 'code', or 'name' and 'source'.")
	default:
		return cms.Errorf(cms.EInvalid, "Send both 'name' and 'code'.")
	}
	site := principal(r).Site
	theme, err := s.Themes.ResolveForWrite(r.Context(), site.ID, r.PathValue("theme"))
	if err != nil {
		return err
	}
	stored, created, err := s.Themes.Put(r.Context(), site.ID, theme, f)
	if err != nil {
		return err
	}
	if site.Theme == "" {
		if err := s.Sites.SetTheme(r.Context(), site.ID, theme); err != nil {
			return err
		}
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, s.toThemeFileJSON(site, stored, true))
	return nil
}

// handleThemeFileDelete handles "DELETE /api/themes/{theme}/{kind}/{name...}";
// a template that pages use is removed only with ?force=true.
func (s *Server) handleThemeFileDelete(w http.ResponseWriter, r *http.Request) error {
	kind, err := themeKind(r)
	if err != nil {
		return err
	}
	theme, err := s.theme(r)
	if err != nil {
		return err
	}
	force, _ := cms.Bool(query(r).Get("force"))
	if err := s.Themes.Delete(r.Context(), principal(r).Site.ID, theme, kind, r.PathValue("name"), force); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
