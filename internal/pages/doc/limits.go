package doc

import (
	"fmt"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Size limits of page values, per locale: a page is read whole on every
// render and stored whole in every version, so no single value may make
// it unbounded. They are far above what a person types.
const (
	// MaxFieldBytes bounds title, slug, seo_title and seo_keywords.
	MaxFieldBytes = 4 << 10
	// MaxDescriptionBytes bounds seo_description.
	MaxDescriptionBytes = 16 << 10
	// MaxItemBytes bounds the content of one item (text, rich text,
	// anything stored as text).
	MaxItemBytes = 1 << 20
)

// CheckSizes refuses a page with a value over its limit: validation_failed
// naming the field (an item by its slug path).
func CheckSizes(p *Page) error {
	for _, f := range []struct {
		name string
		text Text
		max  int
	}{
		{"title", p.Title, MaxFieldBytes}, {"slug", p.Slug, MaxFieldBytes}, {"seo_title", p.SEOTitle, MaxFieldBytes},
		{"seo_keywords", p.SEOKeywords, MaxFieldBytes}, {"seo_description", p.SEODescription, MaxDescriptionBytes},
	} {
		if err := checkText(f.name, f.text, f.max); err != nil {
			return err
		}
	}
	return checkItemSizes("items", p.Items)
}

func checkItemSizes(where string, items []*Item) error {
	for _, it := range items {
		path := where + "." + it.Slug
		if err := checkText(path, it.Content, MaxItemBytes); err != nil {
			return err
		}
		for _, r := range it.Repeatables {
			if err := checkItemSizes(path+"."+r.Slug, r.Items); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkText(field string, t Text, max int) error {
	for locale, v := range t {
		if len(v) > max {
			return cms.FieldError(field, fmt.Sprintf("is longer than %d bytes (%d in %s)", max, len(v), locale))
		}
	}
	return nil
}
