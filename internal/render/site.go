package render

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/customers"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

// Special renders name the theme templates a site may define for pages
// that are not pages of its own: the error pages, the login page, and the
// pages the customers' mailed links open. The last two live under
// customers/ only, where a page's own template named "confirm" cannot be
// taken for them.
const (
	TemplateNotFound      = "404"
	TemplateForbidden     = "403"
	TemplateError500      = "500"
	TemplateLogin         = "login"
	TemplateResetPassword = "customers/reset_password"
	TemplateConfirm       = "customers/confirm"
)

// Paths of the public site's customer pages that mailed links open.
const (
	ResetPasswordPath = customers.ResetPath
	ConfirmPath       = customers.ConfirmPath
)

// Special renders the theme's template name (TemplateNotFound,
// TemplateError500, TemplateLogin, TemplateResetPassword, TemplateConfirm;
// "customers/login" is tried for the login page too) inside its layout,
// with `error` bound to message and, when details is set, the error's
// details. Without such a template, or when it fails itself, it renders a
// plain built-in page, so an error page never fails. The login page is in
// the locale of its return_to path. The reset and
// confirmation pages take their token from the link's fragment, in the
// browser: a theme's template posts it as `token` (bound to the posted
// token when the page is shown again after a failed post).
func (s *Service) Special(ctx context.Context, req *Request, name, message, details string) []byte {
	locale, _ := SplitLocale(req.Site, req.Path)
	if name == TemplateLogin && req.Query != nil {
		// The login page's path has no locale: it speaks the locale of the
		// page the visitor is sent back to (/nl/leden → Dutch).
		locale, _ = SplitLocale(req.Site, SafeReturn(req.Query.Get("return_to")))
	}
	names := []string{name}
	if name == TemplateLogin {
		names = append(names, "customers/login")
	}
	var out []byte
	// A store that fails here leaves the built-in page: an error page
	// never fails.
	_ = s.Store.View(ctx, func(tx store.Tx) error {
		th, _, err := s.theme(tx, req.Site, locale, req.Templates)
		if err != nil {
			return err
		}
		for _, n := range names {
			tpl, err := th.template(store.KindTemplates, n)
			if err != nil {
				continue
			}
			st := s.newState(ctx, tx, req, locale)
			b := st.bindings(req, nil, "")
			b["error"] = map[string]any{"message": message, "details": details}
			b["return_to"] = req.Query.Get("return_to")
			b["token"] = req.Token
			out, err = s.inLayout(th, st, tpl, "templates/"+n, b)
			st.close()
			if err != nil {
				out = nil
			}
			break
		}
		return nil
	})
	if out != nil {
		return out
	}
	return builtinPage(req, name, message, details)
}

// Template renders the theme's template name inside its layout with the
// page-less bindings of req and vars on top: what a cloud-code route's
// response.render(name, vars) answers. ENotFound when the theme has no
// such template; a *TemplateError when it fails.
func (s *Service) Template(ctx context.Context, req *Request, name string, vars map[string]any) (out []byte, err error) {
	locale, _ := SplitLocale(req.Site, req.Path)
	err = s.Store.View(ctx, func(tx store.Tx) error {
		th, _, err := s.theme(tx, req.Site, locale, req.Templates)
		if err != nil {
			return err
		}
		tpl, err := th.template(store.KindTemplates, name)
		if err != nil {
			return err
		}
		st := s.newState(ctx, tx, req, locale)
		defer st.close()
		b := st.bindings(req, nil, "")
		for k, v := range vars {
			b[k] = v
		}
		out, err = s.inLayout(th, st, tpl, "templates/"+name, b)
		return err
	})
	return out, err
}

