// Package edit changes a page document: PUT merge (Apply), the batch
// operations (ApplyBatch: set, insert, delete, move) and the re-sync of a
// page's items against its template (Sync). Each works on a copy of a
// doc.Page and returns it; none performs I/O. The look-ups a write needs
// (templates, parents, channels, reference targets, file storage) come
// through small interfaces (lookups.go) that the service implements on top
// of its transaction.
//
// Decisions where the spec is silent (the batch's are in batch.go):
//
//   - Writing the value a locale already reads (possibly through the
//     default locale's fallback) is a no-op, so an unset locale stays unset
//     when a read document is written back.
//   - PUT: unknown top-level keys are ignored; template wins over
//     template_id (likewise parent, channel); on a merge a repeatable id
//     that the canvas lacks is a 422 (with _destroy it is skipped), while a
//     create or a replace keeps it for a new block when it is unique in the
//     page; a new repeatable without slug is missing_slug; positions below
//     1 are invalid_position; reference ids are stored unchecked, but one
//     that names nothing yields to the slug sent beside it; a reference slug
//     that resolves to nothing is reference_not_found (there is no id to
//     store); a file item's URL (its content, a translation's) names a file
//     stored on this server or is invalid_file_format; null clears a field,
//     file or reference and leaves a canvas untouched; item translations
//     for locales the site does not enable are a 422.
//   - fixed_locale must look like a locale code ("en", "pt-BR"); filter,
//     channel, template and fixed_locale store "" for null.
package edit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// DecodeBody decodes a PUT/POST body for Apply. Numbers stay json.Number.
// A body that is not one JSON object gives a 422 invalid_request.
func DecodeBody(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	// Malformed JSON is 400 invalid_json, as on every other route; valid
	// JSON that is not an object is the 422 of a body of the wrong shape.
	if err := dec.Decode(&v); err != nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body is not valid JSON: data after the object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, err422(cms.EInvalid, "The body must be a JSON object")
	}
	return m, nil
}

// Apply merges a decoded partial page document (PUT/PATCH/POST semantics) onto
// a copy of p and returns the copy; p itself is never modified.
//
// Only keys present are touched. Read-only keys (id, url, public_url,
// fullpath, parent_path, depth, created_at, updated_at) and unknown keys are
// ignored, security_password and security_access_groups are dropped, so a
// GET document written back changes nothing but updated_at. Writes of a value
// a locale already reads (possibly through the default-locale fallback) are
// no-ops; item and repeatable updated_at move only when their content does.
// Page updated_at always moves (cms.NextUpdatedAt).
//
// Errors are *cms.Errors with HTTP status 422: validation_failed (wrong
// types, naming the key), invalid_request (body shape), invalid_template,
// editable_not_in_theme, repeatable_not_in_theme, missing_slug,
// invalid_position, invalid_reference_id, reference_not_found (a reference
// slug that names nothing: reference ids are stored unchecked, as the spec
// says of PUT), invalid_file_format; the message-only content_locale error;
// or an error of the Resolver, wrapped.
func Apply(p *doc.Page, body map[string]any, opt ApplyOptions) (*Result, error) {
	a := &applier{opt: opt, def: opt.DefaultLocale, locale: opt.Locale, now: opt.Now}
	if a.def == "" && len(opt.Locales) > 0 {
		a.def = opt.Locales[0]
	}
	if err := cms.CheckContentLocale(opt.Locale, opt.Locales); err != nil {
		return nil, err
	}
	if a.locale == "" {
		a.locale = a.def
	}
	np := p.Clone()
	a.orig, a.page = p, np
	a.res = &Result{Page: np, Template: opt.Template}
	if err := a.apply(body); err != nil {
		return nil, err
	}
	if opt.New {
		np.CreatedAt, np.UpdatedAt = opt.Now, opt.Now
	} else {
		np.UpdatedAt = cms.NextUpdatedAt(p.UpdatedAt, opt.Now)
	}
	return a.res, nil
}

// translatedKeys are the translated page keys, in the order writes apply them.
var translatedKeys = [...]string{"title", "slug", "seo_title", "seo_description", "seo_keywords"}

