package pages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/themes"
)

// Resolver looks up what a write names by id, name or path. The service
// implements it on top of its transaction. Each method returns "" or nil for
// no match; an error aborts the write and is returned wrapped.
type Resolver interface {
	// Template returns the template of the site's active theme whose name
	// or id is ref, or nil.
	Template(ref string) (*TemplateInfo, error)
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
	Template *TemplateInfo
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
}

// Result is the outcome of a successful Apply.
type Result struct {
	// Page is the updated page; the page passed to Apply is untouched.
	Page *Page
	// Template is the template the page now uses (nil for none).
	Template *TemplateInfo
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
// invalid_position, invalid_reference_id, reference_not_found,
// invalid_file_format; the message-only content_locale error; or an error
// of the Resolver, wrapped.
func Apply(p *Page, body map[string]any, opt ApplyOptions) (*Result, error) {
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
	a.page = np
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
	page   *Page
	res    *Result
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
				s = SecurityNone
			case SecurityNone, SecurityHumans, SecurityCustomers:
			default:
				return errInvalid("security_mechanism must be one of none, humans, customers")
			}
			if !(np.SecurityMechanism == "" && s == SecurityNone) {
				np.SecurityMechanism = s
			}
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
			np.Slug.set(a.def, a.def, s)
			a.slugChanged(a.def)
		}
	}
	return nil
}

func (a *applier) editables() []*themes.Editable {
	if s := a.res.Template.schema(); s != nil {
		return s.Editables
	}
	return nil
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
		var t *Text
		switch k {
		case "title":
			t = &np.Title
		case "slug":
			s = cms.Slugify(s)
			if s == "" {
				return errInvalid("%sslug can't be blank", where)
			}
			if np.Slug.set(locale, a.def, s) {
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
		t.set(locale, a.def, s)
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

func (nopResolver) Template(string) (*TemplateInfo, error)             { return nil, nil }
func (nopResolver) PageID(string, string) (string, error)              { return "", nil }
func (nopResolver) ChannelSlug(string) (string, error)                 { return "", nil }
func (nopResolver) ReferenceID(string, string, string) (string, error) { return "", nil }

// applyItems merges an items object onto items, whose editables are eds.
// canvas and block name the enclosing repeatable for editable_not_in_theme.
func (a *applier) applyItems(items []*Item, eds []*themes.Editable, v any, canvas, block, where string) ([]*Item, bool, error) {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return items, false, nil
		}
		return nil, false, errInvalid("%s must be an object", where)
	}
	keys := sortedKeys(m)
	var unknown []string
	for _, k := range keys {
		if findEd(eds, k) == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return nil, false, errEditablesNotInTheme(unknown, canvas, block)
	}
	changed := false
	for _, k := range keys {
		ed := findEd(eds, k)
		it := findItem(items, k)
		if it == nil {
			it = newItem(ed, a.now)
			items = append(items, it)
			changed = true
		}
		if it.Disabled {
			it.Disabled = false
			changed = true
		}
		if syncItem(it, ed, a.now) {
			changed = true
		}
		c, err := a.applyItem(it, ed, m[k], where+"."+k)
		if err != nil {
			return nil, false, err
		}
		if c {
			it.UpdatedAt = a.now
			changed = true
		}
	}
	return items, changed, nil
}

// applyItem writes one item value and reports whether its content changed.
func (a *applier) applyItem(it *Item, ed *themes.Editable, v any, where string) (bool, error) {
	switch ed.Type {
	case themes.TypeCanvas:
		return a.applyCanvas(it, ed, v, where)
	case themes.TypeReference:
		return a.applyReference(it, ed, v, where)
	case themes.TypeFile:
		return a.applyFileItem(it, v, where)
	}
	return a.applyScalar(it, ed, v, where)
}

// scalarContent is the content a field, text, select or switch value writes.
func scalarContent(ed *themes.Editable, v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	case bool:
		if ed.Type == themes.TypeSwitch {
			if v {
				return "true", true
			}
			return "false", true
		}
	}
	return "", false
}

