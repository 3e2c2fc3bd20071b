package pages

// Drafts and previews: reads and writes of a page's draft, publishing it,
// restoring a version into it, and the preview of a draft or of the live
// page.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/history"
	"github.com/tessera-cms/tessera/internal/pages/view"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

// Draft error codes (spec "Draft and version errors").
const (
	ESlugApplyFailed  = "slug_apply_failed"
	EDraftBaseChanged = "draft_base_changed"
)

// loadDraft returns the page's draft record and its page state. ENotFound.
func loadDraft(tx store.Tx, site *store.Site, pageID string) (*store.Draft, *doc.Page, error) {
	d, err := tx.Drafts().Get(site.ID, pageID)
	if err != nil {
		return nil, nil, err
	}
	p, err := doc.Decode(d.Content)
	if err != nil {
		return nil, nil, fmt.Errorf("pages: decode draft of %s: %w", pageID, err)
	}
	return d, p, nil
}

// putDraft stores p as the page's draft, based on the live updated_at basedOn.
func putDraft(tx store.Tx, site *store.Site, p *doc.Page, basedOn time.Time) (*store.Draft, error) {
	if err := doc.CheckSizes(p); err != nil {
		return nil, err
	}
	data, err := p.Encode()
	if err != nil {
		return nil, fmt.Errorf("pages: encode draft of %s: %w", p.ID, err)
	}
	d := &store.Draft{ID: cms.NewID(tx.Now()), SiteID: site.ID, PageID: p.ID, BasedOn: basedOn, Content: data, CreatedAt: tx.Now(), UpdatedAt: tx.Now()}
	if err := tx.Drafts().Put(d); err != nil {
		return nil, err
	}
	return d, nil
}

// draftOrLive returns the page's draft, or a fresh draft state copied from
// live (with its base) when there is none.
func draftOrLive(tx store.Tx, site *store.Site, live *doc.Page) (*doc.Page, time.Time, error) {
	d, dp, err := loadDraft(tx, site, live.ID)
	if cms.IsCode(err, cms.ENotFound) {
		return live.Clone(), live.UpdatedAt, nil
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	return dp, d.BasedOn, nil
}

// renderDraft renders a draft document.
func (s *Service) renderDraft(tx store.Tx, site *store.Site, d *store.Draft, p *doc.Page, opt ReadOptions) ([]byte, error) {
	tpl, err := s.templateInfo(tx, site, p.Template)
	if err != nil {
		return nil, err
	}
	v := s.view(site, p, tpl, ReadOptions{Locale: opt.Locale, Compact: opt.Compact, ClientVersion: opt.ClientVersion})
	return view.RenderDraft(nil, view.DraftInfo{ID: d.ID, PageID: d.PageID, UpdatedAt: d.UpdatedAt}, p, v)
}

// GetDraft returns the draft document of the page ref names. ENotFound
// when the page has no draft.
func (s *Service) GetDraft(ctx context.Context, site *store.Site, ref string, opt ReadOptions) ([]byte, error) {
	if err := checkDrafts(site); err != nil {
		return nil, err
	}
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, err
	}
	var out []byte
	err := s.Store.View(ctx, func(tx store.Tx) error {
		id, err := s.resolveRef(tx, site, ref, opt.Locale)
		if err != nil {
			return err
		}
		d, p, err := loadDraft(tx, site, id)
		if err != nil {
			return err
		}
		out, err = s.renderDraft(tx, site, d, p, opt)
		return err
	})
	return out, err
}

// applySlugToLive applies the slugs of a draft write to the live page at
// once (the spec's rule: slugs are not draftable), saving and archiving it,
// and returns the saved live page. Failures are 422 slug_apply_failed.
func (s *Service) applySlugToLive(tx store.Tx, site *store.Site, rec *store.PageRecord, live *doc.Page, body map[string]any, locale string) (*doc.Page, error) {
	tpl, err := s.templateInfo(tx, site, live.Template)
	if err != nil {
		return nil, err
	}
	res, err := edit.Apply(live, body, edit.ApplyOptions{Template: tpl, DefaultLocale: site.DefaultLocale, Locales: site.Locales,
		Locale: locale, Now: tx.Now(), Resolver: &writeResolver{s: s, tx: tx, site: site}, Refs: &refChecker{tx: tx, site: site}})
	if err == nil {
		err = s.save(tx, site, rec, res.Page, false, false)
	}
	var ce *cms.Error
	if errors.As(err, &ce) && ce.Code != cms.EConcurrentMod {
		return nil, cms.Errorf(ESlugApplyFailed, "The slug could not be applied to the live page: %s", ce.Message)
	} else if err != nil {
		return nil, err
	}
	return res.Page, s.archive(tx, site, res.Page, history.VersionLiveSave)
}