func (a *applier) apply(body map[string]any) error {
	np := a.page
	if err := a.applyTemplate(body); err != nil {
		return err
	}
	if err := a.applyParent(body); err != nil {
		return err
	}
	if err := a.applyChannel(body); err != nil {
		return err
	}
	for _, k := range [...]string{"published", "homepage"} {
		v, ok := body[k]
		if !ok {
			continue
		}
		b, ok := cms.Bool(v)
		if !ok {
			return errInvalid("%s must be a boolean", k)
		}
		if k == "published" {
			np.Published = b
		} else if np.Homepage != b {
			np.Homepage = b
			a.res.HomepageChanged = true
		}
	}
	for _, k := range [...]string{"filter", "caching_strategy", "fixed_locale", "security_mechanism"} {
		v, ok := body[k]
		if !ok {
			continue
		}
		s, ok := asString(v)
		if !ok {
			return errInvalid("%s must be a string or null", k)
		}
		switch k {
		case "filter":
			np.Filter = s
		case "caching_strategy":
			np.CachingStrategy = s
		case "fixed_locale":
			if s != "" && !validLocale(s) {
				return errInvalid("fixed_locale %q is not a locale code", s)
			}
			np.FixedLocale = s
		case "security_mechanism":
			switch s {
			case "":
				s = doc.SecurityNone
			case doc.SecurityNone, doc.SecurityHumans, doc.SecurityCustomers:
			default:
				return errInvalid("security_mechanism must be one of none, humans, customers")
			}
			if !(np.SecurityMechanism == "" && s == doc.SecurityNone) {
				np.SecurityMechanism = s
			}
		}
	}
	if v, ok := body["roles"]; ok {
		roles, err := ParseRoles(v)
		if err != nil {
			return err
		}
		if !slices.Equal(roles, np.Roles) {
			np.Roles = roles
		}
	}
	if v, ok := body["locales"]; ok {
		list, ok := asStrings(v)
		if !ok {
			return errInvalid("locales must be an array of strings")
		}
		if !slices.Equal(list, np.Locales) {
			np.Locales = list
		}
	}
	if v, ok := body["position"]; ok {
		n, ok := asInt(v)
		if !ok {
			return errInvalid("position must be an integer")
		}
		np.Position = n
	}
	if v, ok := body["og_image"]; ok {
		f, _, err := a.fileForm(np.OGImage, v, "og_image")
		if err != nil {
			return err
		}
		np.OGImage = f
	}
	// The nested translations hash first, so top-level keys (the served
	// locale's values in a read document) win over a stale copy of them.
	if v, ok := body["translations"]; ok && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return errInvalid("translations must be an object of locales")
		}
		for _, l := range sortedKeys(m) {
			if !slices.Contains(a.opt.Locales, l) && l != a.def {
				return errInvalid("translations: locale %q is not enabled for this site", l)
			}
			entry, ok := m[l].(map[string]any)
			if !ok {
				if m[l] == nil {
					continue
				}
				return errInvalid("translations.%s must be an object", l)
			}
			if err := a.applyTranslated(entry, l, "translations."+l+"."); err != nil {
				return err
			}
		}
	}
	if err := a.applyTranslated(body, a.locale, ""); err != nil {
		return err
	}
	if v, ok := body["items"]; ok {
		items, _, err := a.applyItems(np.Items, a.editables(), v, "", "", "items")
		if err != nil {
			return err
		}
		np.Items = items
	}
	if a.opt.New {
		title := np.Title[a.def]
		if strings.TrimSpace(title) == "" {
			return errInvalid("title can't be blank")
		}
		if np.Slug[a.def] == "" {
			s := cms.Slugify(title)
			if s == "" {
				return errInvalid("slug can't be blank")
			}
			np.Slug.Set(a.def, a.def, s)
			a.slugChanged(a.def)
		}
	}
	return nil
}

func (a *applier) editables() []*themes.Editable {
	return a.res.Template.Editables()
}

