// Package view writes the read views of a page document: the page as GET
// /pages/{id} shows it (full, compact, fields, content_locale,
// translations), the item subtree, the schema, a draft's content and a
// version's snapshot, and the version list. Output is deterministic (the
// same page and View give the same bytes), so the service may cache it.
// The only look-up, reference targets, comes through RefResolver.
//
// Decisions where the spec is silent:
//
//   - Translated values fall back to the default locale wherever they are
//     read (top level under content_locale, translations entries, item
//     content).
//   - url is "/pages/" + the default-locale fullpath (the id when the
//     fullpath is empty); public_url of a homepage is the locale root.
//   - Items are read in stored order: template order after a sync.
//   - A file item without a file reads content null and file null; files
//     are per locale like content. X-Service-Client-Version adds __type to
//     compact files too; compact still reduces them.
//   - Unresolved reference targets read as null slug and title; the many
//     form keeps its arrays aligned with reference_ids. reference_type is
//     the template's target ("pages", "channels.articles").
//   - Item subtree: position of an item (items have no stored position) is
//     its 1-based index among its enabled siblings.
//   - Schema: current_structure shows the stored enabled items; a field's
//     options are the option values; blank hint, icon and default are null
//     (so left out of fields).
//   - Stored files are read at the view's BaseURL + "/files/" + key, not at
//     the URL stored when they were written.
package view

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// RefResolver looks up reference targets for reads. The service implements
// it on top of its store; a view calls it once per reference type.
type RefResolver interface {
	// ResolveRefs returns, for each of ids that exists as a record of
	// refType (as in Editable.Reference: "pages", "channels.articles"), its
	// slug and title in locale. Missing ids are left out of the map.
	ResolveRefs(refType string, ids []string, locale string) (map[string]cms.RefTarget, error)
}

// View holds what a read needs besides the page itself. The zero value of an
// option is the spec's default.
type View struct {
	// DefaultLocale is the site's default locale; Locales are its enabled
	// locales, default first. translations appear when len(Locales) > 1.
	DefaultLocale string
	Locales       []string
	// Locale is the served locale (query content_locale); "" serves the
	// default locale. The caller checks it with CheckContentLocale.
	Locale string
	// Compact is query compact=1.
	Compact bool
	// Fields are the top-level keys of query fields=; empty means all. Only
	// RenderPage honours it.
	Fields []string
	// ClientVersion reports whether the request carried
	// X-Service-Client-Version: file objects then include __type File.
	ClientVersion bool
	// BaseURL is the site's public base URL without trailing slash
	// ("https://example.com"); public_url is BaseURL + locale prefix (none
	// for the default locale) + "/" + fullpath, and a stored file's URL is
	// BaseURL + "/files/" + its key.
	BaseURL string
	// ParentFullpath is the parent page's fullpath in the served locale
	// (leading slash optional); it is read as parent_path when the page has a
	// parent.
	ParentFullpath string
	// Depth is the page's tree depth as the service counts it.
	Depth int
	// Template is the schema of the page's template, used for
	// fallback_content; nil when the page has none.
	Template *themes.Template
	// Refs resolves reference targets; nil shows slugs and titles as null.
	Refs RefResolver
}

// Page document keys, in the order reads write them.
const (
	keyID = iota
	keyURL
	keyPublicURL
	keyFullpath
	keyParentPath
	keyParent
	keyDepth
	keyCreatedAt
	keyUpdatedAt
	keyPublished
	keyHomepage
	keyTemplate
	keyChannel
	keyFilter
	keySecurityMechanism
	keyRoles
	keyLocales
	keyFixedLocale
	keyPosition
	keyOGImage
	keySlug
	keyTitle
	keySEOTitle
	keySEODescription
	keySEOKeywords
	keyItems
	keyTranslations
	numKeys
)

var pageKeyNames = [numKeys]string{
	"id", "url", "public_url", "fullpath", "parent_path", "parent", "depth", "created_at", "updated_at",
	"published", "homepage", "template", "channel", "filter", "security_mechanism", "roles", "locales",
	"fixed_locale", "position", "og_image", "slug", "title", "seo_title", "seo_description",
	"seo_keywords", "items", "translations",
}

