package pages

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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// Batch limits.
const (
	// MaxOperations is the most operations one batch may hold.
	MaxOperations = 10
)

// Batch operation names.
const (
	OpSet    = "set"
	OpInsert = "insert"
	OpDelete = "delete"
	OpMove   = "move"
)

// Batch result statuses.
const (
	StatusOK    = "ok"
	StatusError = "error"
)

// Batch-level codes (besides cms.EInvalid, cms.EPreconditionRequired,
// cms.EPreconditionFailed, cms.EValidationFailed, cms.EConcurrentMod and
// cms.EServiceUnavailable).
const (
	EEmptyBatch      = "empty_batch"
	EBatchTooLarge   = "batch_too_large"
	EAtomicFailure   = "atomic_failure"
	EOperationFailed = "operation_failed" // draft batch: any op failed
)

// Per-operation codes (besides those errors.go declares, cms.ENotFound,
// cms.EUnauthorized, cms.EValidationFailed and the theme codes).
const (
	EUnknownOperation       = "unknown_operation"
	EMissingValue           = "missing_value"
	EInvalidTarget          = "invalid_target"
	EInvalidField           = "invalid_field"
	EInvalidContainerValue  = "invalid_container_value"
	EInvalidContainerParent = "invalid_container_parent"
	EInvalidBoolean         = "invalid_boolean"
	EInvalidOperation       = "invalid_operation"
	EInvalidSwitchValue     = "invalid_switch_value"
	EInvalidSelectValue     = "invalid_select_value"
	EInvalidReferenceFormat = "invalid_reference_format"
	ESetFailed              = "set_failed"
	EInvalidSlug            = "invalid_slug"
	EInvalidInsertPath      = "invalid_insert_path"
	ENotACanvas             = "not_a_canvas"
	EInsertFailed           = "insert_failed"
	EInvalidDeleteTarget    = "invalid_delete_target"
	EDeleteFailed           = "delete_failed"
	EInvalidMoveTarget      = "invalid_move_target"
	EMoveFailed             = "move_failed"
)

// ReferenceChecker tells whether reference targets exist. The service
// implements it on top of its transaction.
type ReferenceChecker interface {
	// Exists returns the ids among ids (lower-case object ids, no
	// duplicates) that name no record of refType ("pages",
	// "channels.articles", as in themes.Editable.Reference). A *cms.Error
	// becomes the operation's error; any other error aborts the batch.
	Exists(refType string, ids []string) (missing []string, err error)
}

// FileValues stores the files batch and PUT writes bring (a *files.Writer
// in the service). A *cms.Error becomes the operation's error: for FileRef
// sources unauthorized, not_found, gone, validation_failed or copy_failed;
// for bytes and URLs invalid_content_type, file_too_large or
// invalid_file_format. Any other error aborts the batch.
type FileValues interface {
	Store(v files.Value, private bool) (*files.File, error)
}

// BatchOptions are the inputs of ApplyBatch besides the page and operations.
type BatchOptions struct {
	// Template is the page's template as the theme defines it now; nil when
	// the page has none or the theme lacks it (no item path resolves then).
	Template *doc.TemplateInfo
	// DefaultLocale and Locales are the site's default and enabled locales.
	DefaultLocale string
	Locales       []string
	// Locale is query content_locale: every localized write (page text
	// fields, item content and files) goes to it; "" writes the default.
	Locale string
	// Now is the time of the write.
	Now time.Time
	// Refs checks reference targets; nil accepts no reference.
	Refs ReferenceChecker
	// Files stores file values; nil refuses every upload, URL and FileRef.
	Files FileValues
}

// OpError is a failed operation's error object.
type OpError struct {
	Code    string
	Message string
}

// OpResult is the result of one operation.
type OpResult struct {
	Index  int
	Status string // StatusOK or StatusError
	// Path is the path as sent; for a successful insert the new block's
	// path (the canvas path as sent plus "/" and the new id).
	Path    string
	ID      string // the new block's id, insert only
	Warning string
	Error   *OpError // nil on success
}

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
	b := &batch{opt: opt, def: opt.DefaultLocale, locale: opt.Locale, now: opt.Now}
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

