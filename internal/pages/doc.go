// Package pages is the page engine: the stored page document, its items and
// canvases, the read views (full, compact, fields, content_locale,
// translations), the schema and item-subtree responses, the batch path
// grammar, PUT merge (Apply) and theme re-sync (Sync).
//
// The engine is pure: it performs no I/O. Look-ups it needs (templates,
// parents, channels, reference targets) come through small interfaces the
// service implements on top of its transaction. The service orchestrates
// lock -> load -> Apply -> recompute fullpaths -> save, and may cache
// rendered views: RenderPage is deterministic for a given page and View.
//
// Decisions where the spec is silent:
//
//   - Translated values fall back to the default locale wherever they are
//     read (top level under content_locale, translations entries, item
//     content). Writing the value a locale already reads is a no-op, so an
//     unset locale stays unset when a read document is written back.
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
//   - Stored files are read at the view's BaseURL + "/files/" + key, not at
//     the URL stored when they were written.
//   - fixed_locale must look like a locale code ("en", "pt-BR"); filter,
//     channel, template and fixed_locale store "" for null.
package pages

import (
	"slices"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
)

// Security mechanisms a page can have.
const (
	SecurityNone      = "none"
	SecurityHumans    = "humans"
	SecurityCustomers = "customers"
)

// Page is one stored page: the document the store persists as one JSON blob.
// The store also copies id, site_id, parent_id, position, published,
// template, homepage, created_at and updated_at into indexed columns; the
// blob stays the authority for every field.
//
// Translated fields are Text values keyed by locale code. Fullpaths are
// computed and stored by the service, per locale, without a leading slash
// ("about/team").
type Page struct {
	ID        string    `json:"id"`
	SiteID    string    `json:"site_id"`
	ParentID  string    `json:"parent_id,omitempty"`
	Position  int       `json:"position"`
	Published bool      `json:"published"`
	Homepage  bool      `json:"homepage,omitempty"`
	Template  string    `json:"template,omitempty"` // template name; "" for none
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`

	Title          Text `json:"title,omitempty"`
	Slug           Text `json:"slug,omitempty"`
	Fullpath       Text `json:"fullpath,omitempty"`
	SEOTitle       Text `json:"seo_title,omitempty"`
	SEODescription Text `json:"seo_description,omitempty"`
	SEOKeywords    Text `json:"seo_keywords,omitempty"`

	Channel           string `json:"channel,omitempty"` // channel slug; "" for none
	Filter            string `json:"filter,omitempty"`
	SecurityMechanism string `json:"security_mechanism,omitempty"` // "" reads as none
	// Roles, when set, are the customer roles one of which a visitor
	// needs to see the page (a logged-in customer, whatever the
	// security_mechanism).
	Roles       []string `json:"roles,omitempty"`
	Locales     []string `json:"locales,omitempty"`
	FixedLocale string   `json:"fixed_locale,omitempty"`
	// CachingStrategy is writable but never serialized in reads.
	CachingStrategy string      `json:"caching_strategy,omitempty"`
	OGImage         *files.File `json:"og_image,omitempty"`

	// TemplateSyncedAt is the template's updated_at when the page's items
	// were last synced against it (see Sync).
	TemplateSyncedAt time.Time `json:"template_synced_at,omitzero"`

	// Items are the top-level items, enabled ones in template order, then
	// disabled ones. Slugs are unique.
	Items []*Item `json:"items,omitempty"`
}

// NewPage returns a new, empty page with the defaults the API documents:
// published, security mechanism none, created and updated at now.
func NewPage(id, siteID string, now time.Time) *Page {
	return &Page{
		ID:                id,
		SiteID:            siteID,
		Published:         true,
		SecurityMechanism: SecurityNone,
		CreatedAt:         now,
		UpdatedAt:         now,
	}
}

// ETag is the page's entity tag (cms.ETag of its id and updated_at).
func (p *Page) ETag() string { return cms.ETag(p.ID, p.UpdatedAt) }

// Text is a translated string keyed by locale code. A locale without an
// entry is unset and reads as the default locale's value; an entry holding
// "" is set to blank.
type Text map[string]string

// Get returns the value for locale, falling back to the value of def when
// locale is unset.
func (t Text) Get(locale, def string) string {
	if v, ok := t[locale]; ok {
		return v
	}
	return t[def]
}

// set writes v for locale and reports whether the stored text changed. A
// write of the value the locale already reads (possibly through the default
// locale's fallback) changes nothing, so unset locales stay unset when a read
// document is written back.
func (t *Text) set(locale, def, v string) bool {
	if t.Get(locale, def) == v {
		return false
	}
	if *t == nil {
		*t = Text{}
	}
	(*t)[locale] = v
	return true
}

// Item is one editable of a page or of a repeatable.
type Item struct {
	// ID identifies the item internally (schema current_structure); item
	// JSON does not show it.
	ID       string `json:"id"`
	Slug     string `json:"slug"`
	Type     string `json:"type"` // one of the themes.Type constants
	Disabled bool   `json:"disabled,omitempty"`

	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`

	// Content holds field, text, select and switch content per locale.
	Content Text `json:"content,omitempty"`
	// Files holds a file item's file per locale; a nil entry is a file
	// cleared in that locale (it does not fall back to the default locale).
	Files map[string]*files.File `json:"files,omitempty"`

	// RefType is the reference target resource ("pages",
	// "channels.articles"), RefIDs the referenced ids, Many whether the
	// item holds many references. References are not translated.
	RefType string   `json:"ref_type,omitempty"`
	RefIDs  []string `json:"ref_ids,omitempty"`
	Many    bool     `json:"many,omitempty"`

	// Repeatables are a canvas's blocks, kept sorted by Position.
	Repeatables []*Repeatable `json:"repeatables,omitempty"`
}