// SaveDraft applies a draft save body (POST/PUT/PATCH /draft) to the page's
// draft, creating it from live when there is none. Non-draftable keys are
// dropped, except slugs, which are applied to the live page immediately and
// re-base the draft.
func (s *Service) SaveDraft(ctx context.Context, site *store.Site, ref string, body []byte, opt WriteOptions) ([]byte, error) {
	if err := checkDrafts(site); err != nil {
		return nil, err
	}
	values, err := edit.DecodeBody(body)
	if err != nil {
		return nil, err
	}
	if err := cms.CheckContentLocale(opt.Locale, site.Locales); err != nil {
		return nil, err
	}
	parts, err := history.DraftableBody(values)
	if err != nil {
		return nil, err
	}
	id, err := s.lookup(ctx, site, ref, opt.Locale)
	if err != nil {
		return nil, err
	}
	var out []byte
	var fv *files.Writer
	err = s.withPage(ctx, site, id, false, cms.EConcurrentModBatch, func(tx store.Tx, rec *store.PageRecord, live *doc.Page) error {
		fv = s.Files.Writer(ctx, tx, site, opt.Caller, false)
		draft, basedOn, err := draftOrLive(tx, site, live)
		if err != nil {
			return err
		}
		if parts.Live != nil {
			current := basedOn.Equal(live.UpdatedAt)
			if live, err = s.applySlugToLive(tx, site, rec, live, parts.Live, opt.Locale); err != nil {
				return err
			}
			basedOn = history.RebasedOn(basedOn, current, live)
		}
		history.Rebase(draft, live)
		tpl, err := s.templateInfo(tx, site, draft.Template)
		if err != nil {
			return err
		}
		res, err := edit.Apply(draft, parts.Draft, edit.ApplyOptions{Template: tpl, DefaultLocale: site.DefaultLocale, Locales: site.Locales,
			Locale: opt.Locale, Now: tx.Now(), Resolver: &writeResolver{s: s, tx: tx, site: site}, Refs: &refChecker{tx: tx, site: site}, Files: fv})
		if err != nil {
			return err
		}
		d, err := putDraft(tx, site, res.Page, basedOn)
		if err != nil {
			return err
		}
		out, err = s.renderDraft(tx, site, d, res.Page, ReadOptions{Locale: opt.Locale})
		return err
	})
	fv.Finish(err == nil)
	return out, err
}

// DeleteDraft discards the page's draft. ENotFound when there is none.
func (s *Service) DeleteDraft(ctx context.Context, site *store.Site, ref string) error {
	if err := checkDrafts(site); err != nil {
		return err
	}
	id, err := s.lookup(ctx, site, ref, "")
	if err != nil {
		return err
	}
	return s.withPage(ctx, site, id, false, cms.EConcurrentModBatch, func(tx store.Tx, _ *store.PageRecord, _ *doc.Page) error {
		return tx.Drafts().Delete(site.ID, id)
	})
}

// DraftBatch runs batch operations on the page's draft, creating it when
// there is none: all or nothing (422 operation_failed with the results when
// any fails). A slug set is applied to the live page at once.
func (s *Service) DraftBatch(ctx context.Context, site *store.Site, ref string, body []byte, locale string, caller files.Caller) (results []edit.OpResult, draft []byte, err error) {
	if err := checkDrafts(site); err != nil {
		return nil, nil, err
	}
	if err := cms.CheckContentLocale(locale, site.Locales); err != nil {
		return nil, nil, err
	}
	ops, err := edit.DecodeOperations(body)
	if err != nil {
		return nil, nil, err
	}
	id, err := s.lookup(ctx, site, ref, locale)
	if err != nil {
		return nil, nil, err
	}
	var fv *files.Writer
	err = s.withPage(ctx, site, id, false, cms.EConcurrentModBatch, func(tx store.Tx, rec *store.PageRecord, live *doc.Page) error {
		fv = s.Files.Writer(ctx, tx, site, caller, false)
		dp, basedOn, err := draftOrLive(tx, site, live)
		if err != nil {
			return err
		}
		tpl, err := s.templateInfo(tx, site, dp.Template)
		if err != nil {
			return err
		}
		res, err := edit.ApplyBatch(dp, ops, edit.BatchOptions{Template: tpl, DefaultLocale: site.DefaultLocale, Locales: site.Locales,
			Locale: locale, Now: tx.Now(), Refs: &refChecker{tx: tx, site: site}, Files: fv})
		if err != nil {
			return err
		}
		results = res.Results
		if res.Failed() > 0 {
			return cms.Errorf(edit.EOperationFailed, "Draft batch failed").WithField("results", res.Results)
		}
		np := res.Page
		if len(res.SlugChanged) > 0 {
			slugs := map[string]any{}
			for _, l := range res.SlugChanged {
				slugs[l] = map[string]any{"slug": np.Slug.Get(l, site.DefaultLocale)}
			}
			current := basedOn.Equal(live.UpdatedAt)
			if live, err = s.applySlugToLive(tx, site, rec, live, map[string]any{"translations": slugs}, ""); err != nil {
				return err
			}
			basedOn = history.RebasedOn(basedOn, current, live)
		}
		history.Rebase(np, live)
		d, err := putDraft(tx, site, np, basedOn)
		if err != nil {
			return err
		}
		draft, err = s.renderDraft(tx, site, d, np, ReadOptions{Locale: locale})
		return err
	})
	fv.Finish(err == nil)
	if err != nil {
		return nil, nil, err
	}
	return results, draft, nil
}

