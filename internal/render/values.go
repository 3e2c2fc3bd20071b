package render

import (
	"context"
	"html"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/osteele/liquid"
	lrender "github.com/osteele/liquid/render"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
	"github.com/tessera-cms/tessera/internal/translations"
)

// maxChannelEntries is how many entries `channels.<slug>` holds: the
// newest first, in the channel's list order. Templates filter, sort and
// paginate within them.
const maxChannelEntries = 200

// state is one render's working state, shared by its tags through the
// stateKey binding.
type state struct {
	svc *Service
	req *Request
	// tx is the read transaction the render reads everything in: one
	// snapshot, so what a page shows and the stamps it is cached under
	// agree.
	tx store.Tx
	// ctx is the render's context: the request's, ended by the time bound
	// too; b is what the render may still spend, cfg its configuration.
	ctx    context.Context
	b      *budget
	cfg    *renderConfig
	site   *store.Site
	locale string
	// returnTo is where a login form sends the customer back to.
	returnTo string
	scope    *scope
	// layout is the layout a {% layout %} tag chose; layoutSet tells
	// `none` from no choice.
	layout    string
	layoutSet bool
	depth     int
	deps      *deps
	// err is the first storage error of a lazily loaded value; the render
	// fails with it rather than render a page with data missing.
	mu  sync.Mutex
	err error
	// channels are the channels the render read, by reference (slug or
	// id; nil: no such channel).
	channels map[string]*entries.Channel
	// tr is the site's translations, and menus the `menus` variable, once
	// the render read them.
	tr    *translations.Table
	menus map[string]any
}

func (st *state) fail(err error) {
	st.mu.Lock()
	if st.err == nil {
		st.err = err
	}
	st.mu.Unlock()
}

// deps is what a render read, with the stamps it had when it was read: a
// cached render stays valid while every stamp still holds.
type deps struct {
	mu       sync.Mutex
	pages    map[string]time.Time
	entries  map[string]time.Time
	channels map[string]store.Stamp
	// channelDefs are the channels whose definitions (select options) the
	// render used, with their updated_at.
	channelDefs map[string]time.Time
	// channelSet sums up the site's channels when the render read the
	// `channels` variable (channelSetRead).
	channelSet     string
	channelSetRead bool
	// records are the kinds of the site's records the render read (its
	// translations, menus), with their stamps.
	records map[string]store.Stamp
}

func newDeps() *deps {
	return &deps{pages: map[string]time.Time{}, entries: map[string]time.Time{}, channels: map[string]store.Stamp{},
		channelDefs: map[string]time.Time{}, records: map[string]store.Stamp{}}
}

func (d *deps) page(id string, ts time.Time) {
	d.mu.Lock()
	d.pages[id] = ts
	d.mu.Unlock()
}

// fileURL is where a file is read: a site-relative URL for stored files
// (it works on every host the site answers), the signed URL for private
// ones.
func (st *state) fileURL(f *files.File) string {
	if f.Private && f.PermanentURL != "" {
		return f.PermanentURL
	}
	u, err := url.Parse(f.URL)
	if err != nil || u.Path == "" {
		return f.URL
	}
	if u.RawQuery != "" {
		return u.EscapedPath() + "?" + u.RawQuery
	}
	return u.EscapedPath()
}

func (st *state) fileValue(f *files.File) map[string]any {
	if f == nil {
		return nil
	}
	m := map[string]any{"url": st.fileURL(f), "filename": f.Filename, "content_type": f.ContentType, "size": f.Size}
	if f.IsImage() {
		m["width"], m["height"] = f.Width, f.Height
	}
	return m
}

// pageValue is a page as templates see it: its fields in the render's
// locale, its URL in every locale and its items by slug.
func (st *state) pageValue(p *doc.Page, withItems bool) map[string]any {
	def := st.site.DefaultLocale
	urls := make(map[string]any, len(st.site.Locales))
	for _, l := range st.site.Locales {
		urls[l] = pages.PublicURL(st.site, p, l)
	}
	m := map[string]any{
		"id": p.ID, "title": p.Title.Get(st.locale, def), "slug": p.Slug.Get(st.locale, def),
		"fullpath": "/" + p.Fullpath.Get(st.locale, def), "url": pages.PublicURL(st.site, p, st.locale), "urls": urls,
		"seo_title": p.SEOTitle.Get(st.locale, def), "seo_description": p.SEODescription.Get(st.locale, def),
		"seo_keywords": p.SEOKeywords.Get(st.locale, def), "published": p.Published, "homepage": p.Homepage,
		"template": p.Template, "security_mechanism": security(p), "created_at": p.CreatedAt, "updated_at": p.UpdatedAt,
		"og_image": st.fileValue(p.OGImage),
	}
	if withItems {
		m["items"] = st.itemsValue(p.Items)
	}
	return m
}