// File returns the item's file in locale, falling back to the default
// locale's when locale has no entry.
func (it *Item) File(locale, def string) *files.File {
	if f, ok := it.Files[locale]; ok {
		return f
	}
	return it.Files[def]
}

// Repeatable is one block of a canvas.
type Repeatable struct {
	ID        string    `json:"id"`
	Slug      string    `json:"slug"` // the block kind
	Position  int       `json:"position"`
	Disabled  bool      `json:"disabled,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Items     []*Item   `json:"items,omitempty"`
}

// Item returns the page's top-level item with the given slug, enabled or
// not, or nil.
func (p *Page) Item(slug string) *Item { return findItem(p.Items, slug) }

// Item returns the repeatable's item with the given slug, enabled or not, or nil.
func (r *Repeatable) Item(slug string) *Item { return findItem(r.Items, slug) }

// Repeatable returns the canvas's repeatable with the given id, enabled or
// not, or nil.
func (it *Item) Repeatable(id string) *Repeatable {
	for _, r := range it.Repeatables {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// fileByKey returns a stored file of the page with the blob key key: its
// og_image or a file item's, in any locale, at any depth, enabled or not;
// nil when it holds none.
func (p *Page) fileByKey(key string) *files.File {
	if p == nil {
		return nil
	}
	if f := p.OGImage; f != nil && f.Key == key {
		return f
	}
	var walk func(items []*Item) *files.File
	walk = func(items []*Item) *files.File {
		for _, it := range items {
			for _, f := range it.Files {
				if f != nil && f.Key == key {
					return f
				}
			}
			for _, r := range it.Repeatables {
				if f := walk(r.Items); f != nil {
					return f
				}
			}
		}
		return nil
	}
	return walk(p.Items)
}

func findItem(items []*Item, slug string) *Item {
	for _, it := range items {
		if it.Slug == slug {
			return it
		}
	}
	return nil
}

// Clone returns a deep copy of p.
func (p *Page) Clone() *Page {
	c := *p
	c.Title = cloneText(p.Title)
	c.Slug = cloneText(p.Slug)
	c.Fullpath = cloneText(p.Fullpath)
	c.SEOTitle = cloneText(p.SEOTitle)
	c.SEODescription = cloneText(p.SEODescription)
	c.SEOKeywords = cloneText(p.SEOKeywords)
	c.Locales = slices.Clone(p.Locales)
	c.Roles = slices.Clone(p.Roles)
	c.OGImage = p.OGImage.Clone()
	c.Items = cloneItems(p.Items)
	return &c
}

func cloneText(t Text) Text {
	if t == nil {
		return nil
	}
	c := make(Text, len(t))
	for k, v := range t {
		c[k] = v
	}
	return c
}

func cloneItems(items []*Item) []*Item {
	if items == nil {
		return nil
	}
	c := make([]*Item, len(items))
	for i, it := range items {
		c[i] = it.clone()
	}
	return c
}

func (it *Item) clone() *Item {
	c := *it
	c.Content = cloneText(it.Content)
	if it.Files != nil {
		c.Files = make(map[string]*files.File, len(it.Files))
		for k, f := range it.Files {
			c.Files[k] = f.Clone()
		}
	}
	c.RefIDs = slices.Clone(it.RefIDs)
	if it.Repeatables != nil {
		c.Repeatables = make([]*Repeatable, len(it.Repeatables))
		for i, r := range it.Repeatables {
			rc := *r
			rc.Items = cloneItems(r.Items)
			c.Repeatables[i] = &rc
		}
	}
	return &c
}

// sortRepeatables orders a canvas's blocks by position, keeping the
// previous order among equal positions.
func sortRepeatables(rs []*Repeatable) {
	slices.SortStableFunc(rs, func(a, b *Repeatable) int { return a.Position - b.Position })
}