// PublishDraft replaces the live content with the draft's, removes the
// draft and archives a draft_publish version. When live changed after the
// draft was based, publishing needs confirm (else 409 draft_base_changed).
func (s *Service) PublishDraft(ctx context.Context, site *store.Site, ref string, confirm bool) (*doc.Page, error) {
	if err := checkDrafts(site); err != nil {
		return nil, err
	}
	id, err := s.lookup(ctx, site, ref, "")
	if err != nil {
		return nil, err
	}
	var saved *doc.Page
	err = s.withPage(ctx, site, id, false, cms.EConcurrentMod, func(tx store.Tx, rec *store.PageRecord, live *doc.Page) error {
		d, dp, err := loadDraft(tx, site, id)
		if err != nil {
			return err
		}
		if !d.BasedOn.Equal(live.UpdatedAt) && !confirm {
			return cms.Errorf(EDraftBaseChanged, "The live page changed after the draft was started; publish with {\"confirm\": true} to replace it")
		}
		np := history.PublishDraft(live, dp, tx.Now())
		if tpl, err := s.templateInfo(tx, site, np.Template); err != nil {
			return err
		} else if edit.NeedsSync(np, tpl) {
			edit.Sync(np, tpl, tx.Now())
		}
		if err := s.save(tx, site, rec, np, false, false); err != nil {
			return err
		}
		if err := tx.Drafts().Delete(site.ID, id); err != nil {
			return err
		}
		saved = np
		if err := s.archive(tx, site, np, history.VersionDraftPublish); err != nil {
			return err
		}
		return sitevents.AppendPage(tx, site.ID, sitevents.DraftPublished, np.ID, eventPath(site, np))
	})
	return saved, err
}

// RestoreVersion puts a version's content into the page's draft (created
// or overwritten, based on the current live page); live is unchanged.
func (s *Service) RestoreVersion(ctx context.Context, site *store.Site, ref, versionID string) ([]byte, error) {
	if err := checkDrafts(site); err != nil {
		return nil, err
	}
	id, err := s.lookup(ctx, site, ref, "")
	if err != nil {
		return nil, err
	}
	var out []byte
	err = s.withPage(ctx, site, id, false, cms.EConcurrentModBatch, func(tx store.Tx, _ *store.PageRecord, live *doc.Page) error {
		_, vp, err := loadVersion(tx, site, id, versionID)
		if err != nil {
			return err
		}
		dp := history.PublishDraft(live, vp, tx.Now())
		dp.UpdatedAt = live.UpdatedAt
		d, err := putDraft(tx, site, dp, live.UpdatedAt)
		if err != nil {
			return err
		}
		out, err = s.renderDraft(tx, site, d, dp, ReadOptions{})
		return err
	})
	return out, err
}

// PreviewToken issues a preview token for the page ref names and the
// site-relative URL that shows the preview.
func (s *Service) PreviewToken(ctx context.Context, site *store.Site, ref string) (token, previewURL string, err error) {
	if err := checkDrafts(site); err != nil {
		return "", "", err
	}
	err = s.Store.View(ctx, func(tx store.Tx) error {
		p, _, err := s.load(tx, site, ref, "")
		if err != nil {
			return err
		}
		if token, err = IssuePreviewToken(site, p.ID, tx.Now()); err != nil {
			return err
		}
		previewURL = "/" + p.Fullpath[site.DefaultLocale] + "?preview=" + url.QueryEscape(token)
		return nil
	})
	return token, previewURL, err
}

// Preview decides what a preview token shows of the page ref names: the
// current draft when there is one ("draft"), else the live page even when
// unpublished ("live"). Expired, forged, other-site and other-page tokens
// are 401.
func (s *Service) Preview(ctx context.Context, site *store.Site, ref, token string) (mode string, p *doc.Page, err error) {
	err = s.Store.View(ctx, func(tx store.Tx) error {
		granted, err := ParsePreviewToken(site, token, tx.Now())
		if err != nil {
			return err
		}
		live, _, err := s.load(tx, site, ref, "")
		if err != nil {
			return err
		}
		if live.ID != granted {
			return errBadPreview
		}
		_, dp, err := loadDraft(tx, site, live.ID)
		switch {
		case cms.IsCode(err, cms.ENotFound):
			mode, p = "live", live
			return nil
		case err != nil:
			return err
		}
		history.Rebase(dp, live)
		mode, p = "draft", dp
		return nil
	})
	return mode, p, err
}
