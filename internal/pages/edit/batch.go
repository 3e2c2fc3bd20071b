package edit

// The batch engine: POST /pages/{id}/batch (and the draft batch) apply up to
// ten targeted operations (set, insert, delete, move) to one page. The engine
// is pure: DecodeOperations reads the request body, ApplyBatch applies the
// operations to a copy of a page and reports one result per operation,
// AppendResults writes those results. The service checks If-Match, locks,
// loads, calls ApplyBatch, decides atomic versus non-atomic from the results,
// and saves.
//
// Decisions where the spec is silent:
//
//   - An element of operations that is not an object is a per-operation
//     unknown_operation, not a batch-level error; so is a missing op.
//   - Checks run syntax first: op, path grammar, the path kind the op
//     accepts, value presence; then the target; then the value.
//   - A page field, item and repeatable value that has the wrong JSON type
//     and no specific code is validation_failed (set) or insert_failed
//     (insert). Set codes that the spec does not list for insert (bad
//     switch or select content) are insert_failed on insert.
//   - /published with a value outside the switch set is invalid_boolean;
//     a switch item is invalid_switch_value. null is not in the switch set.
//   - field/text/switch/select accept {content: v} as well as v. Text page
//     fields and field/text items take a string or null (null writes "").
//   - Select: the value matches an option value ignoring case, then an
//     option label ignoring case; the option's value is stored. Blank
//     (whitespace only) or null clears.
//   - A reference set is checked through ReferenceChecker; without one no
//     reference can be written (reference_not_found), clearing still works.
//     A single reference given more than one id is invalid_reference_format;
//     a string or array element that is not a 24-hex id is
//     invalid_reference_id; reference_slug(s) and any other shape are
//     invalid_reference_format.
//   - File values: null or {remove: true} clears, a {url} or bare string
//     equal to the current file URL changes nothing; uploads ({data} or the
//     PUT {attachment}), FileRef copies ({__type: FileRef, source} or any
//     {source}) and remote URLs (absolute http or https) go to FileValues.
//     An upload needs a filename; base64 may be padded or not, standard or
//     URL alphabet, with white space; an empty file is invalid_file_format.
//     A bad service:// URI is validation_failed (the spec's FileRef code).
//   - Repeatable set: {slug, position} with at least one of them; items in
//     the value are invalid_container_value (set each item by its path);
//     other keys are ignored. A repeatable path whose container is not a
//     canvas is invalid_container_parent (set), invalid_delete_target and
//     invalid_move_target; set on .../repeatables is invalid_target.
//   - Positions: after insert, delete, move or a position set, the
//     canvas's enabled blocks are numbered 1..n in order and disabled
//     blocks follow. Position set is clamped to n. Blocks whose position
//     changes get updated_at now.
//   - A change bumps the updated_at of the item or block changed and of
//     every enclosing block and canvas, as PUT does.
//   - Insert: value.items values for references and canvases are not
//     written; a non-empty one adds a warning instead. A move after
//     itself is a no-op. The unknown-anchor warning of move reads as the
//     insert one. Several warnings are joined with "; ".
//   - Insert slugs with '<', '>', '{', '}', '"', '\', control characters,
//     invalid UTF-8, leading or trailing space, or over 255 bytes are
//     invalid_slug; a missing or blank one is missing_slug.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
)

// Batch operation names.
const (
	OpSet    = "set"
	OpInsert = "insert"
	OpDelete = "delete"
	OpMove   = "move"
)

// BatchResult is the outcome of ApplyBatch.
type BatchResult struct {
	// Page is the page after every successful operation. The page given to
	// ApplyBatch is untouched.
	Page *doc.Page
	// Results holds one result per operation, in order.
	Results []OpResult
	// Changed reports whether a successful operation changed the document;
	// Page.UpdatedAt then moved (cms.NextUpdatedAt). Unchanged pages need
	// no save.
	Changed bool
	// Synced reports whether Page was re-synced against the template
	// before the operations ran (NeedsSync). It is saved only with a change.
	Synced bool
	// SlugChanged lists the locales whose slug changed: the service
	// recomputes their fullpaths and cascades them to descendants.
	SlugChanged []string
}

// Failed returns how many operations failed.
func (r *BatchResult) Failed() int {
	n := 0
	for _, res := range r.Results {
		if res.Status != StatusOK {
			n++
		}
	}
	return n
}

// workingCopy returns the copy of cur that one operation works on, so that
// a failed operation leaves cur as it was. Only what the operation's path
// can reach is copied deeply (the top-level item it names, or the page's
// translated fields); the rest is shared. A 10-operation batch on a large
// page therefore does not copy the whole page ten times. A path that does
// not parse gets a full copy.
func workingCopy(cur *doc.Page, path string) *doc.Page {
	pp, err := doc.ParsePath(path)
	if err != nil {
		return cur.Clone()
	}
	w := *cur
	if pp.Kind == doc.PathField {
		w.Title, w.Slug, w.Fullpath = doc.CloneText(cur.Title), doc.CloneText(cur.Slug), doc.CloneText(cur.Fullpath)
		w.SEOTitle, w.SEODescription, w.SEOKeywords = doc.CloneText(cur.SEOTitle), doc.CloneText(cur.SEODescription), doc.CloneText(cur.SEOKeywords)
		return &w
	}
	top := pp.Slug
	if len(pp.Blocks) > 0 {
		top = pp.Blocks[0].Canvas
	}
	w.Items = slices.Clone(cur.Items)
	for i, it := range w.Items {
		if it.Slug == top {
			w.Items[i] = it.Clone()
		}
	}
	return &w
}

