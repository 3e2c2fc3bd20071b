package entries

// Entry reads: one entry, lists and counts, with cached default renders
// and resolved references.

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/store"
)

// reader returns a reader for site.
func (s *Service) reader(site *store.Site, opt ReadOptions) *reader {
	base := s.baseURL(site)
	return &reader{site: site, loc: s.location(site), opt: opt, fileURL: func(f *files.File) string {
		if f.Private && f.Key != "" && s.Files != nil && s.Files.Blobs != nil {
			exp := time.Now().Add(privateURLLifetime).Truncate(time.Minute)
			return base + "/files/" + s.Files.Blobs.SignURL(f.Key, exp)
		}
		return f.URLAt(base)
	}}
}

// readDeps are what entry reads and lists depend on (package changes):
// the site, its channels' definitions and its entries (references resolve
// to other entries of the site).
var readDeps = changes.Of(changes.Site, changes.Channel, changes.Entry)

// entryReadKey is what a default entry read is answered by: the site as
// the request has it, the channel and entry as named, and the file shape.
type entryReadKey struct {
	site           string
	siteAt         time.Time
	channel, entry string
	full           bool
	locale         string
}

// rendered is an entry's read shape, as the fast path keeps it.
type rendered []byte

// Size reports the bytes b holds.
func (b rendered) Size() int { return len(b) }

// Entry returns an entry's read shape.
func (s *Service) Entry(ctx context.Context, site *store.Site, ref, entryRef string, opt ReadOptions) ([]byte, error) {
	key := entryReadKey{site: site.ID, siteAt: site.UpdatedAt, channel: ref, entry: entryRef, full: opt.ClientVersion,
		locale: opt.Locale}
	mark, markAt, current := s.Fresh.Mark(ctx, site.ID, readDeps)
	current = current && opt.cacheable()
	if current {
		if b, ok := s.reads.Get(s.Fresh, key, mark, markAt); ok {
			return b, nil
		}
	}
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, err
	}
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		ch, rec, err := s.lookupEntry(tx, site, ref, entryRef)
		if err != nil {
			return err
		}
		if err := checkResolve(ch, opt.Resolve); err != nil {
			return err
		}
		bodies, err := s.render(tx, site, ch, []*store.Entry{rec}, opt)
		if err != nil {
			return err
		}
		out = bodies[0]
		return nil
	})
	// Like a list, an entry with signed URLs of private files may be kept:
	// it is served for at most Fresh's bound, far within their lifetime.
	if err == nil && current {
		s.reads.Put(key, out, mark, markAt)
	}
	return out, err
}

// checkResolve refuses resolve= names that are not reference fields.
func checkResolve(ch *Channel, names []string) error {
	for _, n := range names {
		f := ch.Field(n)
		if f == nil || (f.Type != TypeBelongsTo && f.Type != TypeBelongsToMany) {
			return cms.Errorf(cms.EBadRequest, "resolve: %q is not a reference field of channel %s", n, ch.Slug)
		}
	}
	return nil
}