// aliased returns the value of key or of its write-only alias.
func aliased(body map[string]any, key, alias string) (any, bool) {
	if v, ok := body[key]; ok {
		return v, true
	}
	v, ok := body[alias]
	return v, ok
}

func (a *applier) applyTemplate(body map[string]any) error {
	np := a.page
	tpl := a.opt.Template
	changed := false
	if v, ok := aliased(body, "template", "template_id"); ok {
		ref, ok := asString(v)
		if !ok {
			return errInvalid("template must be a string or null")
		}
		switch {
		case ref == "":
			changed = np.Template != ""
			tpl = nil
		case ref == np.Template || tpl != nil && ref == tpl.ID:
		default:
			got, err := a.resolver().Template(ref)
			if err != nil {
				return fmt.Errorf("pages: resolve template %q: %w", ref, err)
			}
			if got == nil || got.Schema == nil {
				return err422(cms.EInvalidTemplate, "Template not found: %s", ref)
			}
			changed = got.Schema.Name != np.Template
			tpl = got
		}
	}
	a.res.Template = tpl
	a.res.TemplateChanged = changed
	if changed || a.opt.New || NeedsSync(np, tpl) {
		if tpl != nil || changed {
			Sync(np, tpl, a.now)
			a.res.Synced = true
		}
	}
	return nil
}

func (a *applier) applyParent(body map[string]any) error {
	v, ok := aliased(body, "parent", "parent_id")
	if !ok {
		return nil
	}
	ref, ok := asString(v)
	if !ok {
		return errInvalid("parent must be a string or null")
	}
	ref = strings.Trim(ref, "/")
	np := a.page
	if ref == np.ParentID {
		return nil
	}
	id := ""
	if ref != "" {
		var err error
		id, err = a.resolver().PageID(ref, a.locale)
		if err != nil {
			return fmt.Errorf("pages: resolve parent %q: %w", ref, err)
		}
		if id == "" {
			return errInvalid("parent not found: %s", ref)
		}
		if id == np.ID {
			return errInvalid("parent: a page cannot be its own parent")
		}
	}
	if id != np.ParentID {
		np.ParentID = id
		a.res.ParentChanged = true
	}
	return nil
}

func (a *applier) applyChannel(body map[string]any) error {
	v, ok := aliased(body, "channel", "channel_id")
	if !ok {
		return nil
	}
	ref, ok := asString(v)
	if !ok {
		return errInvalid("channel must be a string or null")
	}
	np := a.page
	if ref == np.Channel {
		return nil
	}
	slug := ""
	if ref != "" {
		var err error
		slug, err = a.resolver().ChannelSlug(ref)
		if err != nil {
			return fmt.Errorf("pages: resolve channel %q: %w", ref, err)
		}
		if slug == "" {
			return errInvalid("channel not found: %s", ref)
		}
	}
	if slug != np.Channel {
		np.Channel = slug
		a.res.ChannelChanged = true
	}
	return nil
}

// applyTranslated writes the translated page keys present in m in locale.
func (a *applier) applyTranslated(m map[string]any, locale, where string) error {
	np := a.page
	for _, k := range translatedKeys {
		v, ok := m[k]
		if !ok {
			continue
		}
		s, ok := asString(v)
		if !ok {
			return errInvalid("%s%s must be a string", where, k)
		}
		var t *doc.Text
		switch k {
		case "title":
			t = &np.Title
		case "slug":
			s = cms.Slugify(s)
			if s == "" {
				return errInvalid("%sslug can't be blank", where)
			}
			if np.Slug.Set(locale, a.def, s) {
				a.slugChanged(locale)
			}
			continue
		case "seo_title":
			t = &np.SEOTitle
		case "seo_description":
			t = &np.SEODescription
		case "seo_keywords":
			t = &np.SEOKeywords
		}
		t.Set(locale, a.def, s)
	}
	return nil
}

func (a *applier) slugChanged(locale string) {
	if !slices.Contains(a.res.SlugChanged, locale) {
		a.res.SlugChanged = append(a.res.SlugChanged, locale)
	}
}
