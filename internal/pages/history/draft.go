// Package history holds the pure parts of a page's drafts and versions:
// what a draft save keeps of its body (DraftableBody), what publishing a
// draft or restoring a version makes of the live page (PublishDraft), how a
// draft follows the live page's slugs (Rebase, RebasedOn), and the stored
// form of version snapshots (deltas against the version before, in chains
// of at most ChainMax). The service loads, locks, saves and archives.
package history

// Drafts: the pure pieces. A draft is stored as a full *Page
// (the draft state of the page) plus the live updated_at it was based on.
// Draft saves run edit.Apply on the draft page with the body DraftableBody keeps,
// draft batches run edit.ApplyBatch on it, and PublishDraft copies the draftable
// state onto the live page. Package view renders the draft's `content` and a version's `snapshot`.
//
// Decisions where the spec is silent:
//
//   - A draft save takes `items` as PUT does (a hash by slug). It also takes
//     `page_items`: an object is the same hash; an array is the snapshot
//     shape (what a draft read returns) and is turned into the hash, each
//     entry's `page_items` becoming `items`. Sending draft content back is
//     therefore a no-op, like writing a GET document back with PUT. When
//     both keys are sent, `items` wins slug by slug.
//   - slug, and translations.<locale>.slug, go to the live page (the
//     spec's "applied to the live page immediately"); fullpath in a
//     translation entry is dropped. Every other non-draftable key is dropped
//     without error.
//   - PublishDraft takes the draft's items together with its
//     template_synced_at when draft and live use the same template. When the
//     live template changed after the draft was based, the items come over
//     unsynced (template_synced_at zero): edit.NeedsSync then reports true
//     and the service re-syncs them against the live template before
//     saving, as it does for every save.

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
)

// Version source actions.
const (
	VersionLiveSave       = "live_save"
	VersionDraftPublish   = "draft_publish"
	VersionRestorePublish = "restore_publish" // internal only; the API never produces it
)

// DraftBody is a draft save body split by where its keys apply.
type DraftBody struct {
	// Draft holds the draftable keys (title, seo_title, seo_description,
	// seo_keywords, og_image, items, translations without slug and
	// fullpath, fixed_locale, locales): the body of edit.Apply on the draft page.
	Draft map[string]any
	// Live holds the slugs of the body: top-level slug and translations
	// whose entries carry a slug, as {translations: {<locale>: {slug}}}.
	// It is a PUT body for edit.Apply on the live page, with the same
	// content_locale; nil when the body names no slug.
	Live map[string]any
}

// draftableKeys are the top-level keys a draft save keeps as they are;
// items, page_items and translations are handled on their own.
var draftableKeys = [...]string{"title", "seo_title", "seo_description", "seo_keywords", "og_image", "fixed_locale", "locales"}

// DraftableBody splits a decoded draft save body (POST, PUT or PATCH
// /pages/{id}/draft) into the draftable keys and the slugs to apply to the
// live page. Every other key is dropped. body is not modified; the returned
// maps share its values, so treat them as read-only too.
//
// The only error is a 422 validation_failed for a page_items array entry
// that is not an object with a slug. Values are otherwise not checked here:
// edit.Apply checks them.
func DraftableBody(body map[string]any) (DraftBody, error) {
	var d DraftBody
	d.Draft = make(map[string]any, len(body))
	for _, k := range draftableKeys {
		if v, ok := body[k]; ok {
			d.Draft[k] = v
		}
	}
	if v, ok := body["slug"]; ok {
		d.Live = map[string]any{"slug": v}
	}

	items, hasItems := body["items"]
	if pv, ok := body["page_items"]; ok {
		pm, err := pageItemsHash(pv, "page_items")
		if err != nil {
			return DraftBody{}, err
		}
		im, itemsObj := items.(map[string]any)
		if pmm, ok := pm.(map[string]any); ok && itemsObj {
			merged := make(map[string]any, len(pmm)+len(im))
			maps.Copy(merged, pmm)
			maps.Copy(merged, im)
			items = merged
		} else if !hasItems {
			items = pm
		}
		hasItems = true
	}
	if hasItems {
		d.Draft["items"] = items
	}

	if tv, ok := body["translations"]; ok {
		tm, isObj := tv.(map[string]any)
		if !isObj {
			d.Draft["translations"] = tv // Apply reports the shape
			return d, nil
		}
		draft := make(map[string]any, len(tm))
		var live map[string]any
		for l, ev := range tm {
			em, ok := ev.(map[string]any)
			if !ok {
				draft[l] = ev
				continue
			}
			kept := make(map[string]any, len(em))
			for k, v := range em {
				switch k {
				case "slug":
					if live == nil {
						live = map[string]any{}
					}
					live[l] = map[string]any{"slug": v}
				case "fullpath":
				default:
					kept[k] = v
				}
			}
			draft[l] = kept
		}
		d.Draft["translations"] = draft
		if live != nil {
			if d.Live == nil {
				d.Live = map[string]any{}
			}
			d.Live["translations"] = live
		}
	}
	return d, nil
}