func security(p *doc.Page) string {
	if p.SecurityMechanism == "" {
		return doc.SecurityNone
	}
	return p.SecurityMechanism
}

// itemsValue maps item slugs to their values: content for fields, texts,
// selects and switches, the file for files, the target(s) for references,
// the blocks for canvases.
func (st *state) itemsValue(items []*doc.Item) map[string]any {
	out := make(map[string]any, len(items))
	for _, it := range items {
		if it.Disabled {
			continue
		}
		switch it.Type {
		case themes.TypeFile:
			out[it.Slug] = st.fileValue(it.File(st.locale, st.site.DefaultLocale))
		case themes.TypeReference:
			out[it.Slug] = &refDrop{st: st, it: it}
		case themes.TypeCanvas:
			var blocks []any
			for _, rep := range it.Blocks() {
				blocks = append(blocks, map[string]any{"id": rep.ID, "slug": rep.Slug, "position": rep.Position, "items": st.itemsValue(rep.Items)})
			}
			out[it.Slug] = blocks
		default:
			out[it.Slug] = it.Content.Get(st.locale, st.site.DefaultLocale)
		}
	}
	return out
}

// refDrop loads a reference's targets when a template reads them.
type refDrop struct {
	st *state
	it *doc.Item
}

func (d *refDrop) ToLiquid() any {
	targets := d.st.targets(d.it)
	if d.it.Many {
		return targets
	}
	if len(targets) == 0 {
		return nil
	}
	return targets[0]
}

