package pages

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/themes"
)

// RefTarget is what a reference read shows of its target: for pages, Slug is
// the target's fullpath (with or without the leading slash; reads drop it),
// for entries the entry slug; Title is the target's title.
type RefTarget struct {
	Slug  string
	Title string
}

// RefResolver looks up reference targets for reads. The service implements
// it on top of its store; a view calls it once per reference type.
type RefResolver interface {
	// ResolveRefs returns, for each of ids that exists as a record of
	// refType (as in Editable.Reference: "pages", "channels.articles"), its
	// slug and title in locale. Missing ids are left out of the map.
	ResolveRefs(refType string, ids []string, locale string) (map[string]RefTarget, error)
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
	// for the default locale) + "/" + fullpath.
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
	"published", "homepage", "template", "channel", "filter", "security_mechanism", "locales",
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
	w      jsonWriter
	v      *View
	locale string // served locale
	def    string // default locale
	multi  bool
	refs   map[string]RefTarget
}

func newRenderer(dst []byte, v *View) *renderer {
	r := &renderer{v: v, def: v.DefaultLocale, locale: v.Locale, multi: len(v.Locales) > 1}
	if r.locale == "" {
		r.locale = r.def
	}
	r.w.b = dst
	r.w.first = make([]bool, 0, 8)
	return r
}

// RenderPage appends the page document of p, as GET /pages/{id} returns it,
// to dst. Output is deterministic: the same page and view give the same bytes.
// The only error comes from v.Refs.
func RenderPage(dst []byte, p *Page, v *View) ([]byte, error) {
	r := newRenderer(dst, v)
	mask := fieldMask(v.Fields)
	if mask&(1<<keyItems) != 0 {
		if err := r.resolveRefs(p.Items, nil); err != nil {
			return dst, err
		}
	}
	r.page(p, mask)
	return r.w.b, nil
}