func (a *applier) applyScalar(it *Item, ed *themes.Editable, v any, where string) (bool, error) {
	m, isObj := v.(map[string]any)
	if !isObj {
		s, ok := scalarContent(ed, v)
		if !ok {
			return false, errInvalid("%s: content must be a string", where)
		}
		return it.Content.set(a.locale, a.def, s), nil
	}
	changed := false
	if tr, ok := m["translations"]; ok && tr != nil {
		err := a.eachTranslation(tr, where, func(l string, tv any) error {
			if em, ok := tv.(map[string]any); ok {
				cv, ok := em["content"]
				if !ok {
					return nil
				}
				tv = cv
			}
			s, ok := scalarContent(ed, tv)
			if !ok {
				return errInvalid("%s.translations.%s: content must be a string", where, l)
			}
			changed = it.Content.set(l, a.def, s) || changed
			return nil
		})
		if err != nil {
			return false, err
		}
	}
	if cv, ok := m["content"]; ok {
		s, ok := scalarContent(ed, cv)
		if !ok {
			return false, errInvalid("%s: content must be a string", where)
		}
		changed = it.Content.set(a.locale, a.def, s) || changed
	}
	return changed, nil
}

// eachTranslation calls fn for each locale of an item's translations object,
// in sorted order, after checking the locale is enabled.
func (a *applier) eachTranslation(v any, where string, fn func(locale string, v any) error) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errInvalid("%s.translations must be an object of locales", where)
	}
	for _, l := range sortedKeys(m) {
		if !slices.Contains(a.opt.Locales, l) && l != a.def {
			return errInvalid("%s.translations: locale %q is not enabled for this site", where, l)
		}
		if err := fn(l, m[l]); err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) applyFileItem(it *Item, v any, where string) (bool, error) {
	changed := false
	write := func(l string, v any, where string) error {
		f, c, err := a.fileForm(it.File(l, a.def), v, where)
		if err != nil || !c {
			return err
		}
		changed = true
		if f == nil && l == a.def {
			delete(it.Files, l)
			return nil
		}
		if it.Files == nil {
			it.Files = map[string]*files.File{}
		}
		it.Files[l] = f
		return nil
	}
	m, isObj := v.(map[string]any)
	if !isObj || isFileForm(m) {
		return changed, write(a.locale, v, where)
	}
	if tr, ok := m["translations"]; ok && tr != nil {
		err := a.eachTranslation(tr, where, func(l string, tv any) error {
			if em, ok := tv.(map[string]any); ok && !isFileForm(em) {
				cv, ok := em["content"]
				if !ok {
					return nil
				}
				tv = cv
			}
			return write(l, tv, where+".translations."+l)
		})
		if err != nil {
			return false, err
		}
	}
	// An item read shape carries the file object under "file" and its URL
	// as "content"; the file object wins.
	if fv, ok := m["file"]; ok {
		return changed, write(a.locale, fv, where+".file")
	}
	if cv, ok := m["content"]; ok {
		return changed, write(a.locale, cv, where)
	}
	return changed, nil
}