type batch struct {
	opt    BatchOptions
	def    string
	locale string
	now    time.Time
	eds    []*themes.Editable
}

// opState collects what one operation did; it is kept only when the
// operation succeeds.
type opState struct {
	res      OpResult
	changed  bool
	slug     bool
	warnings []string
}

func (b *batch) apply(w *doc.Page, op *Operation, st *opState) error {
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

// decodeRaw decodes a raw operation member, numbers as json.Number.
func decodeRaw(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errInvalid("Invalid JSON value: %v", err)
	}
	return v, nil
}

// located is what an item path resolves to, with the template definitions.
type located struct {
	// canvases and reps enclose the target, outermost first.
	canvases []*doc.Item
	reps     []*doc.Repeatable
	// item and ed are a PathItem's target and its editable.
	item *doc.Item
	ed   *themes.Editable
	// canvas and canvasEd are the canvas of a PathRepeatable(s).
	canvas   *doc.Item
	canvasEd *themes.Editable
	// rep is a PathRepeatable's block.
	rep *doc.Repeatable
}

// touch bumps the updated_at of every block and canvas enclosing the
// target (and of the canvas of a repeatable path).
func (l *located) touch(now time.Time) {
	for _, c := range l.canvases {
		c.UpdatedAt = now
	}
	for _, r := range l.reps {
		r.UpdatedAt = now
	}
	if l.canvas != nil {
		l.canvas.UpdatedAt = now
	}
}

// locate resolves an item path against the page and the template. Errors
// are path_not_found; notCanvas reports that the last container of a
// repeatable path is an item but not a canvas.
func (b *batch) locate(p *doc.Page, pt doc.Path) (l *located, notCanvas bool, err error) {
	l = &located{}
	items, eds := p.Items, b.eds
	for _, br := range pt.Blocks {
		it, ed, err := lookupItem(items, eds, br.Canvas)
		if err != nil {
			return nil, false, err
		}
		if it.Type != themes.TypeCanvas {
			return nil, false, doc.PathError("Item '%s' is not a canvas", br.Canvas)
		}
		rep := it.Repeatable(br.ID)
		if rep == nil || rep.Disabled || ed.Block(rep.Slug) == nil {
			return nil, false, doc.PathError("Repeatable %s not found in canvas '%s'", br.ID, br.Canvas)
		}
		l.canvases = append(l.canvases, it)
		l.reps = append(l.reps, rep)
		items, eds = rep.Items, ed.Block(rep.Slug).Editables
	}
	it, ed, err := lookupItem(items, eds, pt.Slug)
	if err != nil {
		return nil, false, err
	}
	if pt.Kind == doc.PathItem {
		l.item, l.ed = it, ed
		return l, false, nil
	}
	if it.Type != themes.TypeCanvas {
		return nil, true, doc.PathError("Item '%s' is not a canvas", pt.Slug)
	}
	l.canvas, l.canvasEd = it, ed
	if pt.Kind == doc.PathRepeatable {
		rep := it.Repeatable(pt.ID)
		if rep == nil || rep.Disabled {
			return nil, false, doc.PathError("Repeatable %s not found in canvas '%s'", pt.ID, pt.Slug)
		}
		l.rep = rep
	}
	return l, false, nil
}

// lookupItem finds the enabled item slug that the template defines.
func lookupItem(items []*doc.Item, eds []*themes.Editable, slug string) (*doc.Item, *themes.Editable, error) {
	ed := themes.FindEditable(eds, slug)
	if ed == nil {
		return nil, nil, doc.PathError("Item '%s' is not defined by the template", slug)
	}
	it := doc.FindItem(items, slug)
	if it == nil || it.Disabled || it.Type != ed.Type {
		return nil, nil, doc.PathError("Item '%s' not found", slug)
	}
	return it, ed, nil
}