func (r *renderer) page(p *Page, mask uint32) {
	w := &r.w
	has := func(k int) bool {
		if mask&(1<<k) == 0 {
			return false
		}
		w.k(pageKeyNames[k])
		return true
	}
	def, loc := r.def, r.locale
	w.openObject()
	if has(keyID) {
		w.str(p.ID)
	}
	if has(keyURL) {
		fp := strings.TrimPrefix(p.Fullpath.Get(def, def), "/")
		if fp == "" {
			fp = p.ID
		}
		w.str("/pages/" + fp)
	}
	if has(keyPublicURL) {
		w.str(r.publicURL(p, loc))
	}
	if has(keyFullpath) {
		w.str(readFullpath(p.Fullpath.Get(loc, def)))
	}
	if has(keyParentPath) {
		if p.ParentID == "" || r.v.ParentFullpath == "" {
			w.null()
		} else {
			w.str(readFullpath(r.v.ParentFullpath))
		}
	}
	if has(keyParent) {
		w.strOrNull(p.ParentID)
	}
	if has(keyDepth) {
		w.int(int64(r.v.Depth))
	}
	if has(keyCreatedAt) {
		w.time(p.CreatedAt)
	}
	if has(keyUpdatedAt) {
		w.time(p.UpdatedAt)
	}
	if has(keyPublished) {
		w.bool(p.Published)
	}
	if has(keyHomepage) {
		w.bool(p.Homepage)
	}
	if has(keyTemplate) {
		w.strOrNull(p.Template)
	}
	if has(keyChannel) {
		w.strOrNull(p.Channel)
	}
	if has(keyFilter) {
		w.strOrNull(p.Filter)
	}
	if has(keySecurityMechanism) {
		if p.SecurityMechanism == "" {
			w.str(SecurityNone)
		} else {
			w.str(p.SecurityMechanism)
		}
	}
	if has(keyLocales) {
		w.strings(p.Locales)
	}
	if has(keyFixedLocale) {
		w.strOrNull(p.FixedLocale)
	}
	if has(keyPosition) {
		w.int(int64(p.Position))
	}
	if has(keyOGImage) {
		r.file(p.OGImage)
	}
	if has(keySlug) {
		w.str(p.Slug.Get(loc, def))
	}
	if has(keyTitle) {
		w.str(p.Title.Get(loc, def))
	}
	if has(keySEOTitle) {
		w.str(p.SEOTitle.Get(loc, def))
	}
	if has(keySEODescription) {
		w.str(p.SEODescription.Get(loc, def))
	}
	if has(keySEOKeywords) {
		w.str(p.SEOKeywords.Get(loc, def))
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
	w.closeObject()
}

// pageTranslations writes the "translations" key of a page document or
// snapshot: every enabled locale (but the served one in compact reads) with
// the page's translated fields; withPaths adds slug, fullpath and
// public_url, which snapshots leave out.
func (r *renderer) pageTranslations(p *Page, withPaths bool) {
	w := &r.w
	def := r.def
	w.k("translations")
	w.openObject()
	for _, l := range r.v.Locales {
		if r.v.Compact && l == r.locale {
			continue
		}
		w.key(l)
		w.openObject()
		w.k("title")
		w.str(p.Title.Get(l, def))
		if withPaths {
			w.k("slug")
			w.str(p.Slug.Get(l, def))
			w.k("fullpath")
			w.str(readFullpath(p.Fullpath.Get(l, def)))
			w.k("public_url")
			w.str(r.publicURL(p, l))
		}
		w.k("seo_title")
		w.str(p.SEOTitle.Get(l, def))
		w.k("seo_description")
		w.str(p.SEODescription.Get(l, def))
		w.k("seo_keywords")
		w.str(p.SEOKeywords.Get(l, def))
		w.closeObject()
	}
	w.closeObject()
}

// readFullpath is a stored fullpath as reads show it: with one leading slash.
func readFullpath(fp string) string {
	if strings.HasPrefix(fp, "/") {
		return fp
	}
	return "/" + fp
}

func (r *renderer) publicURL(p *Page, locale string) string {
	var b strings.Builder
	b.WriteString(r.v.BaseURL)
	if locale != r.def {
		b.WriteByte('/')
		b.WriteString(locale)
	}
	if p.Homepage {
		b.WriteByte('/')
	} else {
		b.WriteString(readFullpath(p.Fullpath.Get(locale, r.def)))
	}
	return b.String()
}

func findEd(eds []*themes.Editable, slug string) *themes.Editable {
	for _, e := range eds {
		if e.Slug == slug {
			return e
		}
	}
	return nil
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
func (r *renderer) items(items []*Item, eds []*themes.Editable) {
	w := &r.w
	w.openObject()
	for _, it := range items {
		if it.Disabled {
			continue
		}
		w.key(it.Slug)
		r.item(it, findEd(eds, it.Slug), !r.v.Compact)
	}
	w.closeObject()
}

// item writes one item; withSlug is false for compact entries of an items map.
func (r *renderer) item(it *Item, ed *themes.Editable, withSlug bool) {
	w := &r.w
	w.openObject()
	if withSlug {
		w.k("slug")
		w.str(it.Slug)
	}
	if !r.v.Compact {
		w.k("type")
		w.str(it.Type)
		w.k("created_at")
		w.time(it.CreatedAt)
		w.k("updated_at")
		w.time(it.UpdatedAt)
	}
	fallback := ""
	if ed != nil {
		fallback = ed.Default
	}
	switch it.Type {
	case themes.TypeCanvas:
		w.k("content")
		w.null()
		w.k("repeatables")
		w.openArray()
		for _, rep := range it.Repeatables {
			if rep.Disabled {
				continue
			}
			w.elem()
			r.repeatable(rep, blockEditables(ed, rep.Slug))
		}
		w.closeArray()
	case themes.TypeReference:
		r.reference(it)
	case themes.TypeFile:
		f := it.File(r.locale, r.def)
		w.k("content")
		if f == nil {
			w.null()
			if fallback != "" {
				w.k("fallback_content")
				w.str(fallback)
			}
		} else {
			w.str(f.URL)
		}
		w.k("file")
		r.file(f)
		if r.multi {
			r.itemTranslations(it)
		}
	default:
		c := it.Content.Get(r.locale, r.def)
		w.k("content")
		w.str(c)
		if c == "" && fallback != "" {
			w.k("fallback_content")
			w.str(fallback)
		}
		if r.multi {
			r.itemTranslations(it)
		}
	}
	w.closeObject()
}

func (r *renderer) itemTranslations(it *Item) {
	w := &r.w
	w.k("translations")
	w.openObject()
	for _, l := range r.v.Locales {
		if r.v.Compact && l == r.locale {
			continue
		}
		w.key(l)
		w.openObject()
		w.k("content")
		if it.Type == themes.TypeFile {
			if f := it.File(l, r.def); f != nil {
				w.str(f.URL)
			} else {
				w.null()
			}
		} else {
			w.str(it.Content.Get(l, r.def))
		}
		w.closeObject()
	}
	w.closeObject()
}

func (r *renderer) repeatable(rep *Repeatable, eds []*themes.Editable) {
	w := &r.w
	w.openObject()
	w.k("id")
	w.str(rep.ID)
	w.k("slug")
	w.str(rep.Slug)
	w.k("position")
	w.int(int64(rep.Position))
	if !r.v.Compact {
		w.k("created_at")
		w.time(rep.CreatedAt)
		w.k("updated_at")
		w.time(rep.UpdatedAt)
	}
	w.k("items")
	r.items(rep.Items, eds)
	w.closeObject()
}

// reference writes a reference's keys. Arrays of the many form stay aligned
// with reference_ids: an unresolved target shows null slug and title.
func (r *renderer) reference(it *Item) {
	w := &r.w
	w.k("reference_type")
	w.strOrNull(it.RefType)
	if it.Many {
		w.k("reference_ids")
		w.strings(it.RefIDs)
		w.k("reference_slugs")
		w.openArray()
		for _, id := range it.RefIDs {
			w.elem()
			r.refSlug(it.RefType, id)
		}
		w.closeArray()
		w.k("reference_titles")
		w.openArray()
		for _, id := range it.RefIDs {
			w.elem()
			r.refTitle(id)
		}
		w.closeArray()
		return
	}
	if len(it.RefIDs) == 0 {
		w.k("reference_id")
		w.null()
		w.k("reference_slug")
		w.null()
		w.k("reference_title")
		w.null()
		return
	}
	id := it.RefIDs[0]
	w.k("reference_id")
	w.str(id)
	w.k("reference_slug")
	r.refSlug(it.RefType, id)
	w.k("reference_title")
	r.refTitle(id)
}

func (r *renderer) refSlug(refType, id string) {
	t, ok := r.refs[id]
	if !ok {
		r.w.null()
		return
	}
	if refType == "pages" {
		r.w.str(strings.TrimPrefix(t.Slug, "/"))
		return
	}
	r.w.str(t.Slug)
}

func (r *renderer) refTitle(id string) {
	if t, ok := r.refs[id]; ok {
		r.w.str(t.Title)
		return
	}
	r.w.null()
}

// file writes a file object, or null.
func (r *renderer) file(f *File) {
	w := &r.w
	if f == nil {
		w.null()
		return
	}
	w.openObject()
	if r.v.ClientVersion {
		w.k("__type")
		w.str("File")
	}
	if r.v.Compact {
		w.k("url")
		w.str(f.URL)
		w.k("filename")
		w.str(f.Filename)
		if f.IsImage() {
			w.k("width")
			w.int(int64(f.Width))
			w.k("height")
			w.int(int64(f.Height))
		}
		w.closeObject()
		return
	}
	w.k("filename")
	w.str(f.Filename)
	w.k("url")
	w.str(f.URL)
	w.k("content_type")
	w.str(f.ContentType)
	w.k("version")
	w.int(int64(f.Version))
	w.k("checksum")
	w.str(f.Checksum)
	w.k("size")
	w.int(f.Size)
	if f.IsImage() {
		w.k("width")
		w.int(int64(f.Width))
		w.k("height")
		w.int(int64(f.Height))
	}
	if f.Private {
		w.k("private")
		w.bool(true)
		w.k("permanent_url")
		w.str(f.PermanentURL)
		w.k("permanent_relative_url")
		w.str(f.PermanentRelativeURL)
	}
	w.closeObject()
}

// resolveRefs collects the reference ids of the enabled items (and, when
// rep is set, of that repeatable) and resolves them, one call per type.
func (r *renderer) resolveRefs(items []*Item, rep *Repeatable) error {
	if r.v.Refs == nil {
		return nil
	}
	var byType map[string][]string
	var walk func(items []*Item)
	walk = func(items []*Item) {
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
	r.refs = make(map[string]RefTarget)
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

// ParseSubtreePath parses the {path} of GET items/{path}: the rest of the
// URL path after "/items/", still escaped (so that "%2B" stays a literal
// plus). Errors are the route's 404 with no code.
func ParseSubtreePath(rest string) (Path, error) {
	p, err := ParsePath("/items/" + rest)
	if err != nil {
		return Path{}, errSubtreeNotFound("Item not found: /items/" + rest)
	}
	return p, nil
}

// RenderItem appends the item-subtree response for path (GET
// items/{path}) to dst. A path that does not resolve to an enabled item or
// repeatable gives a 404 *cms.Error with no code whose message says "not
// found" or "not a canvas". Compact and content_locale apply; Fields does not.
func RenderItem(dst []byte, p *Page, path Path, v *View) ([]byte, error) {
	if path.Kind != PathItem && path.Kind != PathRepeatable {
		return dst, errSubtreeNotFound("Item not found: " + path.String())
	}
	t, eds, err := resolve(p, path, v.Template)
	if err != nil {
		return dst, errSubtreeNotFound(cms.ErrorMessage(err))
	}
	r := newRenderer(dst, v)
	if t.Item != nil {
		err = r.resolveRefs([]*Item{t.Item}, nil)
	} else {
		err = r.resolveRefs(nil, t.Repeatable)
	}
	if err != nil {
		return dst, err
	}
	w := &r.w
	w.openObject()
	w.k("type")
	if path.Kind == PathItem {
		w.str("item")
	} else {
		w.str("repeatable")
	}
	w.k("path")
	w.str(path.String())
	w.k("parent_path")
	if pp, ok := path.parent(); ok {
		w.str(pp.String())
	} else {
		w.null()
	}
	w.k("position")
	if t.Repeatable != nil {
		w.int(int64(t.Repeatable.Position))
	} else {
		siblings := p.Items
		if t.Parent != nil {
			siblings = t.Parent.Items
		}
		n := 0
		for _, it := range siblings {
			if it.Disabled {
				continue
			}
			n++
			if it == t.Item {
				break
			}
		}
		w.int(int64(n))
	}
	w.k("siblings_count")
	w.int(int64(siblingsCount(p, t)))
	w.k("data")
	if t.Repeatable != nil {
		r.repeatable(t.Repeatable, blockEditables(findEd(eds, t.Canvas.Slug), t.Repeatable.Slug))
	} else {
		r.item(t.Item, findEd(eds, t.Item.Slug), true)
	}
	w.closeObject()
	return r.w.b, nil
}

func siblingsCount(p *Page, t Target) int {
	n := 0
	if t.Repeatable != nil {
		for _, rp := range t.Canvas.Repeatables {
			if !rp.Disabled {
				n++
			}
		}
		return n
	}
	siblings := p.Items
	if t.Parent != nil {
		siblings = t.Parent.Items
	}
	for _, it := range siblings {
		if !it.Disabled {
			n++
		}
	}
	return n
}

// resolve is Resolve that also returns the template editables of the
// container holding the target (the page's, or the enclosing block's).
func resolve(p *Page, path Path, tpl *themes.Template) (Target, []*themes.Editable, error) {
	t, err := p.Resolve(path)
	if err != nil || tpl == nil {
		return t, nil, err
	}
	eds := tpl.Editables
	items := p.Items
	for _, br := range path.Blocks {
		canvas := findItem(items, br.Canvas)
		rep := canvas.Repeatable(br.ID)
		eds = blockEditables(findEd(eds, br.Canvas), rep.Slug)
		items = rep.Items
	}
	return t, eds, nil
}
