package render

// The render cache: rendered pages with the stamps of what they were
// rendered from, and the visits they answer.

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/store"
)

// renderDeps are what a render depends on (package changes): the site,
// its theme, its pages and the channels and entries templates read.
var renderDeps = changes.Of(changes.Site, changes.Theme, changes.Page, changes.Channel, changes.Entry, changes.Record)

// cached is a rendered page with what it was rendered from.
type cached struct {
	out        Output // as hits answer it (Cached set)
	siteAt     time.Time
	themeStamp store.Stamp
	deps       *deps
	// checked is when the render was last found current, and the mark of
	// package fresh then.
	checked atomic.Pointer[check]
}

type check struct {
	mark fresh.Mark
	at   time.Time
}

// visitKey names a visit by everything a template can read of it: the
// site, the host and the path as sent (request.host, request.path, the
// login form's return_to), the locale, the query (request.params) and who
// is visiting. Logged-in customers never share an entry with anyone else.
// Its fields are kept apart rather than joined into one string: an
// anonymous visit without a query then makes its key without allocating.
type visitKey struct {
	site, host, locale, path, query, viewer string
}

func keyOf(req *Request, locale string) visitKey {
	viewer := ""
	if c := req.Customer; c != nil {
		viewer = c.ID + "\x00" + c.Email + "\x00" + c.Name + "\x00" + strings.Join(c.Groups, ",") + "\x00" + strings.Join(c.Roles, ",")
	}
	return visitKey{site: req.Site.ID, host: strings.ToLower(req.Host), locale: locale, path: req.Path, query: req.Query.Encode(),
		viewer: viewer}
}

// holds reports whether everything c was rendered from is unchanged in
// tx, site (checked by the caller) aside.
func (c *cached) holds(tx store.Tx, site *store.Site) (bool, error) {
	if !c.siteAt.Equal(site.UpdatedAt) {
		return false, nil
	}
	st, err := tx.Themes().Stamp(site.ID, site.Theme)
	if err != nil || !sameStamp(st, c.themeStamp) {
		return false, err
	}
	if !stampsHold(c.deps.pages, func(id string) (time.Time, error) { return tx.Pages().Stamp(site.ID, id) }) ||
		!stampsHold(c.deps.entries, func(id string) (time.Time, error) { return tx.Entries().Stamp(site.ID, id) }) {
		return false, nil
	}
	for id, want := range c.deps.channels {
		st, err := tx.Entries().ChannelStamp(site.ID, id)
		if err != nil || !sameStamp(st, want) {
			return false, nil
		}
	}
	for id, want := range c.deps.channelDefs {
		ch, err := tx.Channels().Get(site.ID, id)
		if err != nil || !ch.UpdatedAt.Equal(want) {
			return false, nil
		}
	}
	if !recordsHold(tx, site.ID, c.deps) {
		return false, nil
	}
	if c.deps.channelSetRead {
		// A channel created, renamed, redefined or deleted changes what
		// `channels` holds, even for a slug the render found missing.
		sig, err := channelSet(tx, site.ID)
		if err != nil || sig != c.deps.channelSet {
			return false, err
		}
	}
	return true, nil
}

// hit answers with c: its output is shared by every hit, so callers of
// Page must not change it.
func (s *Service) hit(c *cached) *Output {
	s.hits.Add(1)
	return &c.out
}

// stampsHold reports whether every record of want still has the stamp it
// had (a zero stamp: the record did not exist, and still does not).
func stampsHold(want map[string]time.Time, stamp func(id string) (time.Time, error)) bool {
	for id, at := range want {
		ts, err := stamp(id)
		if cms.IsCode(err, cms.ENotFound) && at.IsZero() {
			continue
		}
		if err != nil || !ts.Equal(at) {
			return false
		}
	}
	return true
}

func sameStamp(a, b store.Stamp) bool { return a.Count == b.Count && a.Latest.Equal(b.Latest) }

func (s *Service) store(key visitKey, c *cached) {
	s.caches()
	s.cache.Put(key, c)
}