// builtinPage is the page shown when the theme has none of its own.
func builtinPage(req *Request, name, message, details string) []byte {
	var b strings.Builder
	title := message
	switch name {
	case TemplateLogin:
		title = "Log in"
	case TemplateResetPassword:
		title = "Choose a new password"
	case TemplateConfirm:
		title = "Confirm your email"
	}
	b.WriteString("<!doctype html>\n<html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">")
	b.WriteString("<title>" + html.EscapeString(title) + " · " + html.EscapeString(req.Site.Name) + "</title></head>\n<body><main>")
	b.WriteString("<h1>" + html.EscapeString(title) + "</h1>")
	if message != "" && message != title && name != TemplateNotFound && name != TemplateError500 {
		b.WriteString(`<p class="error">` + html.EscapeString(message) + "</p>")
	}
	switch name {
	case TemplateLogin:
		ret := req.Query.Get("return_to")
		b.WriteString(`<form class="customer-login" method="post" action="` + LoginPath + `">` +
			`<input type="hidden" name="return_to" value="` + html.EscapeString(ret) + `">` +
			`<p><label>Email <input type="email" name="username" autocomplete="username" required></label></p>` +
			`<p><label>Password <input type="password" name="password" autocomplete="current-password" required></label></p>` +
			`<p><button type="submit">Log in</button></p></form>`)
	case TemplateResetPassword:
		b.WriteString(`<form class="customer-reset-password" method="post" action="` + ResetPasswordPath + `">` +
			tokenField(req.Token) +
			`<p><label>New password <input type="password" name="password" autocomplete="new-password" required></label></p>` +
			`<p><label>New password again <input type="password" name="password_confirmation" autocomplete="new-password" required></label></p>` +
			`<p><button type="submit">Set the password</button></p></form>` + tokenScript)
	case TemplateConfirm:
		b.WriteString(`<form class="customer-confirm" method="post" action="` + ConfirmPath + `">` +
			tokenField(req.Token) +
			`<p><button type="submit">Confirm my email</button></p></form>` + tokenScript)
	}
	if details != "" {
		b.WriteString("<pre>" + html.EscapeString(details) + "</pre>")
	}
	b.WriteString("</main></body></html>\n")
	return []byte(b.String())
}

// tokenField is the token input of the built-in reset and confirmation
// forms: visible, for a visitor who pastes the token from the mail, until
// tokenScript fills it from the link.
func tokenField(token string) string {
	return `<p id="token-field"><label>Token from the mail <input name="token" id="token" autocomplete="off" required value="` +
		html.EscapeString(token) + `"></label></p>`
}

// tokenScript moves the token from the link's fragment (#token=…, never
// sent to a server) into the form, hides the field, and takes the token
// out of the address bar and the history.
const tokenScript = `<script>(function(){var m=/(?:^#|&)token=([^&]*)/.exec(location.hash);if(!m)return;` +
	`document.getElementById("token").value=decodeURIComponent(m[1]);document.getElementById("token-field").hidden=true;` +
	`history.replaceState(null,"",location.pathname+location.search)})()</script>`

// Asset is a theme asset as served.
type Asset struct {
	Body        []byte
	ContentType string
	// Immutable reports that the URL named the asset's current
	// fingerprint, so the answer may be cached for good.
	Immutable bool
	ETag      string
}

// Asset returns the asset a path under AssetPrefix names: "<fingerprint>/<name>"
// (asset_url's and public_url's form) or "<name>", of the site's active
// theme. A fingerprinted path whose bytes the active theme does not hold
// under that name is looked for in the site's other themes: public_url
// names an asset of any theme by the hash of its bytes, so that theme
// tools can fetch the assets of a theme before it is made active, and a
// fetch never answers another theme's bytes for them. Failing that, the
// active theme's current bytes answer, as for a URL made before a change.
// ENotFound.
func (s *Service) Asset(ctx context.Context, site *store.Site, path string) (*Asset, error) {
	fp, name, _ := strings.Cut(path, "/")
	if !isFingerprint(fp) {
		fp, name = "", path
	}
	var f *store.ThemeFile
	err := s.Store.View(ctx, func(tx store.Tx) error {
		var err error = cms.ErrNotFound()
		if fp != "" {
			f, err = tx.Themes().GetFile(site.ID, site.Theme, store.KindAssets, name)
			if err == nil && fingerprint(f.Code) == fp || err != nil && !cms.IsCode(err, cms.ENotFound) {
				return err
			}
			if g, err := otherThemesAsset(tx, site, name, fp); g != nil || err != nil {
				f = g
				return err
			}
			if f != nil {
				return nil
			}
		}
		// A name whose first folder looks like a fingerprint, or a stale
		// fingerprint of an asset that is gone: the whole path is the name.
		fp, name = "", path
		f, err = tx.Themes().GetFile(site.ID, site.Theme, store.KindAssets, path)
		return err
	})
	if err != nil {
		return nil, err
	}
	cur := fingerprint(f.Code)
	return &Asset{Body: []byte(f.Code), ContentType: files.AssetType(name), Immutable: fp != "" && fp == cur, ETag: cur}, nil
}

// otherThemesAsset returns the asset called name whose bytes have
// fingerprint fp from a theme of site other than the active one, or nil.
func otherThemesAsset(tx store.Tx, site *store.Site, name, fp string) (*store.ThemeFile, error) {
	names, err := tx.Themes().ListThemes(site.ID)
	if err != nil {
		return nil, err
	}
	for _, theme := range names {
		if theme == site.Theme {
			continue
		}
		f, err := tx.Themes().GetFile(site.ID, theme, store.KindAssets, name)
		if cms.IsCode(err, cms.ENotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if fingerprint(f.Code) == fp {
			return f, nil
		}
	}
	return nil, nil
}

// isFingerprint reports whether s has the shape fingerprint gives.
func isFingerprint(s string) bool {
	if len(s) != fingerprintLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckTemplates checks the simulator's templates (kind/name -> code, as
// SimulatorTemplates returns them) before any parser sees them: a file
// that nests deeper than the depth bound, or holds a "{{" or "{%" that
// starts no token (themes.CheckDepth), is cms.EInvalidTemplate naming the
// file and line; one larger than a theme file may be is cms.ETooLarge.
func (s *Service) CheckTemplates(templates map[string]string) error {
	keys := make([]string, 0, len(templates))
	for k := range templates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		code := templates[k]
		err := themes.CheckDepth(k, code, s.limits().Depth)
		var pe *themes.ParseError
		if errors.As(err, &pe) {
			return cms.Errorf(cms.EInvalidTemplate, "%s:%d: %s", k, pe.Line, pe.Message).
				WithData(map[string]any{"file": k, "line": pe.Line, "problem": pe.Message})
		} else if err != nil {
			return err
		}
		if len(code) > themes.MaxLiquidBytes {
			return cms.Errorf(cms.ETooLarge, "%s is larger than %d KiB; split it into snippets.", k, themes.MaxLiquidBytes>>10)
		}
	}
	return nil
}

// SimulatorTemplates decodes the simulator's `code`: base64 of zlib-
// compressed JSON {"layouts": {name: code}, "templates": {…}, "snippets":
// {…}}, into kind/name -> code. Errors: EInvalid naming the problem.
func SimulatorTemplates(code string) (map[string]string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(code))
	if err != nil {
		return nil, cms.Errorf(cms.EInvalid, "simulator.code is not base64.")
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, cms.Errorf(cms.EInvalid, "simulator.code is not zlib-compressed.")
	}
	defer zr.Close()
	const maxSimulatorBytes = 16 << 20
	body, err := io.ReadAll(io.LimitReader(zr, maxSimulatorBytes+1))
	if err != nil {
		return nil, cms.Errorf(cms.EInvalid, "simulator.code is not zlib-compressed.")
	}
	if len(body) > maxSimulatorBytes {
		return nil, cms.Errorf(cms.ETooLarge, "simulator.code holds more than 16 MiB of templates.")
	}
	var kinds map[string]map[string]string
	if err := json.Unmarshal(body, &kinds); err != nil {
		return nil, cms.Errorf(cms.EInvalid, "simulator.code must hold a JSON object {\"layouts\", \"templates\", \"snippets\"} of name -> code.")
	}
	out := map[string]string{}
	for kind, list := range kinds {
		switch kind {
		case store.KindLayouts, store.KindTemplates, store.KindSnippets:
		default:
			return nil, cms.Errorf(cms.EInvalid, "simulator.code: unknown kind %q (layouts, templates or snippets).", kind)
		}
		for name, code := range list {
			out[fileKey(kind, strings.TrimSuffix(name, ".liquid"))] = code
		}
	}
	return out, nil
}
