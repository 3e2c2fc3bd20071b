package pages

// Reference resolution: for reads (which remember what they showed, for
// the render cache) and for writes (slugs to ids), and the reference checks of writes.

import (
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
)

// refResolver resolves page and entry references for reads and remembers
// what it showed, so cached renders know when a target changed.
type refResolver struct {
	s    *Service
	tx   store.Tx
	site *store.Site
	// seen maps the ids of shown pages, and entryRefKey+id of shown
	// entries, to their updated_at (zero for a missing target).
	seen map[string]time.Time
}

// entryRefKey prefixes entry ids among a render's seen references, and
// channelRefKey the slugs of the channels they belong to.
const (
	entryRefKey   = "entry:"
	channelRefKey = "channel:"
)

func (s *Service) refResolver(tx store.Tx, site *store.Site) *refResolver {
	return &refResolver{s: s, tx: tx, site: site, seen: map[string]time.Time{}}
}

func (r *refResolver) ResolveRefs(refType string, ids []string, locale string) (map[string]cms.RefTarget, error) {
	out := map[string]cms.RefTarget{}
	if locale == "" {
		locale = r.site.DefaultLocale
	}
	if channel, ok := strings.CutPrefix(refType, "channels."); ok {
		if r.s.Entries == nil {
			return out, nil
		}
		found, stamps, err := r.s.Entries.RefTargets(r.tx, r.site, channel, ids, locale)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			r.seen[entryRefKey+id] = stamps[id]
		}
		// Titles come from the channel's definition (its title field), so
		// a change of the channel, or its absence, counts too.
		r.seen[channelRefKey+channel] = stamps[channelRefKey+channel]
		return found, nil
	}
	if refType != "pages" {
		return out, nil
	}
	for _, id := range ids {
		rec, err := r.tx.Pages().Get(r.site.ID, id)
		if cms.IsCode(err, cms.ENotFound) {
			r.seen[id] = time.Time{}
			continue
		} else if err != nil {
			return nil, err
		}
		p, err := decodePage(rec)
		if err != nil {
			return nil, err
		}
		r.seen[id] = rec.UpdatedAt
		out[id] = cms.RefTarget{Slug: p.Fullpath.Get(locale, r.site.DefaultLocale), Title: p.Title.Get(locale, r.site.DefaultLocale)}
	}
	return out, nil
}

// writeResolver resolves the names a write uses.
type writeResolver struct {
	s    *Service
	tx   store.Tx
	site *store.Site
}

func (r *writeResolver) Template(ref string) (*doc.TemplateInfo, error) {
	return r.s.templateInfo(r.tx, r.site, ref)
}

func (r *writeResolver) PageID(ref, locale string) (string, error) {
	id, err := r.s.resolveRef(r.tx, r.site, ref, locale)
	if cms.IsCode(err, cms.ENotFound) {
		return "", nil
	}
	return id, err
}

// ChannelSlug returns the slug of the site's channel whose slug, else id,
// is ref; "" when there is none.
func (r *writeResolver) ChannelSlug(ref string) (string, error) {
	c, err := findChannel(r.tx, r.site, ref)
	if c == nil {
		return "", err
	}
	return c.Slug, nil
}

// findChannel returns the site's channel whose slug, else id, is ref; nil
// when there is none.
func findChannel(tx store.Tx, site *store.Site, ref string) (*store.Channel, error) {
	c, err := tx.Channels().GetBySlug(site.ID, ref)
	if cms.IsCode(err, cms.ENotFound) && cms.IsID(ref) {
		c, err = tx.Channels().Get(site.ID, ref)
	}
	if cms.IsCode(err, cms.ENotFound) {
		return nil, nil
	}
	return c, err
}

func (r *writeResolver) ReferenceID(refType, slug, locale string) (string, error) {
	if channel, ok := strings.CutPrefix(refType, "channels."); ok {
		c, err := findChannel(r.tx, r.site, channel)
		if c == nil {
			return "", err
		}
		recs, _, err := r.tx.Entries().List(r.site.ID, c.ID,
			store.EntryQuery{Where: []store.EntryCond{{Field: store.EntrySlug, Value: slug}}}, store.ListOptions{Limit: 1})
		if err != nil || len(recs) == 0 {
			return "", err
		}
		return recs[0].ID, nil
	}
	if refType != "pages" {
		return "", nil
	}
	return r.PageID(strings.TrimPrefix(slug, "/"), locale)
}

// refChecker checks that batch reference targets exist.
type refChecker struct {
	tx   store.Tx
	site *store.Site
}

// Exists implements ReferenceChecker for pages and channel entries
// ("channels.<slug>": entries of that channel).
func (r *refChecker) Exists(refType string, ids []string) ([]string, error) {
	if channel, ok := strings.CutPrefix(refType, "channels."); ok {
		c, err := findChannel(r.tx, r.site, channel)
		if c == nil {
			return ids, err
		}
		var missing []string
		for _, id := range ids {
			rec, err := r.tx.Entries().Get(r.site.ID, id)
			if cms.IsCode(err, cms.ENotFound) || err == nil && rec.ChannelID != c.ID {
				missing = append(missing, id)
			} else if err != nil {
				return nil, err
			}
		}
		return missing, nil
	}
	if refType != "pages" {
		return ids, nil
	}
	var missing []string
	for _, id := range ids {
		if _, err := r.tx.Pages().Stamp(r.site.ID, id); cms.IsCode(err, cms.ENotFound) {
			missing = append(missing, id)
		} else if err != nil {
			return nil, err
		}
	}
	return missing, nil
}
