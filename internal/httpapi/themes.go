package httpapi

import (
	"net/http"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

type themeJSON struct {
	Name        string `json:"name"`
	SiteShortID string `json:"site_short_id"`
	Active      bool   `json:"active"`
}

type themeFileJSON struct {
	ID        string `json:"id"`
	Theme     string `json:"theme"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Code      string `json:"code"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

func toThemeFileJSON(f *store.ThemeFile) themeFileJSON {
	return themeFileJSON{ID: f.ID, Theme: f.Theme, Kind: f.Kind, Name: f.Name, Code: f.Code,
		CreatedAt: cms.FormatTime(f.CreatedAt), UpdatedAt: cms.FormatTime(f.UpdatedAt)}
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
		out = append(out, themeJSON{Name: names[i], SiteShortID: site.ShortID, Active: names[i] == site.Theme})
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

// handleThemeGet handles "GET /api/themes/{theme}": the names of its files by kind.
func (s *Server) handleThemeGet(w http.ResponseWriter, r *http.Request) error {
	site := principal(r).Site
	files, err := s.Themes.Files(r.Context(), site.ID, r.PathValue("theme"))
	if err != nil {
		return err
	}
	out := map[string]any{"name": r.PathValue("theme"), "site_short_id": site.ShortID, "active": r.PathValue("theme") == site.Theme}
	byKind := map[string][]string{}
	for _, k := range themes.Kinds {
		byKind[k] = []string{}
	}
	for _, f := range files {
		byKind[f.Kind] = append(byKind[f.Kind], f.Name)
	}
	for k, names := range byKind {
		out[k] = names
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleThemeFileGet handles "GET /api/themes/{theme}/{kind}/{name}".
func (s *Server) handleThemeFileGet(w http.ResponseWriter, r *http.Request) error {
	f, err := s.Themes.File(r.Context(), principal(r).Site.ID, r.PathValue("theme"), r.PathValue("kind"), r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toThemeFileJSON(f))
	return nil
}

// handleThemeFilePut handles "POST /api/themes/{theme}/{kind}" with {name, code}:
// it creates or replaces the file (201 or 200). A site without an active
// theme gets this one, so a first upload is immediately usable.
func (s *Server) handleThemeFilePut(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name *string `json:"name"`
		Code *string `json:"code"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	if body.Name == nil || body.Code == nil {
		return cms.Errorf(cms.EInvalid, "Send both 'name' and 'code'.")
	}
	site := principal(r).Site
	theme := r.PathValue("theme")
	f, created, err := s.Themes.Put(r.Context(), site.ID, theme, themes.File{Kind: r.PathValue("kind"), Name: *body.Name, Code: *body.Code})
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
	writeJSON(w, status, toThemeFileJSON(f))
	return nil
}

// handleThemeFileDelete handles "DELETE /api/themes/{theme}/{kind}/{name}".
func (s *Server) handleThemeFileDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.Themes.Delete(r.Context(), principal(r).Site.ID, r.PathValue("theme"), r.PathValue("kind"), r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
