package pages

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/pages/edit"
	"github.com/tessera-cms/tessera/internal/pages/history"
	"github.com/tessera-cms/tessera/internal/store"
)

// BatchRequest holds the query flags and If-Match header of a live batch.
type BatchRequest struct {
	Atomic  bool
	DryRun  bool
	Locale  string // content_locale
	IfMatch string
	// Caller decides whether FileRef copies are allowed.
	Caller files.Caller
}

// BatchOutcome is what a batch did.
type BatchOutcome struct {
	Results []edit.OpResult
	// Page is the page after the batch (as saved, or for a dry run as it
	// would be saved).
	Page *doc.Page
	// ETag and UpdatedAt are the page's after the batch; for a dry run, the
	// current ones.
	ETag      string
	UpdatedAt time.Time
	// Valid is false in a dry run when an operation failed or the page
	// would not save; ValidationError is then the reason the save would fail.
	Valid           bool
	ValidationError error
}

// Batch codes of the spec's batch-level table.
var (
	errIfMatchRequired = cms.Errorf(cms.EPreconditionRequired, "If-Match header is required")
)

// Batch runs a live batch on the page ref names: up to MaxOperations
// path-addressed operations under the page's write lock, saved with
// compare-and-swap. Without Atomic, successful operations are saved even
// when others fail; with it, any failure saves nothing (422 atomic_failure).
// A dry run validates everything, saves nothing and needs no If-Match.
func (s *Service) Batch(ctx context.Context, site *store.Site, ref string, body []byte, req BatchRequest) (*BatchOutcome, error) {
	if err := cms.CheckContentLocale(req.Locale, site.Locales); err != nil {
		return nil, err
	}
	id, err := s.lookup(ctx, site, ref, req.Locale)
	if err != nil {
		return nil, err
	}
	if !req.DryRun && strings.TrimSpace(req.IfMatch) == "" {
		return nil, errIfMatchRequired
	}
	ops, err := edit.DecodeOperations(body)
	if err != nil {
		return nil, err
	}
	var out *BatchOutcome
	var fv *files.Writer
	err = s.withPage(ctx, site, id, req.DryRun, cms.EConcurrentModBatch, func(tx store.Tx, rec *store.PageRecord, p *doc.Page) error {
		fv = s.Files.Writer(ctx, tx, site, req.Caller, req.DryRun)
		if strings.TrimSpace(req.IfMatch) != "" || !req.DryRun {
			if err := CheckIfMatch(req.IfMatch, p.ETag()); err != nil {
				return err
			}
		}
		tpl, err := s.templateInfo(tx, site, p.Template)
		if err != nil {
			return err
		}
		res, err := edit.ApplyBatch(p, ops, edit.BatchOptions{
			Template: tpl, DefaultLocale: site.DefaultLocale, Locales: site.Locales, Locale: req.Locale,
			Now: tx.Now(), Refs: &refChecker{tx: tx, site: site}, Files: fv,
		})
		if err != nil {
			return err
		}
		out = &BatchOutcome{Results: res.Results, Page: p, ETag: p.ETag(), UpdatedAt: p.UpdatedAt, Valid: res.Failed() == 0}
		if req.Atomic && res.Failed() > 0 && !req.DryRun {
			return cms.Errorf(edit.EAtomicFailure, "Batch failed: %d of %d operations failed; nothing was saved", res.Failed(), len(ops)).
				WithField("results", res.Results)
		}
		if res.Changed {
			if err := s.save(tx, site, rec, res.Page, false, false); err != nil {
				if !req.DryRun || !isValidation(err) {
					return batchSaveError(err)
				}
				out.Valid, out.ValidationError = false, err
			}
			out.Page = res.Page
		}
		if req.DryRun {
			return errDryRun // roll back whatever was written while validating
		}
		out.ETag, out.UpdatedAt = out.Page.ETag(), out.Page.UpdatedAt
		if !res.Changed {
			return nil
		}
		return s.archive(tx, site, out.Page, history.VersionLiveSave)
	})
	fv.Finish(err == nil && !req.DryRun)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// isValidation reports whether a save failed because the page would not
// be valid (rather than because of a conflict or an internal error).
func isValidation(err error) bool {
	var e *cms.Error
	return errors.As(err, &e) && e.Code == cms.EValidationFailed
}

// batchSaveError maps a failed save to the spec's batch-level codes: a
// page changed since it was read is 422 concurrent_modification, an invalid
// page 422 validation_failed.
func batchSaveError(err error) error {
	switch {
	case errors.Is(err, store.ErrStale):
		return cms.Errorf(cms.EConcurrentModBatch, "The page was changed by another request during the batch; nothing was saved")
	case isValidation(err):
		return cms.Errorf(cms.EValidationFailed, "%s", cms.ErrorMessage(err))
	}
	return err
}
