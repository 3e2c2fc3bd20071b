package pages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// Resolver looks up what a write names by id, name or path. The service
// implements it on top of its transaction. Each method returns "" or nil for
// no match; an error aborts the write and is returned wrapped.
type Resolver interface {
	// Template returns the template of the site's active theme whose name
	// or id is ref, or nil.
	Template(ref string) (*doc.TemplateInfo, error)
	// PageID returns the id of the page whose id, or fullpath (no leading
	// slash) in locale, is ref.
	PageID(ref, locale string) (string, error)
	// ChannelSlug returns the slug of the channel whose slug or id is ref.
	ChannelSlug(ref string) (string, error)
	// ReferenceID returns the id of the record of refType (as in
	// Editable.Reference) whose slug in locale is slug; for pages the slug
	// is a fullpath without leading slash.
	ReferenceID(refType, slug, locale string) (string, error)
}

// ApplyOptions are the inputs of Apply besides the page and the body.
type ApplyOptions struct {
	// Template is the page's current template as the theme defines it now;
	// nil when the page has none or the theme lacks it.
	Template *doc.TemplateInfo
	// DefaultLocale and Locales are the site's default and enabled locales.
	DefaultLocale string
	Locales       []string
	// Locale is query content_locale; "" writes the default locale.
	Locale string
	// Replace is query replace=1.
	Replace bool
	// Now is the time of the write (one timestamp per transaction).
	Now time.Time
	// New reports whether the page is being created (POST /pages): the
	// page is synced, needs a title, and gets a slug from its title when
	// none is given.
	New bool
	// Resolver looks up templates, parents, channels and reference slugs by
	// name. Nil only resolves nothing: any such look-up is then a 422.
	Resolver Resolver
	// Files stores uploaded and copied files; nil refuses them.
	Files FileValues
	// Refs tells which reference ids name no record. PUT stores ids
	// unchecked (the spec); Refs is asked only when a reference value sends
	// slugs beside its ids (a read written back, or copied from another
	// site): an id that names nothing then yields to its slug. Nil keeps
	// the ids.
	Refs ReferenceChecker
}

// Result is the outcome of a successful Apply.
type Result struct {
	// Page is the updated page; the page passed to Apply is untouched.
	Page *doc.Page
	// Template is the template the page now uses (nil for none).
	Template *doc.TemplateInfo
	// TemplateChanged, ParentChanged, ChannelChanged and HomepageChanged
	// report which of those the write changed.
	TemplateChanged bool
	ParentChanged   bool
	ChannelChanged  bool
	HomepageChanged bool
	// SlugChanged lists the locales whose slug changed: the service
	// recomputes their fullpaths and cascades them to descendants (every
	// locale when ParentChanged or HomepageChanged).
	SlugChanged []string
	// Synced reports whether items were re-synced against the template.
	Synced bool
}

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

type applier struct {
	opt    ApplyOptions
	def    string
	locale string
	now    time.Time
	orig   *doc.Page // the page as it was before the write
	page   *doc.Page
	res    *Result
	// repIDs are the repeatable ids of the page and those new blocks of
	// this write claimed (claimRepeatableID), made on first use.
	repIDs map[string]bool
}

// translated page keys, in the order writes apply them.
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

func (a *applier) resolver() Resolver {
	if a.opt.Resolver == nil {
		return nopResolver{}
	}
	return a.opt.Resolver
}

type nopResolver struct{}

func (nopResolver) Template(string) (*doc.TemplateInfo, error)         { return nil, nil }
func (nopResolver) PageID(string, string) (string, error)              { return "", nil }
func (nopResolver) ChannelSlug(string) (string, error)                 { return "", nil }
func (nopResolver) ReferenceID(string, string, string) (string, error) { return "", nil }
