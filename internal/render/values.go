package render

import (
	"context"
	"encoding/json"
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
	// options caches selectNames by channel reference.
	options map[string]selectNames
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
		err := st.svc.Store.View(st.ctx, func(tx store.Tx) error {
			for _, id := range it.RefIDs {
				rec, err := tx.Pages().Get(st.site.ID, id)
				if cms.IsCode(err, cms.ENotFound) {
					st.deps.page(id, time.Time{})
					continue
				} else if err != nil {
					return err
				}
				p, err := pages.DecodePage(rec)
				if err != nil {
					return err
				}
				st.deps.page(p.ID, p.UpdatedAt)
				if p.Published {
					out = append(out, st.pageValue(p, false))
				}
			}
			return nil
		})
		if err != nil {
			st.fail(err)
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
	var ts time.Time
	err := st.svc.Store.View(st.ctx, func(tx store.Tx) (err error) {
		// The stamp is taken before the entry is read: a write in between
		// leaves the cached render older than its stamp, never newer.
		ts, err = tx.Entries().Stamp(st.site.ID, id)
		return err
	})
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
	body, err := st.svc.Entries.Entry(st.ctx, st.site, channel, id, entries.ReadOptions{})
	if cms.IsCode(err, cms.ENotFound) {
		return nil
	} else if err != nil {
		st.fail(err)
		return nil
	}
	return st.entryValue(body, st.selectNames(channel))
}

// entryValue decodes an entry's API shape, lays the render's locale over
// its default-locale values and shows select choices by name.
func (st *state) entryValue(body []byte, names selectNames) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		st.fail(err)
		return nil
	}
	if tr, ok := m["translations"].(map[string]any); ok {
		if local, ok := tr[st.locale].(map[string]any); ok && st.locale != st.site.DefaultLocale {
			for k, v := range local {
				m[k] = v
			}
		}
	}
	for field, byID := range names {
		switch v := m[field].(type) {
		case string:
			if n, ok := byID[v]; ok {
				m[field] = n
			}
		case []any:
			out := make([]any, len(v))
			for i, e := range v {
				out[i] = e
				if id, ok := e.(string); ok {
					if n, ok := byID[id]; ok {
						out[i] = n
					}
				}
			}
			m[field] = out
		}
	}
	return m
}

// selectNames maps each select and multi_select field of a channel to its
// options' names by id: the API gives a choice's id, templates show and
// filter by its name (`where: 'topics', 'Product'`).
type selectNames map[string]map[string]string

// selectNames returns the select options of the channel ref (id or slug),
// recording the channel's definition as a dependency of the render.
func (st *state) selectNames(ref string) selectNames {
	st.mu.Lock()
	names, ok := st.options[ref]
	st.mu.Unlock()
	if ok {
		return names
	}
	var ch *store.Channel
	err := st.svc.Store.View(st.ctx, func(tx store.Tx) (err error) {
		if ch, err = tx.Channels().GetBySlug(st.site.ID, ref); cms.IsCode(err, cms.ENotFound) {
			ch, err = tx.Channels().Get(st.site.ID, ref)
		}
		return err
	})
	if cms.IsCode(err, cms.ENotFound) {
		return nil
	} else if err != nil {
		st.fail(err)
		return nil
	}
	st.deps.mu.Lock()
	st.deps.channelDefs[ch.ID] = ch.UpdatedAt
	st.deps.mu.Unlock()
	body, err := st.svc.Entries.Channel(st.ctx, st.site, ch.ID)
	if err != nil {
		st.fail(err)
		return nil
	}
	var def struct {
		Customizations []struct {
			Name          string
			SelectOptions []struct{ ID, Name string } `json:"select_options"`
		}
	}
	if err := json.Unmarshal(body, &def); err != nil {
		st.fail(err)
		return nil
	}
	names = selectNames{}
	for _, f := range def.Customizations {
		if len(f.SelectOptions) == 0 {
			continue
		}
		byID := make(map[string]string, len(f.SelectOptions))
		for _, o := range f.SelectOptions {
			byID[o.ID] = o.Name
		}
		names[f.Name] = byID
	}
	st.mu.Lock()
	if st.options == nil {
		st.options = map[string]selectNames{}
	}
	st.options[ref] = names
	st.mu.Unlock()
	return names
}

// channelsDrop is the `channels` variable: each channel's entries, loaded
// when a template first reads them.
type channelsDrop struct{ st *state }

func (d channelsDrop) ToLiquid() any {
	st := d.st
	var list []*store.Channel
	var sig string
	err := st.svc.Store.View(st.ctx, func(tx store.Tx) (err error) {
		list, _, err = tx.Channels().List(st.site.ID, store.ListOptions{Limit: maxChannels})
		sig = channelSetOf(list)
		return err
	})
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
	var stamp store.Stamp
	err := st.svc.Store.View(st.ctx, func(tx store.Tx) (err error) {
		stamp, err = tx.Entries().ChannelStamp(st.site.ID, d.id)
		return err
	})
	if err != nil {
		st.fail(err)
		return []any{}
	}
	st.deps.mu.Lock()
	st.deps.channels[d.id] = stamp
	st.deps.mu.Unlock()
	bodies, _, err := st.svc.Entries.List(st.ctx, st.site, d.id, entries.Query{}, entries.ReadOptions{}, store.ListOptions{Limit: maxChannelEntries})
	if err != nil {
		st.fail(err)
		return []any{}
	}
	names := st.selectNames(d.id)
	out := make([]any, 0, len(bodies))
	for _, b := range bodies {
		if e := st.entryValue(b, names); e != nil {
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