// render renders entries of ch, from the cache when nothing they show has
// changed.
func (s *Service) render(tx store.Tx, site *store.Site, ch *Channel, recs []*store.Entry, opt ReadOptions) ([][]byte, error) {
	out := make([][]byte, len(recs))
	var r *reader
	var todo []*Entry
	var at []int
	for i, rec := range recs {
		key := renderKey{entry: rec.ID, updatedAt: rec.UpdatedAt, channelAt: ch.UpdatedAt, siteAt: site.UpdatedAt,
			full: opt.ClientVersion, locale: opt.Locale}
		if opt.cacheable() {
			if b := s.cache.get(key); b != nil {
				out[i] = b
				continue
			}
		}
		e, err := decodeEntry(rec)
		if err != nil {
			return nil, err
		}
		todo, at = append(todo, e), append(at, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	r = s.reader(site, opt)
	if !opt.cacheable() {
		if err := s.loadTargets(tx, site, ch, todo, r); err != nil {
			return nil, err
		}
	}
	for j, e := range todo {
		r.signed = false
		b := appendJSON(nil, r.entry(ch, e, true))
		out[at[j]] = b
		if opt.cacheable() && !r.signed {
			s.cache.put(renderKey{entry: e.ID, updatedAt: e.UpdatedAt, channelAt: ch.UpdatedAt, siteAt: site.UpdatedAt,
				full: opt.ClientVersion, locale: opt.Locale}, b)
		}
	}
	return out, nil
}

// loadTargets loads the entries the references of es point at, for
// include_slugs and resolve.
func (s *Service) loadTargets(tx store.Tx, site *store.Site, ch *Channel, es []*Entry, r *reader) error {
	r.targets = map[string]*target{}
	// Which channel each referenced id must be in, and whether it is read
	// in full; then one read of all targets.
	want := map[string]string{}
	full := map[string]bool{}
	var ids []string
	for _, f := range ch.Fields {
		if f.Type != TypeBelongsTo && f.Type != TypeBelongsToMany {
			continue
		}
		for _, e := range es {
			for _, id := range refIDs(f, e.Values[f.ID]) {
				if _, seen := want[id]; !seen {
					want[id] = f.ReferenceID
					ids = append(ids, id)
				}
				if slices.Contains(r.opt.Resolve, f.Name) {
					full[id] = true
				}
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	recs, err := tx.Entries().GetMany(site.ID, ids)
	if err != nil {
		return err
	}
	channels := newChannelCache(tx, site, ch)
	for _, rec := range recs {
		if rec.ChannelID != want[rec.ID] {
			continue
		}
		t := &target{slug: rec.Slug}
		if full[rec.ID] {
			tch, err := channels.get(rec.ChannelID)
			if err != nil {
				return err
			}
			te, err := decodeEntry(rec)
			if err != nil {
				return err
			}
			inner := &reader{site: r.site, loc: r.loc, opt: ReadOptions{ClientVersion: r.opt.ClientVersion}, fileURL: r.fileURL}
			t.resolved = inner.entry(tch, te, false)
		}
		r.targets[rec.ID] = t
	}
	return nil
}

// listKey is what a list or a count is answered by: the site as the
// request has it, the channel as named, and the query, options and window
// encoded.
type listKey struct {
	site    string
	siteAt  time.Time
	channel string
	what    string
}

// listed is a list's answer as the fast path keeps it.
type listed struct {
	bodies [][]byte
	total  int
	size   int

	arrayOnce sync.Once
	array     []byte // bodies as one JSON array, made on first use
}

// Size reports the bytes l holds (its array counts once made; an estimate
// that leaves it out still bounds the memo within a factor of two).
func (l *listed) Size() int { return l.size }

// JSON returns the list's bodies as one JSON array (jsonw.Array), made
// once however often the list is read.
func (l *listed) JSON() []byte {
	l.arrayOnce.Do(func() { l.array = jsonw.Array(l.bodies) })
	return l.array
}

// memoList answers a list or count read from the memo while Fresh's mark
// holds, and otherwise runs read and keeps its answer. Unlike the render
// cache, the memo may keep bodies with signed URLs of private files: an
// answer is served for at most Fresh's bound after it was made, far within
// a signed URL's lifetime.
func (s *Service) memoList(ctx context.Context, site *store.Site, ref, what string, read func() ([][]byte, int, error)) (*listed, error) {
	key := listKey{site: site.ID, siteAt: site.UpdatedAt, channel: ref, what: what}
	mark, markAt, current := s.Fresh.Mark(ctx, site.ID, readDeps)
	if current {
		if l, ok := s.lists.Get(s.Fresh, key, mark, markAt); ok {
			return l, nil
		}
	}
	bodies, total, err := read()
	if err != nil {
		return nil, err
	}
	l := &listed{bodies: bodies, total: total, size: len(what)}
	for _, b := range bodies {
		l.size += 2 * len(b) // the bodies, and the array JSON makes of them
	}
	if current {
		s.lists.Put(key, l, mark, markAt)
	}
	return l, nil
}

// listWhat encodes what a list or count read depends on besides the site
// and the channel: every field of q, opt and lo, strings quoted and lists
// bracketed so that two different reads never share a key. It is written
// out by hand, not marshalled, because it runs on every list read;
// TestListWhat fails when one of these types gains a field it does not
// cover.
func listWhat(kind string, q Query, opt ReadOptions, lo store.ListOptions) string {
	var buf [160]byte
	b := append(buf[:0], kind...)
	b = strconv.AppendInt(append(b, ' '), int64(lo.Offset), 10)
	b = strconv.AppendInt(append(b, ' '), int64(lo.Limit), 10)
	b = strconv.AppendBool(append(b, ' '), opt.ClientVersion)
	b = strconv.AppendBool(append(b, ' '), opt.IncludeSlugs)
	b = appendQuoted(b, opt.Resolve)
	b = strconv.AppendQuote(append(b, ' '), opt.Locale)
	b = strconv.AppendQuote(append(b, ' '), q.Search)
	b = strconv.AppendQuote(append(b, ' '), q.Locale)
	b = append(b, " ["...)
	for _, c := range q.Where {
		b = appendCond(b, c)
	}
	b = append(b, "] ["...)
	for _, k := range q.Sort {
		b = strconv.AppendQuote(append(b, '('), k.Key)
		b = append(strconv.AppendBool(append(b, ' '), k.Desc), ')')
	}
	return string(append(b, ']'))
}

// appendCond appends c to a listWhat key, its alternatives bracketed.
func appendCond(b []byte, c Cond) []byte {
	b = strconv.AppendQuote(append(b, '('), c.Key)
	b = strconv.AppendQuote(append(b, ' '), c.Op)
	b = strconv.AppendQuote(append(b, ' '), c.Value)
	b = appendQuoted(b, c.Values)
	b = append(b, " ["...)
	for _, a := range c.Any {
		b = appendCond(b, a)
	}
	return append(b, "])"...)
}

// appendQuoted appends " [" and the quoted strings of list, then "]".
func appendQuoted(b []byte, list []string) []byte {
	b = append(b, " ["...)
	for _, v := range list {
		b = strconv.AppendQuote(append(b, ' '), v)
	}
	return append(b, ']')
}

// List returns one page of the channel's entries matching q, in their
// read shape, and the number that match.
func (s *Service) List(ctx context.Context, site *store.Site, ref string, q Query, opt ReadOptions, lo store.ListOptions) ([][]byte, int, error) {
	l, err := s.readList(ctx, site, ref, q, opt, lo)
	if err != nil {
		return nil, 0, err
	}
	return l.bodies, l.total, nil
}

// ListJSON is List with the entries as one JSON array followed by a
// newline (see jsonw.Array): the array of a list read again while nothing
// changed is not made again.
func (s *Service) ListJSON(ctx context.Context, site *store.Site, ref string, q Query, opt ReadOptions, lo store.ListOptions) ([]byte, int, error) {
	l, err := s.readList(ctx, site, ref, q, opt, lo)
	if err != nil {
		return nil, 0, err
	}
	return l.JSON(), l.total, nil
}

func (s *Service) readList(ctx context.Context, site *store.Site, ref string, q Query, opt ReadOptions, lo store.ListOptions) (*listed, error) {
	return s.memoList(ctx, site, ref, listWhat("list", q, opt, lo), func() ([][]byte, int, error) {
		return s.list(ctx, site, ref, q, opt, lo)
	})
}

func (s *Service) list(ctx context.Context, site *store.Site, ref string, q Query, opt ReadOptions, lo store.ListOptions) ([][]byte, int, error) {
	var out [][]byte
	var total int
	mark, markAt, current := s.Fresh.Mark(ctx, site.ID, readDeps)
	err := s.Store.View(ctx, func(tx store.Tx) error {
		ch, err := findChannel(tx, site, ref, &s.channels)
		if err != nil {
			return err
		}
		if err := checkResolve(ch, opt.Resolve); err != nil {
			return err
		}
		sq, err := s.storeQuery(site, ch, q)
		if err != nil {
			return err
		}
		win := lo
		if len(sq.Where) == 0 && len(strings.Fields(sq.Search)) == 0 && len(sq.Sort) == 0 && lo.Offset > 0 {
			// The default order, unfiltered: a deep window starts from a
			// remembered place (as page lists do; see pages.seekWindow),
			// unless it is nearer the end, which the store reads from the
			// end (the kept count says which).
			n, err := tx.Entries().Count(site.ID, ch.ID)
			if err != nil {
				return err
			}
			if !lo.NearerEnd(n) {
				sq.After, win.Offset, err = s.seeks.Window(s.Fresh, site.ID+"/"+ch.ID, mark, markAt, current, lo.Offset, seekStep,
					func(from store.EntryCursor, n int) (store.EntryCursor, bool, error) {
						return tx.Entries().Seek(site.ID, ch.ID, from, n)
					})
				if err != nil {
					return err
				}
			}
		}
		recs, n, err := tx.Entries().List(site.ID, ch.ID, sq, win)
		if err != nil {
			return err
		}
		total = n
		out, err = s.render(tx, site, ch, recs, opt)
		return err
	})
	return out, total, err
}

// seekStep is the distance between two remembered places of an entry
// list: the most a deep window skips once they are known.
var seekStep = 500

// Count returns the number of the channel's entries matching q.
func (s *Service) Count(ctx context.Context, site *store.Site, ref string, q Query) (int, error) {
	l, err := s.memoList(ctx, site, ref, listWhat("count", q, ReadOptions{}, store.ListOptions{}), func() ([][]byte, int, error) {
		var total int
		err := s.Store.View(ctx, func(tx store.Tx) error {
			ch, err := findChannel(tx, site, ref, &s.channels)
			if err != nil {
				return err
			}
			sq, err := s.storeQuery(site, ch, q)
			if err != nil {
				return err
			}
			if len(sq.Where) == 0 && len(strings.Fields(sq.Search)) == 0 {
				// The store's kept count: no list, whatever the channel's
				// sort order costs.
				total, err = tx.Entries().Count(site.ID, ch.ID)
				return err
			}
			_, total, err = tx.Entries().List(site.ID, ch.ID, sq, store.ListOptions{Limit: 1})
			return err
		})
		return nil, total, err
	})
	if err != nil {
		return 0, err
	}
	return l.total, nil
}
