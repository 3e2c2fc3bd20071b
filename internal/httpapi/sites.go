package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/sites"
	"github.com/tessera-cms/tessera/internal/store"
)

// siteJSON is the API shape of a site. The preview secret never leaves the server.
type siteJSON struct {
	ID      string `json:"id"`
	ShortID string `json:"short_id"`
	// Subdomain is the short id again, under the name the original
	// service's clients read.
	Subdomain string `json:"subdomain"`
	// Domain is the site's first domain, the one its links use; absent
	// when it has none.
	Domain        string   `json:"domain,omitempty"`
	Name          string   `json:"name"`
	DefaultLocale string   `json:"default_locale"`
	Locales       []string `json:"locales"`
	Timezone      string   `json:"timezone"`
	Domains       []string `json:"domains"`
	DraftsEnabled bool     `json:"drafts_enabled"`
	// CustomerConfirmation: new customers confirm their email first.
	CustomerConfirmation bool    `json:"customer_confirmation"`
	Theme                *string `json:"theme"`
	CreatedAt            string  `json:"created_at"`
	UpdatedAt            string  `json:"updated_at"`
}

func toSiteJSON(s *store.Site) siteJSON {
	j := siteJSON{
		ID: s.ID, ShortID: s.ShortID, Subdomain: s.ShortID, Name: s.Name, DefaultLocale: s.DefaultLocale,
		Locales: s.Locales, Timezone: s.Timezone, Domains: s.Domains, DraftsEnabled: s.DraftsEnabled,
		CustomerConfirmation: s.CustomerConfirmation,
		CreatedAt:            cms.FormatTime(s.CreatedAt), UpdatedAt: cms.FormatTime(s.UpdatedAt),
	}
	if j.Domains == nil {
		j.Domains = []string{}
	} else if len(j.Domains) > 0 {
		j.Domain = j.Domains[0]
	}
	if s.Theme != "" {
		j.Theme = &s.Theme
	}
	return j
}

// visibleSites lists the sites the caller may see: a site token sees its own
// site, a user token the sites it is a member of.
func (s *Server) visibleSites(r *http.Request, opt store.ListOptions) ([]*store.Site, int, error) {
	p := principal(r)
	if p.IsSiteToken() {
		if opt.Offset > 0 {
			return nil, 1, nil
		}
		return []*store.Site{p.Site}, 1, nil
	}
	return s.Sites.ListForUser(r.Context(), p.User.ID, opt)
}

// handleSiteList handles "GET /api/sites".
func (s *Server) handleSiteList(w http.ResponseWriter, r *http.Request) error {
	page, perPage, err := pageParams(r)
	if err != nil {
		return err
	}
	list, total, err := s.visibleSites(r, listOptions(page, perPage))
	if err != nil {
		return err
	}
	out := make([]siteJSON, len(list))
	for i, st := range list {
		out[i] = toSiteJSON(st)
	}
	writeList(w, r, out, total, page, perPage)
	return nil
}

// handleSiteCount handles "GET /api/sites/count".
func (s *Server) handleSiteCount(w http.ResponseWriter, r *http.Request) error {
	_, total, err := s.visibleSites(r, store.ListOptions{Limit: 1})
	if err != nil {
		return err
	}
	writeCount(w, total)
	return nil
}

// siteFromPath returns the site named by the {site} path value (id or short
// id) if the caller may act on it. An unknown site and a forbidden one are
// both 403, so that probing does not reveal which sites exist.
func (s *Server) siteFromPath(r *http.Request) (*store.Site, string, error) {
	ref := r.PathValue("site")
	// The site the request authenticated for (X-Service-Site, or a site
	// token's own) was resolved with the caller's role already, from the
	// auth cache: naming it again in the path needs no other look-up.
	if p := principal(r); p != nil && p.Site != nil && (strings.EqualFold(ref, p.Site.ID) || strings.EqualFold(ref, p.Site.ShortID)) {
		return p.Site, p.Role, nil
	}
	site, err := s.Sites.Get(r.Context(), ref)
	if cms.IsCode(err, cms.ENotFound) {
		return nil, "", cms.Errorf(cms.EForbidden, "This token has no access to that site.")
	} else if err != nil {
		return nil, "", err
	}
	role, err := s.Auth.CanAccess(r.Context(), principal(r), site.ID)
	if err != nil {
		return nil, "", err
	}
	return site, role, nil
}

// handleSiteGet handles "GET /api/sites/{site}".
func (s *Server) handleSiteGet(w http.ResponseWriter, r *http.Request) error {
	site, _, err := s.siteFromPath(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toSiteJSON(site))
	return nil
}

// handleSiteSettings handles "GET /api/sites/{site}/settings".
func (s *Server) handleSiteSettings(w http.ResponseWriter, r *http.Request) error {
	site, _, err := s.siteFromPath(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"default_locale": site.DefaultLocale, "locales": site.Locales})
	return nil
}

// handleSitePreviewSecret handles "POST /api/sites/{site}/preview_secret":
// an admin rotates the site's preview secret, revoking every preview token.
func (s *Server) handleSitePreviewSecret(w http.ResponseWriter, r *http.Request) error {
	site, role, err := s.siteFromPath(r)
	if err != nil {
		return err
	}
	if role != store.RoleAdmin {
		return cms.Errorf(cms.EForbidden, "Only site admins may rotate the preview secret.")
	}
	if err := s.Sites.RotatePreviewSecret(r.Context(), site.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// siteUpdateBody is PATCH /sites/{site}'s body: the settings an admin may
// change. Keys a site read shows but that cannot change are ignored, so a
// read body can be sent back.
type siteUpdateBody struct {
	Name                 *string   `json:"name"`
	Locales              *[]string `json:"locales"`
	Timezone             *string   `json:"timezone"`
	Domains              *[]string `json:"domains"`
	DraftsEnabled        *bool     `json:"drafts_enabled"`
	CustomerConfirmation *bool     `json:"customer_confirmation"`
}

// handleSiteUpdate handles "PATCH /api/sites/{site}": an admin changes the
// site's name, locales, time zone, domains and switches.
func (s *Server) handleSiteUpdate(w http.ResponseWriter, r *http.Request) error {
	site, role, err := s.siteFromPath(r)
	if err != nil {
		return err
	}
	if role != store.RoleAdmin {
		return cms.Errorf(cms.EForbidden, "Only site admins may change the site.")
	}
	raw, err := readBody(r)
	if err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := unmarshal(raw, &keys); err != nil {
		return err
	}
	for k := range keys {
		switch k {
		case "name", "locales", "timezone", "domains", "drafts_enabled", "customer_confirmation",
			"id", "short_id", "subdomain", "domain", "default_locale", "theme", "url", "created_at", "updated_at":
		default:
			return cms.Errorf(cms.EInvalid, "Unknown site setting %q.", k)
		}
	}
	var b siteUpdateBody
	if err := unmarshal(raw, &b); err != nil {
		return err
	}
	site, err = s.Sites.Update(r.Context(), site.ID, sites.UpdateParams{Name: b.Name, Locales: b.Locales, Timezone: b.Timezone,
		Domains: b.Domains, DraftsEnabled: b.DraftsEnabled, CustomerConfirmation: b.CustomerConfirmation})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toSiteJSON(site))
	return nil
}