// ParseFields splits a fields= query value into keys; blanks are dropped.
func ParseFields(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func fieldMask(fields []string) uint32 {
	if len(fields) == 0 {
		return 1<<numKeys - 1
	}
	m := uint32(1<<keyID | 1<<keyURL)
	for _, f := range fields {
		for i, k := range pageKeyNames {
			if f == k {
				m |= 1 << i
			}
		}
	}
	return m
}

type renderer struct {
	w      jsonw.Writer
	v      *View
	locale string // served locale
	def    string // default locale
	multi  bool
	refs   map[string]cms.RefTarget
}

func newRenderer(dst []byte, v *View) *renderer {
	r := &renderer{v: v, def: v.DefaultLocale, locale: v.Locale, multi: len(v.Locales) > 1}
	if r.locale == "" {
		r.locale = r.def
	}
	r.w.Reset(dst)
	return r
}

// RenderPage appends the page document of p, as GET /pages/{id} returns it,
// to dst. Output is deterministic: the same page and view give the same bytes.
// The only error comes from v.Refs.
func RenderPage(dst []byte, p *doc.Page, v *View) ([]byte, error) {
	r := newRenderer(dst, v)
	mask := fieldMask(v.Fields)
	if mask&(1<<keyItems) != 0 {
		if err := r.resolveRefs(p.Items, nil); err != nil {
			return dst, err
		}
	}
	r.page(p, mask)
	return r.w.B, nil
}

func (r *renderer) page(p *doc.Page, mask uint32) {
	w := &r.w
	has := func(k int) bool {
		if mask&(1<<k) == 0 {
			return false
		}
		w.K(pageKeyNames[k])
		return true
	}
	def, loc := r.def, r.locale
	w.OpenObject()
	if has(keyID) {
		w.Str(p.ID)
	}
	if has(keyURL) {
		fp := strings.TrimPrefix(p.Fullpath.Get(def, def), "/")
		if fp == "" {
			fp = p.ID
		}
		w.Str("/pages/" + fp)
	}
	if has(keyPublicURL) {
		w.Str(r.publicURL(p, loc))
	}
	if has(keyFullpath) {
		w.Str(doc.ReadFullpath(p.Fullpath.Get(loc, def)))
	}
	if has(keyParentPath) {
		if p.ParentID == "" || r.v.ParentFullpath == "" {
			w.Null()
		} else {
			w.Str(doc.ReadFullpath(r.v.ParentFullpath))
		}
	}
	if has(keyParent) {
		w.StrOrNull(p.ParentID)
	}
	if has(keyDepth) {
		w.Int(int64(r.v.Depth))
	}
	if has(keyCreatedAt) {
		w.Time(p.CreatedAt)
	}
	if has(keyUpdatedAt) {
		w.Time(p.UpdatedAt)
	}
	if has(keyPublished) {
		w.Bool(p.Published)
	}
	if has(keyHomepage) {
		w.Bool(p.Homepage)
	}
	if has(keyTemplate) {
		w.StrOrNull(p.Template)
	}
	if has(keyChannel) {
		w.StrOrNull(p.Channel)
	}
	if has(keyFilter) {
		w.StrOrNull(p.Filter)
	}
	if has(keySecurityMechanism) {
		if p.SecurityMechanism == "" {
			w.Str(doc.SecurityNone)
		} else {
			w.Str(p.SecurityMechanism)
		}
	}
	// Only a page that requires roles says so: reads of others keep the
	// spec's keys.
	if len(p.Roles) > 0 && has(keyRoles) {
		w.Strings(p.Roles)
	}
	if has(keyLocales) {
		w.Strings(p.Locales)
	}
	if has(keyFixedLocale) {
		w.StrOrNull(p.FixedLocale)
	}
	if has(keyPosition) {
		w.Int(int64(p.Position))
	}
	if has(keyOGImage) {
		r.file(p.OGImage)
	}
	if has(keySlug) {
		w.Str(p.Slug.Get(loc, def))
	}
	if has(keyTitle) {
		w.Str(p.Title.Get(loc, def))
	}
	if has(keySEOTitle) {
		w.Str(p.SEOTitle.Get(loc, def))
	}
	if has(keySEODescription) {
		w.Str(p.SEODescription.Get(loc, def))
	}
	if has(keySEOKeywords) {
		w.Str(p.SEOKeywords.Get(loc, def))
	}
	if has(keyItems) {
		var eds []*themes.Editable
		if r.v.Template != nil {
			eds = r.v.Template.Editables
		}
		r.items(p.Items, eds)
	}
	if r.multi && mask&(1<<keyTranslations) != 0 {
		r.pageTranslations(p, true)
	}
	w.CloseObject()
}

// pageTranslations writes the "translations" key of a page document or
// snapshot: every enabled locale (but the served one in compact reads) with
// the page's translated fields; withPaths adds slug, fullpath and
// public_url, which snapshots leave out.
func (r *renderer) pageTranslations(p *doc.Page, withPaths bool) {
	w := &r.w
	def := r.def
	w.K("translations")
	w.OpenObject()
	for _, l := range r.v.Locales {
		if r.v.Compact && l == r.locale {
			continue
		}
		w.Key(l)
		w.OpenObject()
		w.K("title")
		w.Str(p.Title.Get(l, def))
		if withPaths {
			w.K("slug")
			w.Str(p.Slug.Get(l, def))
			w.K("fullpath")
			w.Str(doc.ReadFullpath(p.Fullpath.Get(l, def)))
			w.K("public_url")
			w.Str(r.publicURL(p, l))
		}
		w.K("seo_title")
		w.Str(p.SEOTitle.Get(l, def))
		w.K("seo_description")
		w.Str(p.SEODescription.Get(l, def))
		w.K("seo_keywords")
		w.Str(p.SEOKeywords.Get(l, def))
		w.CloseObject()
	}
	w.CloseObject()
}

func (r *renderer) publicURL(p *doc.Page, locale string) string {
	var b strings.Builder
	b.WriteString(r.v.BaseURL)
	if locale != r.def {
		b.WriteByte('/')
		b.WriteString(locale)
	}
	if p.Homepage {
		b.WriteByte('/')
	} else {
		b.WriteString(doc.ReadFullpath(p.Fullpath.Get(locale, r.def)))
	}
	return b.String()
}

func blockEditables(canvas *themes.Editable, block string) []*themes.Editable {
	if canvas == nil {
		return nil
	}
	if b := canvas.Block(block); b != nil {
		return b.Editables
	}
	return nil
}

// items writes an items map: enabled items keyed by slug.
func (r *renderer) items(items []*doc.Item, eds []*themes.Editable) {
	w := &r.w
	w.OpenObject()
	for _, it := range items {
		if it.Disabled {
			continue
		}
		w.Key(it.Slug)
		r.item(it, themes.FindEditable(eds, it.Slug), !r.v.Compact)
	}
	w.CloseObject()
}

// item writes one item; withSlug is false for compact entries of an items map.
func (r *renderer) item(it *doc.Item, ed *themes.Editable, withSlug bool) {
	w := &r.w
	w.OpenObject()
	if withSlug {
		w.K("slug")
		w.Str(it.Slug)
	}
	if !r.v.Compact {
		w.K("type")
		w.Str(it.Type)
		w.K("created_at")
		w.Time(it.CreatedAt)
		w.K("updated_at")
		w.Time(it.UpdatedAt)
	}
	fallback := ""
	if ed != nil {
		fallback = ed.Default
	}
	switch it.Type {
	case themes.TypeCanvas:
		w.K("content")
		w.Null()
		w.K("repeatables")
		w.OpenArray()
		for _, rep := range it.Repeatables {
			if rep.Disabled {
				continue
			}
			w.Elem()
			r.repeatable(rep, blockEditables(ed, rep.Slug))
		}
		w.CloseArray()
	case themes.TypeReference:
		r.reference(it)
	case themes.TypeFile:
		f := it.File(r.locale, r.def)
		w.K("content")
		if f == nil {
			w.Null()
			if fallback != "" {
				w.K("fallback_content")
				w.Str(fallback)
			}
		} else {
			w.Str(f.URLAt(r.v.BaseURL))
		}
		w.K("file")
		r.file(f)
		if r.multi {
			r.itemTranslations(it)
		}
	default:
		c := it.Content.Get(r.locale, r.def)
		w.K("content")
		w.Str(c)
		if c == "" && fallback != "" {
			w.K("fallback_content")
			w.Str(fallback)
		}
		if r.multi {
			r.itemTranslations(it)
		}
	}
	w.CloseObject()
}

func (r *renderer) itemTranslations(it *doc.Item) {
	w := &r.w
	w.K("translations")
	w.OpenObject()
	for _, l := range r.v.Locales {
		if r.v.Compact && l == r.locale {
			continue
		}
		w.Key(l)
		w.OpenObject()
		w.K("content")
		if it.Type == themes.TypeFile {
			if f := it.File(l, r.def); f != nil {
				w.Str(f.URLAt(r.v.BaseURL))
			} else {
				w.Null()
			}
		} else {
			w.Str(it.Content.Get(l, r.def))
		}
		w.CloseObject()
	}
	w.CloseObject()
}

func (r *renderer) repeatable(rep *doc.Repeatable, eds []*themes.Editable) {
	w := &r.w
	w.OpenObject()
	w.K("id")
	w.Str(rep.ID)
	w.K("slug")
	w.Str(rep.Slug)
	w.K("position")
	w.Int(int64(rep.Position))
	if !r.v.Compact {
		w.K("created_at")
		w.Time(rep.CreatedAt)
		w.K("updated_at")
		w.Time(rep.UpdatedAt)
	}
	w.K("items")
	r.items(rep.Items, eds)
	w.CloseObject()
}

// reference writes a reference's keys. Arrays of the many form stay aligned
// with reference_ids: an unresolved target shows null slug and title.
func (r *renderer) reference(it *doc.Item) {
	w := &r.w
	w.K("reference_type")
	w.StrOrNull(it.RefType)
	if it.Many {
		w.K("reference_ids")
		w.Strings(it.RefIDs)
		w.K("reference_slugs")
		w.OpenArray()
		for _, id := range it.RefIDs {
			w.Elem()
			r.refSlug(it.RefType, id)
		}
		w.CloseArray()
		w.K("reference_titles")
		w.OpenArray()
		for _, id := range it.RefIDs {
			w.Elem()
			r.refTitle(id)
		}
		w.CloseArray()
		return
	}
	if len(it.RefIDs) == 0 {
		w.K("reference_id")
		w.Null()
		w.K("reference_slug")
		w.Null()
		w.K("reference_title")
		w.Null()
		return
	}
	id := it.RefIDs[0]
	w.K("reference_id")
	w.Str(id)
	w.K("reference_slug")
	r.refSlug(it.RefType, id)
	w.K("reference_title")
	r.refTitle(id)
}

func (r *renderer) refSlug(refType, id string) {
	t, ok := r.refs[id]
	if !ok {
		r.w.Null()
		return
	}
	if refType == "pages" {
		r.w.Str(strings.TrimPrefix(t.Slug, "/"))
		return
	}
	r.w.Str(t.Slug)
}

func (r *renderer) refTitle(id string) {
	if t, ok := r.refs[id]; ok {
		r.w.Str(t.Title)
		return
	}
	r.w.Null()
}

// file writes a file object, or null.
func (r *renderer) file(f *files.File) {
	shape := files.ShapePage
	if r.v.Compact {
		shape = files.ShapePageCompact
	}
	url := ""
	if f != nil {
		url = f.URLAt(r.v.BaseURL)
	}
	files.WriteJSON(&r.w, f, url, shape, r.v.ClientVersion)
}

// resolveRefs collects the reference ids of the enabled items (and, when
// rep is set, of that repeatable) and resolves them, one call per type.
func (r *renderer) resolveRefs(items []*doc.Item, rep *doc.Repeatable) error {
	if r.v.Refs == nil {
		return nil
	}
	var byType map[string][]string
	var walk func(items []*doc.Item)
	walk = func(items []*doc.Item) {
		for _, it := range items {
			if it.Disabled {
				continue
			}
			switch it.Type {
			case themes.TypeReference:
				if len(it.RefIDs) == 0 {
					continue
				}
				if byType == nil {
					byType = map[string][]string{}
				}
				byType[it.RefType] = append(byType[it.RefType], it.RefIDs...)
			case themes.TypeCanvas:
				for _, rp := range it.Repeatables {
					if !rp.Disabled {
						walk(rp.Items)
					}
				}
			}
		}
	}
	walk(items)
	if rep != nil {
		walk(rep.Items)
	}
	if len(byType) == 0 {
		return nil
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	slices.Sort(types)
	r.refs = make(map[string]cms.RefTarget)
	for _, t := range types {
		ids := byType[t]
		slices.Sort(ids)
		ids = slices.Compact(ids)
		got, err := r.v.Refs.ResolveRefs(t, ids, r.locale)
		if err != nil {
			return fmt.Errorf("pages: resolve %s references: %w", t, err)
		}
		for id, target := range got {
			r.refs[id] = target
		}
	}
	return nil
}
