// Package menus keeps a site's navigation menus: named trees of items,
// each pointing at a URL, a page (followed when the page moves or is
// renamed) or an entry, with a title per locale. The public site renders
// them through the `menus` variable (package render), marking the trail
// of the page being shown.
package menus

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/store"
)

// Bounds of one menu.
const (
	MaxItems    = 1000
	MaxDepth    = 8
	maxText     = 4 << 10
	maxURL      = 2 << 10
	maxMenus    = 200 // read for one site's `menus` variable
	maxHandle   = 255
	targetBlank = "_blank"
)

// doc is a menu's stored document; its handle is the record's key.
type doc struct {
	Name  string  `json:"name"`
	Items []*Item `json:"items"`
}

// Item is one entry of a menu: its title in the default locale and in
// others (Titles), and where it leads: URL, or a page by id, or an entry
// by channel and entry id (then URL, when set, is a pattern in which
// :slug stands for the entry's slug).
type Item struct {
	ID       string            `json:"id"`
	Title    string            `json:"title"`
	Titles   map[string]string `json:"titles,omitempty"`
	URL      string            `json:"url,omitempty"`
	Page     string            `json:"page,omitempty"`
	Channel  string            `json:"channel,omitempty"`
	Entry    string            `json:"entry,omitempty"`
	Target   string            `json:"target,omitempty"`
	Children []*Item           `json:"children,omitempty"`
}

// Menu is a stored menu.
type Menu struct {
	rec *store.Record
	doc
}

func decode(r *store.Record) (*Menu, error) {
	m := &Menu{rec: r}
	if err := json.Unmarshal(r.Doc, &m.doc); err != nil {
		return nil, fmt.Errorf("menus: decode %s: %w", r.ID, err)
	}
	return m, nil
}

// Handle is the menu's handle (its slug).
func (m *Menu) Handle() string { return m.rec.Key }

// Title returns the item's title in locale, falling back to the default
// locale's.
func (it *Item) title(locale, def string) string {
	if locale != def {
		if t := it.Titles[locale]; t != "" {
			return t
		}
	}
	return it.Title
}

// walk calls fn for every item of the tree, parents before children.
func walk(items []*Item, fn func(*Item)) {
	for _, it := range items {
		fn(it)
		walk(it.Children, fn)
	}
}

// CheckHandle checks a menu handle: a slug of letters, digits, - and _.
func CheckHandle(h string) error {
	switch {
	case h == "":
		return cms.FieldError("handle", "is required (or a name to make it from).")
	case len(h) > maxHandle:
		return cms.FieldError("handle", fmt.Sprintf("is longer than %d bytes.", maxHandle))
	case records.Reserved(h):
		return cms.FieldError("handle", "cannot be \""+h+"\": GET /menus/"+h+" is another route.")
	case strings.IndexFunc(h, func(r rune) bool {
		return !(r == '-' || r == '_' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	}) >= 0:
		return cms.FieldError("handle", "may hold only letters, digits, - and _ (got "+fmt.Sprintf("%q", h)+").")
	}
	return nil
}

// checkText refuses control characters (but tabs) and overlong text.
func checkText(field, s string, max int) error {
	if len(s) > max {
		return cms.FieldError(field, fmt.Sprintf("is longer than %d bytes.", max))
	}
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) {
		return cms.FieldError(field, "cannot hold control characters.")
	}
	return nil
}

// checkURL accepts what a link may lead to: a path on the site, a fragment,
// or an absolute http(s), mailto or tel URL; never javascript: or the like.
func checkURL(field, u string) error {
	if err := checkText(field, u, maxURL); err != nil {
		return err
	}
	if strings.ContainsAny(u, " \\") && !strings.Contains(u, "://") {
		return cms.FieldError(field, "is not a URL: a path starts with / and holds no spaces or backslashes.")
	}
	lower := strings.ToLower(u)
	switch {
	case u == "", strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//"), strings.HasPrefix(u, "#"), strings.HasPrefix(u, "?"):
		return nil
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"), strings.HasPrefix(lower, "mailto:"), strings.HasPrefix(lower, "tel:"):
		if strings.ContainsAny(u, " \\") {
			return cms.FieldError(field, "holds a space or a backslash.")
		}
		return nil
	}
	return cms.FieldError(field, "must be a path (/about), a fragment (#top), or an http, https, mailto or tel URL.")
}

var linkTargets = []string{"", "_blank", "_self", "_parent", "_top"}

func checkTarget(field, t string) error {
	if !slices.Contains(linkTargets, t) {
		return cms.FieldError(field, "must be one of _blank, _self, _parent, _top (or empty).")
	}
	return nil
}
