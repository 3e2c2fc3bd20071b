package edit

// The state of one PUT merge (Apply): its options, its result, and what
// every part of the merge reads.

import (
	"slices"
	"time"

	"github.com/tessera-cms/tessera/internal/pages/doc"
)

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

func (a *applier) resolver() Resolver {
	if a.opt.Resolver == nil {
		return nopResolver{}
	}
	return a.opt.Resolver
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