// ApplyBatch applies ops in order to a copy of p. Each operation succeeds
// or fails on its own: a failed one leaves the document as it was before
// it, later ones still run. p itself is never modified. The page is first
// re-synced against opt.Template when NeedsSync says so.
//
// The returned error is batch-level: empty_batch, batch_too_large, the
// message-only content_locale 422, or an error of opt.Refs or opt.Files
// that is not a *cms.Error (wrapped). Per-operation errors are in the
// results, with the codes the spec lists for the operation.
func ApplyBatch(p *doc.Page, ops []Operation, opt BatchOptions) (*BatchResult, error) {
	if err := checkCount(len(ops)); err != nil {
		return nil, err
	}
	if err := cms.CheckContentLocale(opt.Locale, opt.Locales); err != nil {
		return nil, err
	}
	b := &batchRun{opt: opt, def: opt.DefaultLocale, locale: opt.Locale, now: opt.Now}
	if b.def == "" && len(opt.Locales) > 0 {
		b.def = opt.Locales[0]
	}
	if b.locale == "" {
		b.locale = b.def
	}
	b.eds = opt.Template.Editables()
	cur := p.Clone()
	res := &BatchResult{Results: make([]OpResult, 0, len(ops))}
	if NeedsSync(cur, opt.Template) {
		Sync(cur, opt.Template, opt.Now)
		res.Synced = true
	}
	for i := range ops {
		op := &ops[i]
		w := workingCopy(cur, op.Path)
		st := &opState{res: OpResult{Index: op.Index, Path: op.Path}}
		err := b.apply(w, op, st)
		if err != nil {
			var ce *cms.Error
			if !errors.As(err, &ce) {
				return nil, fmt.Errorf("pages: batch operation %d: %w", op.Index, err)
			}
			res.Results = append(res.Results, OpResult{
				Index: op.Index, Status: StatusError, Path: op.Path,
				Error: &OpError{Code: opCode(op.Op, cms.Wire(ce.Code)), Message: ce.Message},
			})
			continue
		}
		cur = w
		st.res.Status = StatusOK
		st.res.Warning = strings.Join(st.warnings, "; ")
		res.Results = append(res.Results, st.res)
		res.Changed = res.Changed || st.changed
		if st.slug && !slices.Contains(res.SlugChanged, b.locale) {
			res.SlugChanged = append(res.SlugChanged, b.locale)
		}
	}
	if res.Changed {
		cur.UpdatedAt = cms.NextUpdatedAt(p.UpdatedAt, opt.Now)
	}
	res.Page = cur
	return res, nil
}

// opCodes are the per-operation codes the spec lists, by op ("" for any).
var opCodes = map[string][]string{
	"": {doc.EPathNotFound, EUnknownOperation},
	OpSet: {EMissingValue, EInvalidTarget, EInvalidField, EInvalidPosition, EInvalidContainerValue,
		EInvalidContainerParent, cms.ERepeatableNotInTheme, EInvalidBoolean, EInvalidOperation,
		EInvalidSwitchValue, EInvalidSelectValue, EInvalidReferenceFormat, EInvalidReferenceID,
		EReferenceNotFound, files.EInvalidFileFormat, files.EInvalidBase64, files.EFileTooLarge, files.EInvalidContentType,
		cms.EValidationFailed, ESetFailed,
		cms.EUnauthorized, cms.ENotFound, files.EGone, files.ECopyFailed},
	OpInsert: {EMissingValue, EMissingSlug, EInvalidSlug, EInvalidInsertPath, ENotACanvas,
		cms.ERepeatableNotInTheme, cms.EEditableNotInTheme, files.EInvalidFileFormat, files.EInvalidBase64,
		files.EFileTooLarge, files.EInvalidContentType, EInsertFailed,
		cms.EUnauthorized, cms.ENotFound, files.EGone, cms.EValidationFailed, files.ECopyFailed},
	OpDelete: {EInvalidDeleteTarget, EDeleteFailed},
	OpMove:   {EInvalidMoveTarget, EMoveFailed},
}

// opCode maps a wire code to one the spec lists for op: codes it does not list
// become the op's generic failure code.
func opCode(op, code string) string {
	if slices.Contains(opCodes[""], code) || slices.Contains(opCodes[op], code) {
		return code
	}
	switch op {
	case OpSet:
		return ESetFailed
	case OpInsert:
		return EInsertFailed
	case OpDelete:
		return EDeleteFailed
	case OpMove:
		return EMoveFailed
	}
	return EUnknownOperation
}

func (b *batchRun) apply(w *doc.Page, op *Operation, st *opState) error {
	switch op.Op {
	case OpSet, OpInsert, OpDelete, OpMove:
	case "":
		return err422(EUnknownOperation, "An operation is an object with op (set, insert, delete or move) and path")
	default:
		return err422(EUnknownOperation, "Unknown operation '%s': use set, insert, delete or move", op.Op)
	}
	if op.Path == "" {
		return doc.PathError("The operation has no path")
	}
	path, err := doc.ParsePath(op.Path)
	if err != nil {
		return err
	}
	switch op.Op {
	case OpSet:
		return b.set(w, op, path, st)
	case OpInsert:
		return b.insert(w, op, path, st)
	case OpDelete:
		return b.delete(w, path, st)
	}
	return b.move(w, op, path, st)
}