// isFileForm reports whether m is a file object or write form rather than
// an item object.
func isFileForm(m map[string]any) bool {
	for _, k := range [...]string{"__type", "url", "remove", "attachment", "source", "data", "filename"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// fileForm interprets a file write form against the current file cur and
// stores what it brings. It returns the new file and whether it changed.
func (a *applier) fileForm(cur *files.File, v any, where string) (*files.File, bool, error) {
	fv, act, err := files.ParseValue(v, cur, where)
	switch {
	case err != nil:
		return nil, false, err
	case act == files.Clear:
		return nil, cur != nil, nil
	case act == files.Keep:
		return cur, false, nil
	}
	if a.opt.Files == nil {
		return nil, false, files.ErrUnsupported(where)
	}
	f, err := a.opt.Files.Store(fv, false)
	if err != nil {
		return nil, false, err
	}
	return f, true, nil
}

func (a *applier) applyReference(it *Item, ed *themes.Editable, v any, where string) (bool, error) {
	ids, set, err := a.referenceIDs(ed, v, where)
	if err != nil || !set {
		return false, err
	}
	if !ed.Multiple && len(ids) > 1 {
		return false, errInvalid("%s: takes a single reference", where)
	}
	if len(ids) == 0 {
		ids = nil
	}
	if slices.Equal(ids, it.RefIDs) {
		return false, nil
	}
	it.RefIDs = ids
	return true, nil
}

// referenceIDs reads a reference write form. set is false when the value
// names no reference key (a read shape without ids changes nothing).
func (a *applier) referenceIDs(ed *themes.Editable, v any, where string) (ids []string, set bool, err error) {
	switch v := v.(type) {
	case nil:
		return nil, true, nil
	case string, []any:
		ids, err := refIDList(v, where)
		return ids, true, err
	case map[string]any:
		idKeys := [...]string{"reference_id", "reference_ids"}
		slugKeys := [...]string{"reference_slug", "reference_slugs"}
		if ed.Multiple {
			idKeys[0], idKeys[1] = idKeys[1], idKeys[0]
			slugKeys[0], slugKeys[1] = slugKeys[1], slugKeys[0]
		}
		for _, k := range idKeys {
			if rv, ok := v[k]; ok {
				ids, err := refIDList(rv, where+"."+k)
				return ids, true, err
			}
		}
		for _, k := range slugKeys {
			if rv, ok := v[k]; ok {
				ids, err := a.refSlugs(ed, rv, where+"."+k)
				return ids, true, err
			}
		}
		return nil, false, nil
	}
	return nil, false, errInvalid("%s: a reference is an id, an array of ids or a reference object", where)
}

func refIDList(v any, where string) ([]string, error) {
	ids, bad, why := parseIDList(v)
	switch why {
	case idListShape:
		return nil, errInvalid("%s must be an id or an array of ids", where)
	case idNotString, idInvalid:
		return nil, err422(EInvalidReferenceID, "%s: %v is not a valid id", where, bad)
	}
	return ids, nil
}

// Why a value is not a list of ids (parseIDList).
const (
	idListOK    = iota
	idListShape // neither an id, an array nor null
	idNotString // an element is not a string
	idInvalid   // an element is not a 24-hex id
)

// parseIDList reads a reference value that is null, one id or an array of
// ids, returning the ids lower-cased without duplicates, or why it is not
// such a value and the offending element. PUT and batch share it and word
// their errors differently.
func parseIDList(v any) (ids []string, bad any, why int) {
	var raw []any
	switch v := v.(type) {
	case nil:
		return nil, nil, idListOK
	case string:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, v, idListShape
	}
	ids = make([]string, 0, len(raw))
	for _, e := range raw {
		s, ok := e.(string)
		if !ok {
			return nil, e, idNotString
		}
		if !cms.IsID(s) {
			return nil, s, idInvalid
		}
		if s = strings.ToLower(s); !slices.Contains(ids, s) {
			ids = append(ids, s)
		}
	}
	return ids, nil, idListOK
}

func (a *applier) refSlugs(ed *themes.Editable, v any, where string) ([]string, error) {
	var raw []any
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, errInvalid("%s must be a slug or an array of slugs", where)
	}
	ids := make([]string, 0, len(raw))
	for _, e := range raw {
		s, ok := e.(string)
		if !ok {
			return nil, errInvalid("%s: %v is not a slug", where, e)
		}
		if ed.Reference == "pages" {
			s = strings.Trim(s, "/")
		}
		id, err := a.resolver().ReferenceID(ed.Reference, s, a.locale)
		if err != nil {
			return nil, fmt.Errorf("pages: resolve %s %q: %w", ed.Reference, s, err)
		}
		if id == "" {
			return nil, err422(EReferenceNotFound, "%s: no %s with slug %q", where, ed.Reference, s)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// applyCanvas applies the spec's canvas rules to a canvas value: an array
// of repeatables or {repeatables: [...]}.
func (a *applier) applyCanvas(it *Item, ed *themes.Editable, v any, where string) (bool, error) {
	var entries []any
	switch v := v.(type) {
	case nil:
		return false, nil
	case []any:
		entries = v
	case map[string]any:
		rv, ok := v["repeatables"]
		if !ok || rv == nil {
			return false, nil
		}
		if entries, ok = rv.([]any); !ok {
			return false, errInvalid("%s.repeatables must be an array", where)
		}
	default:
		return false, errInvalid("%s: a canvas takes an array of repeatables", where)
	}
	where += ".repeatables"

	// First pass: shapes, ids and block kinds, so that nothing is applied
	// when a block kind is unknown and every unknown kind is reported.
	type entry struct {
		m       map[string]any
		rep     *Repeatable // existing block, nil for a new one
		destroy bool
		where   string
	}
	list := make([]entry, 0, len(entries))
	var unknown []string
	for i, e := range entries {
		ew := fmt.Sprintf("%s[%d]", where, i)
		m, ok := e.(map[string]any)
		if !ok {
			return false, errInvalid("%s must be an object", ew)
		}
		en := entry{m: m, where: ew}
		if d, ok := m["_destroy"]; ok {
			en.destroy, _ = cms.Bool(d)
		}
		if idv, ok := m["id"]; ok && idv != nil {
			id, ok := idv.(string)
			if !ok || !cms.IsID(id) {
				return false, errInvalid("%s.id: %v is not a repeatable id", ew, idv)
			}
			en.rep = it.Repeatable(strings.ToLower(id))
			if en.rep == nil || en.rep.Disabled {
				if en.destroy {
					continue
				}
				return false, errInvalid("%s: repeatable %s not found in canvas %s", ew, id, it.Slug)
			}
		} else if en.destroy {
			continue
		}
		sv := m["slug"]
		if en.destroy || (sv == nil && en.rep != nil) {
			list = append(list, en)
			continue
		}
		slug, _ := sv.(string)
		if slug == "" {
			if en.rep == nil {
				return false, err422(EMissingSlug, "%s: a new repeatable needs a slug", ew)
			}
			return false, errInvalid("%s.slug must be a block slug", ew)
		}
		if (en.rep == nil || slug != en.rep.Slug) && ed.Block(slug) == nil && !slices.Contains(unknown, slug) {
			unknown = append(unknown, slug)
		}
		list = append(list, en)
	}
	if len(unknown) > 0 {
		return false, errRepeatablesNotInTheme(it.Slug, unknown)
	}

	changed := false
	listed := make(map[*Repeatable]bool, len(list))
	order := make([]*Repeatable, 0, len(list))
	maxPos := 0
	for _, r := range it.Repeatables {
		maxPos = max(maxPos, r.Position)
	}
	for _, en := range list {
		rep := en.rep
		if en.destroy {
			if i := slices.Index(it.Repeatables, rep); i >= 0 {
				it.Repeatables = slices.Delete(it.Repeatables, i, i+1)
				changed = true
			}
			continue
		}
		repChanged := false
		if rep == nil {
			slug := en.m["slug"].(string)
			rep = newRepeatable(ed.Block(slug), a.now)
			maxPos++
			rep.Position = maxPos
			it.Repeatables = append(it.Repeatables, rep)
			changed = true
		} else if slug, ok := en.m["slug"].(string); ok && slug != rep.Slug {
			rep.Slug = slug
			rep.Items, _ = syncItems(rep.Items, ed.Block(slug).Editables, a.now)
			repChanged = true
		}
		if pv, ok := en.m["position"]; ok && !a.opt.Replace && pv != nil {
			n, ok := asInt(pv)
			if !ok {
				return false, errInvalid("%s.position must be an integer", en.where)
			}
			if n < 1 {
				return false, err422(EInvalidPosition, "%s.position must be at least 1", en.where)
			}
			if n != rep.Position {
				rep.Position = n
				repChanged = true
			}
		}
		if iv, ok := en.m["items"]; ok {
			var eds []*themes.Editable
			if b := ed.Block(rep.Slug); b != nil {
				eds = b.Editables
			}
			items, c, err := a.applyItems(rep.Items, eds, iv, it.Slug, rep.Slug, en.where+".items")
			if err != nil {
				return false, err
			}
			rep.Items = items
			repChanged = repChanged || c
		}
		if repChanged {
			rep.UpdatedAt = a.now
			changed = true
		}
		listed[rep] = true
		order = append(order, rep)
	}
	if a.opt.Replace {
		kept := it.Repeatables[:0]
		for _, r := range it.Repeatables {
			if listed[r] {
				kept = append(kept, r)
			} else {
				changed = true
			}
		}
		clear(it.Repeatables[len(kept):])
		it.Repeatables = kept
		for i, r := range order {
			if r.Position != i+1 {
				r.Position = i + 1
				r.UpdatedAt = a.now
				changed = true
			}
		}
	}
	if changed {
		sortRepeatables(it.Repeatables)
	}
	if len(it.Repeatables) == 0 {
		it.Repeatables = nil
	}
	return changed, nil
}

// asString reads a string; null reads as "".
func asString(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	}
	return "", false
}

func asStrings(v any) ([]string, bool) {
	if v == nil {
		return nil, true
	}
	raw, ok := v.([]any)
	if !ok {
		return nil, false
	}
	if len(raw) == 0 {
		return nil, true
	}
	out := make([]string, len(raw))
	for i, e := range raw {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

func asInt(v any) (int, bool) {
	var f float64
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			if n < math.MinInt32 || n > math.MaxInt32 {
				return 0, false
			}
			return int(n), true
		}
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = v
	case int:
		return v, true
	default:
		return 0, false
	}
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// validLocale reports whether s looks like a locale code: two or three
// letters, then optional subtags of 2 to 8 letters or digits after '-' or
// '_' ("en", "pt-BR", "zh_Hant").
func validLocale(s string) bool {
	if len(s) > 35 {
		return false
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) == 0 || strings.Count(s, "-")+strings.Count(s, "_") != len(parts)-1 {
		return false
	}
	for i, p := range parts {
		if i == 0 && (len(p) < 2 || len(p) > 3) || len(p) < 2 || len(p) > 8 {
			return false
		}
		for _, c := range p {
			letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
			if !letter && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
