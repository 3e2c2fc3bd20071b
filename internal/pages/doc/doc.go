// Package doc is the page document: the Page the store keeps as one JSON
// blob, its items, canvases and repeatables, translated text, the item
// paths the batch and item-subtree routes address, the size limits of its
// values, and the templates items are synced against (TemplateInfo).
//
// It is pure: no store, lock or I/O. The packages that edit (edit), read
// (view) and keep the history of a page (history) work on its types; the
// service (package pages) loads, locks and saves them.
package doc

import (
	"encoding/json"
	"slices"
	"strings"
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
	// were last synced against it (see edit.Sync).
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

// Set writes v for locale and reports whether the stored text changed. A
// write of the value the locale already reads (possibly through the default
// locale's fallback) changes nothing, so unset locales stay unset when a read
// document is written back.
func (t *Text) Set(locale, def, v string) bool {
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
func (p *Page) Item(slug string) *Item { return FindItem(p.Items, slug) }

// Item returns the repeatable's item with the given slug, enabled or not, or nil.
func (r *Repeatable) Item(slug string) *Item { return FindItem(r.Items, slug) }

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

// FileByKey returns a stored file of the page with the blob key key: its
// og_image or a file item's, in any locale, at any depth, enabled or not;
// nil when it holds none.
func (p *Page) FileByKey(key string) *files.File {
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

// FindItem returns the item of items with the given slug, enabled or not, or nil.
func FindItem(items []*Item, slug string) *Item {
	for _, it := range items {
		if it.Slug == slug {
			return it
		}
	}
	return nil
}

// HasValue reports whether the item holds content, files, references or
// blocks.
func (it *Item) HasValue() bool {
	return len(it.Content) > 0 || len(it.Files) > 0 || len(it.RefIDs) > 0 || len(it.Repeatables) > 0
}

// Blocks returns a canvas item's enabled repeatables in position order.
func (it *Item) Blocks() []*Repeatable {
	out := make([]*Repeatable, 0, len(it.Repeatables))
	for _, r := range ByPosition(it.Repeatables) {
		if !r.Disabled {
			out = append(out, r)
		}
	}
	return out
}

// ByPosition returns rs in position order. Canvases keep their blocks
// sorted, so this is rs itself unless a stored document says otherwise.
func ByPosition(rs []*Repeatable) []*Repeatable {
	less := func(a, b *Repeatable) int { return a.Position - b.Position }
	if slices.IsSortedFunc(rs, less) {
		return rs
	}
	rs = slices.Clone(rs)
	slices.SortStableFunc(rs, less)
	return rs
}

// SortRepeatables orders a canvas's blocks by position, keeping the
// previous order among equal positions.
func SortRepeatables(rs []*Repeatable) {
	slices.SortStableFunc(rs, func(a, b *Repeatable) int { return a.Position - b.Position })
}

// ReadFullpath is a stored fullpath as reads show it: with one leading slash.
func ReadFullpath(fp string) string {
	if strings.HasPrefix(fp, "/") {
		return fp
	}
	return "/" + fp
}

// Decode decodes a stored page document (the JSON Encode writes).
func Decode(data []byte) (*Page, error) {
	var p Page
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Encode returns the stored form of p: the JSON the store keeps as the
// page's document, a draft's content and a version's snapshot.
func (p *Page) Encode() ([]byte, error) { return json.Marshal(p) }
