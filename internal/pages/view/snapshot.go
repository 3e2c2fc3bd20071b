package view

// The draft's content and a version's snapshot: the page's content as a
// draft read and a version detail show it.
//
// Decisions where the spec is silent:
//
//   - Snapshot page_items entries carry no timestamps and no
//     fallback_content: the snapshot is the page's content, not a
//     template-dependent read. content is the served-locale string for
//     field, text, select and switch (switches "true"/"false"), the file URL
//     or null for files, and null for canvases and references. A reference
//     entry adds reference_type and reference_id (single) or reference_ids
//     (many, an array); it has no translations (references are not
//     translated) and resolves no slugs or titles, so an archived snapshot
//     never goes stale against renamed targets. A canvas entry has
//     repeatables and no translations (containers are not translated).
//   - Snapshot translations fall back to the default locale, as page reads
//     do; og_image is the page read's file object (compact and
//     X-Service-Client-Version apply).
//   - future_page_id and reserved_fullpath belong to drafts of pages that do
//     not exist yet; Tessera drafts always belong to an existing page, so
//     both are null.

import (
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// RenderSnapshot appends the snapshot of p to dst: the object a draft read
// shows as `content` and a version as `snapshot`. Its keys, in order:
// title, seo_title, seo_description, seo_keywords (served locale), og_image,
// fixed_locale, locales, page_items and, on multi-locale sites,
// translations (locale -> {title, seo_title, seo_description,
// seo_keywords}; no slug, no fullpath).
//
// page_items is an array of the enabled items in stored order, each
// {slug, type, content, translations, repeatables} as the file's
// decisions describe; repeatables are {id, slug, position, page_items},
// enabled only, in position order. v.Compact drops type and the served
// locale's translations entries; ids and positions stay. Of v only
// DefaultLocale, Locales, Locale, Compact and ClientVersion are used.
//
// Output is deterministic. The only error is the spec's message-only 422
// for a v.Locale the site does not enable.
func RenderSnapshot(dst []byte, p *doc.Page, v *View) ([]byte, error) {
	if err := cms.CheckContentLocale(v.Locale, v.Locales); err != nil {
		return dst, err
	}
	r := newRenderer(dst, v)
	r.snapshot(p)
	return r.w.B, nil
}

func (r *renderer) snapshot(p *doc.Page) {
	w := &r.w
	def, loc := r.def, r.locale
	w.OpenObject()
	w.K("title")
	w.Str(p.Title.Get(loc, def))
	w.K("seo_title")
	w.Str(p.SEOTitle.Get(loc, def))
	w.K("seo_description")
	w.Str(p.SEODescription.Get(loc, def))
	w.K("seo_keywords")
	w.Str(p.SEOKeywords.Get(loc, def))
	w.K("og_image")
	r.file(p.OGImage)
	w.K("fixed_locale")
	w.StrOrNull(p.FixedLocale)
	w.K("locales")
	w.Strings(p.Locales)
	w.K("page_items")
	r.snapshotItems(p.Items)
	if r.multi {
		r.pageTranslations(p, false)
	}
	w.CloseObject()
}

// snapshotItems writes a page_items array: the enabled items in stored order.
func (r *renderer) snapshotItems(items []*doc.Item) {
	w := &r.w
	w.OpenArray()
	for _, it := range items {
		if it.Disabled {
			continue
		}
		w.Elem()
		r.snapshotItem(it)
	}
	w.CloseArray()
}

func (r *renderer) snapshotItem(it *doc.Item) {
	w := &r.w
	w.OpenObject()
	w.K("slug")
	w.Str(it.Slug)
	if !r.v.Compact {
		w.K("type")
		w.Str(it.Type)
	}
	w.K("content")
	switch it.Type {
	case themes.TypeCanvas:
		w.Null()
		w.K("repeatables")
		w.OpenArray()
		for _, rep := range doc.ByPosition(it.Repeatables) {
			if rep.Disabled {
				continue
			}
			w.Elem()
			w.OpenObject()
			w.K("id")
			w.Str(rep.ID)
			w.K("slug")
			w.Str(rep.Slug)
			w.K("position")
			w.Int(int64(rep.Position))
			w.K("page_items")
			r.snapshotItems(rep.Items)
			w.CloseObject()
		}
		w.CloseArray()
	case themes.TypeReference:
		w.Null()
		w.K("reference_type")
		w.StrOrNull(it.RefType)
		if it.Many {
			w.K("reference_ids")
			w.Strings(it.RefIDs)
		} else {
			w.K("reference_id")
			if len(it.RefIDs) == 0 {
				w.Null()
			} else {
				w.Str(it.RefIDs[0])
			}
		}
	case themes.TypeFile:
		if f := it.File(r.locale, r.def); f != nil {
			w.Str(f.URLAt(r.v.BaseURL))
		} else {
			w.Null()
		}
		if r.multi {
			r.itemTranslations(it)
		}
	default:
		w.Str(it.Content.Get(r.locale, r.def))
		if r.multi {
			r.itemTranslations(it)
		}
	}
	w.CloseObject()
}

// DraftInfo is what a draft document shows besides its content.
type DraftInfo struct {
	ID     string // the draft's id
	PageID string // the live page's id
	// UpdatedAt is when the draft was last saved (not the live updated_at
	// it was based on).
	UpdatedAt time.Time
}

// RenderDraft appends the draft document (GET, POST, PUT, PATCH
// /pages/{id}/draft, version restore) to dst: {id, page_id,
// future_page_id, reserved_fullpath, content, updated_at}, where content is
// RenderSnapshot of the draft page p and future_page_id and
// reserved_fullpath are null. Errors are RenderSnapshot's.
func RenderDraft(dst []byte, d DraftInfo, p *doc.Page, v *View) ([]byte, error) {
	if err := cms.CheckContentLocale(v.Locale, v.Locales); err != nil {
		return dst, err
	}
	r := newRenderer(dst, v)
	w := &r.w
	w.OpenObject()
	w.K("id")
	w.Str(d.ID)
	w.K("page_id")
	w.Str(d.PageID)
	w.K("future_page_id")
	w.Null()
	w.K("reserved_fullpath")
	w.Null()
	w.K("content")
	r.snapshot(p)
	w.K("updated_at")
	w.Time(d.UpdatedAt)
	w.CloseObject()
	return r.w.B, nil
}