// pageItemsHash turns a page_items value into the items hash edit.Apply takes:
// an object is already one, an array is the snapshot shape. Any other value
// is returned as is for Apply to report.
func pageItemsHash(v any, where string) (any, error) {
	list, ok := v.([]any)
	if !ok {
		return v, nil
	}
	out := make(map[string]any, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, cms.Errorf(cms.EValidationFailed, "%s[%d] must be an object", where, i)
		}
		slug, ok := m["slug"].(string)
		if !ok || slug == "" {
			return nil, cms.Errorf(cms.EValidationFailed, "%s[%d].slug must be an item slug", where, i)
		}
		val := make(map[string]any, len(m))
		for k, ev := range m {
			switch k {
			case "slug", "type":
			case "repeatables":
				reps, err := snapshotRepeatables(ev, where+"["+strconv.Itoa(i)+"].repeatables")
				if err != nil {
					return nil, err
				}
				val[k] = reps
			default:
				val[k] = ev
			}
		}
		out[slug] = val
	}
	return out, nil
}

// snapshotRepeatables turns snapshot repeatables ({id, slug, position,
// page_items}) into PUT repeatables ({id, slug, position, items}).
func snapshotRepeatables(v any, where string) (any, error) {
	list, ok := v.([]any)
	if !ok {
		return v, nil
	}
	out := make([]any, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			out[i] = e
			continue
		}
		rep := make(map[string]any, len(m))
		for k, ev := range m {
			if k != "page_items" {
				rep[k] = ev
			}
		}
		if pv, ok := m["page_items"]; ok {
			items, err := pageItemsHash(pv, where+"["+strconv.Itoa(i)+"].page_items")
			if err != nil {
				return nil, err
			}
			if _, has := m["items"]; !has {
				rep["items"] = items
			}
		}
		out[i] = rep
	}
	return out, nil
}

// PublishDraft returns the live page after publishing draft onto live: a
// copy of live with the draft's draftable state (title, seo_title,
// seo_description, seo_keywords in every locale, og_image, items with their
// repeatables, disabled flags and translations, fixed_locale, locales) and
// everything else (id, slug, fullpath, parent, position, published,
// homepage, template, channel, filter, security_mechanism,
// caching_strategy, created_at) from live. updated_at is
// cms.NextUpdatedAt(live.UpdatedAt, now). Neither live nor draft is
// modified, and the result shares no memory with them.
//
// The service re-syncs the result when edit.NeedsSync says so (see the
// package's decisions on a changed template) and archives the
// draft_publish version from it.
func PublishDraft(live, draft *doc.Page, now time.Time) *doc.Page {
	p := live.Clone()
	p.Title = doc.CloneText(draft.Title)
	p.SEOTitle = doc.CloneText(draft.SEOTitle)
	p.SEODescription = doc.CloneText(draft.SEODescription)
	p.SEOKeywords = doc.CloneText(draft.SEOKeywords)
	p.OGImage = draft.OGImage.Clone()
	p.FixedLocale = draft.FixedLocale
	p.Locales = slices.Clone(draft.Locales)
	p.Items = doc.CloneItems(draft.Items)
	if draft.Template == live.Template {
		p.TemplateSyncedAt = draft.TemplateSyncedAt
	} else {
		p.TemplateSyncedAt = time.Time{}
	}
	p.UpdatedAt = cms.NextUpdatedAt(live.UpdatedAt, now)
	return p
}

// RebasedOn is the base of a draft after its slug was applied to live: the
// new live version when the draft was current, so that the draft's own slug
// does not count as a live change; else the old base, so that a change
// somebody else made to live still needs confirm to be overwritten.
func RebasedOn(basedOn time.Time, current bool, live *doc.Page) time.Time {
	if current {
		return live.UpdatedAt
	}
	return basedOn
}

// Rebase makes the draft follow the live page's slugs and fullpaths, which
// are not draftable.
func Rebase(draft, live *doc.Page) {
	draft.Slug, draft.Fullpath = doc.CloneText(live.Slug), doc.CloneText(live.Fullpath)
}