// targets loads the pages or entries a reference item names, in order,
// leaving out those that no longer exist or that visitors cannot see.
func (st *state) targets(it *doc.Item) []any {
	out := make([]any, 0, len(it.RefIDs))
	if it.RefType == "pages" {
		for _, id := range it.RefIDs {
			rec, err := st.tx.Pages().Get(st.site.ID, id)
			if cms.IsCode(err, cms.ENotFound) {
				st.deps.page(id, time.Time{})
				continue
			} else if err != nil {
				st.fail(err)
				return out
			}
			p, err := pages.DecodePage(rec)
			if err != nil {
				st.fail(err)
				return out
			}
			st.deps.page(p.ID, p.UpdatedAt)
			// A page the visitor must log in for is still linked (the
			// link asks them to); a page that is not there for them is not.
			if pages.Visible(p, st.locale, viewer(st.req, "")) != pages.Hidden {
				out = append(out, st.pageValue(p, false))
			}
		}
		return out
	}
	channel, ok := strings.CutPrefix(it.RefType, "channels.")
	if !ok {
		return out
	}
	for _, id := range it.RefIDs {
		if e := st.entry(channel, id); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// entry loads one entry of a channel as templates see it, or nil when it
// no longer exists.
func (st *state) entry(channel, id string) map[string]any {
	ts, err := st.tx.Entries().Stamp(st.site.ID, id)
	if cms.IsCode(err, cms.ENotFound) {
		st.deps.mu.Lock()
		st.deps.entries[id] = time.Time{}
		st.deps.mu.Unlock()
		return nil
	} else if err != nil {
		st.fail(err)
		return nil
	}
	st.deps.mu.Lock()
	st.deps.entries[id] = ts
	st.deps.mu.Unlock()
	ch := st.channel(channel)
	if ch == nil {
		return nil
	}
	e, err := st.svc.Entries.EntryValue(st.tx, st.site, ch, id, st.locale)
	if cms.IsCode(err, cms.ENotFound) {
		return nil
	} else if err != nil {
		st.fail(err)
		return nil
	}
	return e
}

// channel returns the channel ref (slug or id) names, or nil when there is
// none, recording its definition (which entries' values show) as a
// dependency of the render.
func (st *state) channel(ref string) *entries.Channel {
	st.mu.Lock()
	ch, ok := st.channels[ref]
	st.mu.Unlock()
	if ok {
		return ch
	}
	ch, err := st.svc.Entries.ChannelIn(st.tx, st.site, ref)
	if err != nil && !cms.IsCode(err, cms.ENotFound) {
		st.fail(err)
		return nil
	}
	if ch != nil {
		st.deps.mu.Lock()
		st.deps.channelDefs[ch.ID] = ch.UpdatedAt
		st.deps.mu.Unlock()
	}
	st.mu.Lock()
	if st.channels == nil {
		st.channels = map[string]*entries.Channel{}
	}
	st.channels[ref] = ch
	st.mu.Unlock()
	return ch
}

// channelsDrop is the `channels` variable: each channel's entries, loaded
// when a template first reads them.
type channelsDrop struct{ st *state }

func (d channelsDrop) ToLiquid() any {
	st := d.st
	list, _, err := st.tx.Channels().List(st.site.ID, store.ListOptions{Limit: maxChannels})
	sig := channelSetOf(list)
	if err != nil {
		st.fail(err)
		return map[string]any{}
	}
	st.deps.mu.Lock()
	st.deps.channelSet, st.deps.channelSetRead = sig, true
	st.deps.mu.Unlock()
	out := make(map[string]any, len(list))
	for _, ch := range list {
		out[ch.Slug] = &channelDrop{st: st, id: ch.ID, slug: ch.Slug, roles: channelRoles(ch)}
	}
	return out
}

// maxChannels bounds the channels a site's `channels` variable holds.
const maxChannels = 1000

// channelSet sums up the site's channels (which exist, their slugs and
// definitions) for cache validation.
func channelSet(tx store.Tx, siteID string) (string, error) {
	list, _, err := tx.Channels().List(siteID, store.ListOptions{Limit: maxChannels})
	return channelSetOf(list), err
}

func channelSetOf(list []*store.Channel) string {
	var b strings.Builder
	for _, ch := range list {
		b.WriteString(ch.ID + "\x00" + ch.Slug + "\x00" + ch.UpdatedAt.UTC().Format(time.RFC3339Nano) + "\x00")
	}
	return b.String()
}

// channelDrop is one channel's entries.
type channelDrop struct {
	st       *state
	id, slug string
	// roles are the customer roles one of which the visitor needs to see
	// the channel's entries; a visitor without one sees none.
	roles []string
}

func (d *channelDrop) ToLiquid() any {
	st := d.st
	if checkRoles(d.roles, st.req) != nil {
		return []any{}
	}
	stamp, err := st.tx.Entries().ChannelStamp(st.site.ID, d.id)
	if err != nil {
		st.fail(err)
		return []any{}
	}
	st.deps.mu.Lock()
	st.deps.channels[d.id] = stamp
	st.deps.mu.Unlock()
	ch := st.channel(d.id)
	if ch == nil {
		return []any{}
	}
	values, err := st.svc.Entries.ListValues(st.tx, st.site, ch, st.locale, maxChannelEntries)
	if err != nil {
		st.fail(err)
		return []any{}
	}
	out := make([]any, 0, len(values))
	for _, e := range values {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// reference renders a reference editable: its body with `reference` (or
// `references`) bound to the target(s), or, when the body renders nothing
// (an empty tag), a link to each target.
func (st *state) reference(ctx lrender.Context, it *doc.Item) (string, error) {
	var targets []any
	if it != nil {
		targets = st.targets(it)
	}
	if it != nil && it.Many {
		ctx.Set("references", targets)
	} else if len(targets) > 0 {
		ctx.Set("reference", targets[0])
	} else {
		ctx.Set("reference", nil)
	}
	body, err := st.inner(ctx)
	if err != nil || strings.TrimSpace(body) != "" || len(targets) == 0 {
		return body, err
	}
	var b strings.Builder
	for _, t := range targets {
		m, _ := t.(map[string]any)
		href, _ := m["url"].(string)
		if _, isPage := m["fullpath"]; !isPage {
			href = "" // entries have no public page of their own
		}
		title, _ := m["title"].(string)
		if title == "" {
			title, _ = m["slug"].(string)
		}
		if href != "" {
			b.WriteString(`<a href="` + html.EscapeString(href) + `">` + html.EscapeString(title) + `</a>`)
		} else {
			b.WriteString(`<span>` + html.EscapeString(title) + `</span>`)
		}
	}
	return b.String(), nil
}

var _ liquid.Drop = (*refDrop)(nil)
