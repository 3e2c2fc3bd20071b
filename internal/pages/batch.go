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
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/jsonw"
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

// Operation is one element of a batch's operations array, as sent.
type Operation struct {
	// Index is the operation's 0-based place in the array.
	Index int
	// Op is the op string; "" when absent, not a string, or the element is
	// not an object.
	Op string
	// Path is the path string as sent; "" when absent or not a string.
	Path string
	// Value and After are the raw JSON of value and after: nil when the key
	// is absent, "null" when it is null.
	Value json.RawMessage
	After json.RawMessage
}

// HasValue reports whether the operation carries a value key (possibly null).
func (o *Operation) HasValue() bool { return o.Value != nil }

// HasAfter reports whether the operation carries an after key (possibly null).
func (o *Operation) HasAfter() bool { return o.After != nil }

// DecodeOperations decodes a batch request body {operations: [...]}.
// Errors are 422 *cms.Errors: invalid_request when the body is not one JSON
// object or operations is missing or not an array, empty_batch for an empty
// array, batch_too_large for more than MaxOperations. Everything about a
// single operation is left to ApplyBatch, which reports it per operation.
func DecodeOperations(body []byte) ([]Operation, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err422(cms.EInvalid, "Invalid JSON body: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, err422(cms.EInvalid, "Invalid JSON body: data after the object")
	}
	if jsonw.Kind(raw) != '{' {
		return nil, err422(cms.EInvalid, "The body must be a JSON object with an operations array")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err422(cms.EInvalid, "Invalid JSON body: %v", err)
	}
	opsRaw, ok := top["operations"]
	if !ok || jsonw.Kind(opsRaw) != '[' {
		return nil, err422(cms.EInvalid, "operations must be an array")
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(opsRaw, &elems); err != nil {
		return nil, err422(cms.EInvalid, "operations must be an array: %v", err)
	}
	if err := checkCount(len(elems)); err != nil {
		return nil, err
	}
	ops := make([]Operation, len(elems))
	for i, e := range elems {
		ops[i].Index = i
		if jsonw.Kind(e) != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e, &m); err != nil {
			continue // unreachable: the body decoded
		}
		ops[i].Op = jsonString(m["op"])
		ops[i].Path = jsonString(m["path"])
		if v, ok := m["value"]; ok {
			ops[i].Value = v
		}
		if v, ok := m["after"]; ok {
			ops[i].After = v
		}
	}
	return ops, nil
}

func checkCount(n int) error {
	switch {
	case n == 0:
		return err422(EEmptyBatch, "operations is empty")
	case n > MaxOperations:
		return err422(EBatchTooLarge, "A batch holds at most %d operations, got %d", MaxOperations, n)
	}
	return nil
}

// jsonString returns raw as a string when it is a JSON string, else "".
func jsonString(raw json.RawMessage) string {
	if jsonw.Kind(raw) != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

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
	Template *TemplateInfo
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
	Page *Page
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

// ApplyBatch applies ops in order to a copy of p. Each operation succeeds
// or fails on its own: a failed one leaves the document as it was before
// it, later ones still run. p itself is never modified. The page is first
// re-synced against opt.Template when NeedsSync says so.
//
// The returned error is batch-level: empty_batch, batch_too_large, the
// message-only content_locale 422, or an error of opt.Refs or opt.Files
// that is not a *cms.Error (wrapped). Per-operation errors are in the
// results, with the codes the spec lists for the operation.
// workingCopy returns the copy of cur that one operation works on, so that
// a failed operation leaves cur as it was. Only what the operation's path
// can reach is copied deeply (the top-level item it names, or the page's
// translated fields); the rest is shared. A 10-operation batch on a large
// page therefore does not copy the whole page ten times. A path that does
// not parse gets a full copy.
func workingCopy(cur *Page, path string) *Page {
	pp, err := ParsePath(path)
	if err != nil {
		return cur.Clone()
	}
	w := *cur
	if pp.Kind == PathField {
		w.Title, w.Slug, w.Fullpath = cloneText(cur.Title), cloneText(cur.Slug), cloneText(cur.Fullpath)
		w.SEOTitle, w.SEODescription, w.SEOKeywords = cloneText(cur.SEOTitle), cloneText(cur.SEODescription), cloneText(cur.SEOKeywords)
		return &w
	}
	top := pp.Slug
	if len(pp.Blocks) > 0 {
		top = pp.Blocks[0].Canvas
	}
	w.Items = slices.Clone(cur.Items)
	for i, it := range w.Items {
		if it.Slug == top {
			w.Items[i] = it.clone()
		}
	}
	return &w
}

func ApplyBatch(p *Page, ops []Operation, opt BatchOptions) (*BatchResult, error) {
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
	if s := opt.Template.schema(); s != nil {
		b.eds = s.Editables
	}
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
	"": {EPathNotFound, EUnknownOperation},
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

func (b *batch) apply(w *Page, op *Operation, st *opState) error {
	switch op.Op {
	case OpSet, OpInsert, OpDelete, OpMove:
	case "":
		return err422(EUnknownOperation, "An operation is an object with op (set, insert, delete or move) and path")
	default:
		return err422(EUnknownOperation, "Unknown operation '%s': use set, insert, delete or move", op.Op)
	}
	if op.Path == "" {
		return errPath("The operation has no path")
	}
	path, err := ParsePath(op.Path)
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
	canvases []*Item
	reps     []*Repeatable
	// item and ed are a PathItem's target and its editable.
	item *Item
	ed   *themes.Editable
	// canvas and canvasEd are the canvas of a PathRepeatable(s).
	canvas   *Item
	canvasEd *themes.Editable
	// rep is a PathRepeatable's block.
	rep *Repeatable
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
func (b *batch) locate(p *Page, pt Path) (l *located, notCanvas bool, err error) {
	l = &located{}
	items, eds := p.Items, b.eds
	for _, br := range pt.Blocks {
		it, ed, err := lookupItem(items, eds, br.Canvas)
		if err != nil {
			return nil, false, err
		}
		if it.Type != themes.TypeCanvas {
			return nil, false, errPath("Item '%s' is not a canvas", br.Canvas)
		}
		rep := it.Repeatable(br.ID)
		if rep == nil || rep.Disabled || ed.Block(rep.Slug) == nil {
			return nil, false, errPath("Repeatable %s not found in canvas '%s'", br.ID, br.Canvas)
		}
		l.canvases = append(l.canvases, it)
		l.reps = append(l.reps, rep)
		items, eds = rep.Items, ed.Block(rep.Slug).Editables
	}
	it, ed, err := lookupItem(items, eds, pt.Slug)
	if err != nil {
		return nil, false, err
	}
	if pt.Kind == PathItem {
		l.item, l.ed = it, ed
		return l, false, nil
	}
	if it.Type != themes.TypeCanvas {
		return nil, true, errPath("Item '%s' is not a canvas", pt.Slug)
	}
	l.canvas, l.canvasEd = it, ed
	if pt.Kind == PathRepeatable {
		rep := it.Repeatable(pt.ID)
		if rep == nil || rep.Disabled {
			return nil, false, errPath("Repeatable %s not found in canvas '%s'", pt.ID, pt.Slug)
		}
		l.rep = rep
	}
	return l, false, nil
}

// lookupItem finds the enabled item slug that the template defines.
func lookupItem(items []*Item, eds []*themes.Editable, slug string) (*Item, *themes.Editable, error) {
	ed := findEd(eds, slug)
	if ed == nil {
		return nil, nil, errPath("Item '%s' is not defined by the template", slug)
	}
	it := findItem(items, slug)
	if it == nil || it.Disabled || it.Type != ed.Type {
		return nil, nil, errPath("Item '%s' not found", slug)
	}
	return it, ed, nil
}

// --- set

func (b *batch) set(w *Page, op *Operation, pt Path, st *opState) error {
	if !op.HasValue() {
		return err422(EMissingValue, "set needs a value")
	}
	v, err := decodeRaw(op.Value)
	if err != nil {
		return err
	}
	switch pt.Kind {
	case PathField:
		return b.setField(w, pt.Field, v, st)
	case PathRepeatables:
		return err422(EInvalidTarget, "A canvas's block list cannot be set; insert, delete or move its blocks")
	}
	l, notCanvas, err := b.locate(w, pt)
	if err != nil {
		if notCanvas {
			return err422(EInvalidContainerParent, "Item '%s' is not a canvas; only canvas blocks can be set by id", pt.Slug)
		}
		return err
	}
	if pt.Kind == PathRepeatable {
		return b.setRepeatable(l, v, st)
	}
	changed, err := b.setItem(l.item, l.ed, v, st)
	if err != nil || !changed {
		return err
	}
	l.item.UpdatedAt = b.now
	l.touch(b.now)
	st.changed = true
	return nil
}

// settableFields are the page fields set may write.
const settableFields = "title, slug, seo_title, seo_description, seo_keywords, published"

func (b *batch) setField(w *Page, field string, v any, st *opState) error {
	var t *Text
	switch field {
	case "title":
		t = &w.Title
	case "seo_title":
		t = &w.SEOTitle
	case "seo_description":
		t = &w.SEODescription
	case "seo_keywords":
		t = &w.SEOKeywords
	case "slug":
		s, ok := asString(v)
		if !ok {
			return errInvalid("slug must be a string")
		}
		if s = cms.Slugify(s); s == "" {
			return errInvalid("slug can't be blank")
		}
		if w.Slug.set(b.locale, b.def, s) {
			st.changed, st.slug = true, true
		}
		return nil
	case "published":
		pub, ok := cms.Bool(v)
		if !ok {
			return err422(EInvalidBoolean, "published takes true, false, yes, no, 1, 0, on or off")
		}
		if w.Published != pub {
			w.Published = pub
			st.changed = true
		}
		return nil
	default:
		return err422(EInvalidField, "Field '%s' cannot be set; settable page fields: %s", field, settableFields)
	}
	s, ok := asString(v)
	if !ok {
		return errInvalid("%s must be a string", field)
	}
	if t.set(b.locale, b.def, s) {
		st.changed = true
	}
	return nil
}

// setItem writes v to an item and reports whether it changed.
func (b *batch) setItem(it *Item, ed *themes.Editable, v any, st *opState) (bool, error) {
	switch ed.Type {
	case themes.TypeCanvas:
		return false, err422(EInvalidOperation, "Canvas '%s' cannot be set; insert, delete or move its blocks", ed.Slug)
	case themes.TypeReference:
		return b.setReference(it, ed, v)
	case themes.TypeFile:
		return b.setFile(it, v, ed.Slug)
	}
	s, err := scalarValue(ed, v)
	if err != nil {
		return false, err
	}
	return it.Content.set(b.locale, b.def, s), nil
}

// scalarValue reads the content a field, text, switch or select value
// writes: the value itself or {content: value}.
func scalarValue(ed *themes.Editable, v any) (string, error) {
	bad := func() *cms.Error {
		switch ed.Type {
		case themes.TypeSwitch:
			return err422(EInvalidSwitchValue, "Switch '%s' takes true, false, yes, no, 1, 0, on or off", ed.Slug)
		case themes.TypeSelect:
			return err422(EInvalidSelectValue, "Select '%s' takes one of: %s", ed.Slug, optionList(ed))
		}
		return errInvalid("'%s' takes a string or {content}", ed.Slug)
	}
	if m, ok := v.(map[string]any); ok {
		cv, ok := m["content"]
		if !ok {
			return "", bad()
		}
		v = cv
	}
	switch ed.Type {
	case themes.TypeSwitch:
		on, ok := cms.Bool(v)
		if !ok {
			return "", bad()
		}
		if on {
			return "true", nil
		}
		return "false", nil
	case themes.TypeSelect:
		if v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", bad()
		}
		if strings.TrimSpace(s) == "" {
			return "", nil
		}
		if o := matchOption(ed, s); o != nil {
			return o.Value, nil
		}
		return "", bad()
	}
	s, ok := asString(v)
	if !ok {
		return "", bad()
	}
	return s, nil
}

// matchOption finds the select option whose value, else label, equals s
// ignoring case.
func matchOption(ed *themes.Editable, s string) *themes.Option {
	if o := ed.Option(s); o != nil {
		return o
	}
	for i := range ed.Options {
		if ed.Options[i].Label != "" && strings.EqualFold(ed.Options[i].Label, s) {
			return &ed.Options[i]
		}
	}
	return nil
}

func optionList(ed *themes.Editable) string {
	vals := make([]string, len(ed.Options))
	for i, o := range ed.Options {
		vals[i] = o.Value
	}
	return joinQuoted(vals)
}

func (b *batch) setReference(it *Item, ed *themes.Editable, v any) (bool, error) {
	ids, err := batchRefIDs(ed, v)
	if err != nil {
		return false, err
	}
	if !ed.Multiple && len(ids) > 1 {
		return false, err422(EInvalidReferenceFormat, "Reference '%s' takes a single id", ed.Slug)
	}
	if len(ids) > 0 {
		if b.opt.Refs == nil {
			return false, err422(EReferenceNotFound, "Reference '%s': references cannot be checked here", ed.Slug)
		}
		missing, err := b.opt.Refs.Exists(ed.Reference, ids)
		if err != nil {
			return false, fmt.Errorf("pages: check %s references: %w", ed.Reference, err)
		}
		if len(missing) > 0 {
			return false, err422(EReferenceNotFound, "Reference '%s': no %s with id %s", ed.Slug, ed.Reference, joinQuoted(missing))
		}
	} else {
		ids = nil
	}
	if slices.Equal(ids, it.RefIDs) {
		return false, nil
	}
	it.RefIDs = ids
	return true, nil
}

// batchRefIDs reads a batch reference value: an id, an array of ids,
// {reference_id} or {reference_ids}; null or an empty array clears.
func batchRefIDs(ed *themes.Editable, v any) ([]string, error) {
	const forms = "an id, an array of ids, {reference_id} or {reference_ids}"
	switch v := v.(type) {
	case nil, string, []any:
		return batchIDList(ed, v)
	case map[string]any:
		keys := [...]string{"reference_id", "reference_ids"}
		if ed.Multiple {
			keys[0], keys[1] = keys[1], keys[0]
		}
		for _, k := range keys {
			if rv, ok := v[k]; ok {
				return batchIDList(ed, rv)
			}
		}
		for _, k := range [...]string{"reference_slug", "reference_slugs"} {
			if _, ok := v[k]; ok {
				return nil, err422(EInvalidReferenceFormat, "Reference '%s': batch does not accept slugs; send %s", ed.Slug, forms)
			}
		}
	}
	return nil, err422(EInvalidReferenceFormat, "Reference '%s' takes %s", ed.Slug, forms)
}

func batchIDList(ed *themes.Editable, v any) ([]string, error) {
	ids, bad, why := parseIDList(v)
	switch why {
	case idListShape:
		return nil, err422(EInvalidReferenceFormat, "Reference '%s' takes an id or an array of ids", ed.Slug)
	case idNotString:
		return nil, err422(EInvalidReferenceFormat, "Reference '%s': ids are strings", ed.Slug)
	case idInvalid:
		return nil, err422(EInvalidReferenceID, "Reference '%s': '%v' is not a valid id", ed.Slug, bad)
	}
	return ids, nil
}

func (b *batch) setFile(it *Item, v any, slug string) (bool, error) {
	cur := it.File(b.locale, b.def)
	fv, act, err := files.ParseBatchValue(v, cur, slug)
	if err != nil {
		return false, err
	}
	switch act {
	case files.Keep:
		return false, nil
	case files.Clear:
		if cur == nil {
			return false, nil
		}
		b.putFile(it, nil)
		return true, nil
	}
	f, err := b.storeFile(fv, slug)
	if err != nil {
		return false, err
	}
	b.putFile(it, f)
	return true, nil
}

func (b *batch) storeFile(fv files.Value, slug string) (*files.File, error) {
	if b.opt.Files == nil {
		return nil, files.ErrUnsupported("File '" + slug + "'")
	}
	f, err := b.opt.Files.Store(fv, false)
	if err != nil {
		return nil, fmt.Errorf("pages: store file for %q: %w", slug, err)
	}
	if f == nil {
		return nil, err422(files.EInvalidFileFormat, "File '%s': the file could not be stored", slug)
	}
	return f, nil
}

// putFile writes f (nil clears) as the item's file in the batch locale.
func (b *batch) putFile(it *Item, f *files.File) {
	if f == nil && b.locale == b.def {
		delete(it.Files, b.locale)
		return
	}
	if it.Files == nil {
		it.Files = map[string]*files.File{}
	}
	it.Files[b.locale] = f
}

func (b *batch) setRepeatable(l *located, v any, st *opState) error {
	m, ok := v.(map[string]any)
	if !ok {
		return err422(EInvalidContainerValue, "A block is set with {slug, position}")
	}
	if _, ok := m["items"]; ok {
		return err422(EInvalidContainerValue, "A block's items are set one by one: %s", "set .../items/<Slug>")
	}
	sv, hasSlug := m["slug"]
	pv, hasPos := m["position"]
	if !hasSlug && !hasPos {
		return err422(EInvalidContainerValue, "A block is set with {slug, position}; neither was given")
	}
	rep, canvas := l.rep, l.canvas
	changed := false
	if hasSlug {
		slug, ok := sv.(string)
		if !ok {
			return err422(EInvalidContainerValue, "slug must be a block slug")
		}
		if slug != rep.Slug {
			blk := l.canvasEd.Block(slug)
			if blk == nil {
				return errRepeatablesNotInTheme(canvas.Slug, []string{slug})
			}
			rep.Slug = slug
			rep.Items, _ = syncItems(rep.Items, blk.Editables, b.now)
			rep.UpdatedAt = b.now
			changed = true
		}
	}
	if hasPos {
		n, ok := asInt(pv)
		if !ok {
			return err422(EInvalidPosition, "position must be an integer of at least 1")
		}
		if n < 1 {
			return err422(EInvalidPosition, "position must be at least 1, got %d", n)
		}
		enabled, disabled := splitBlocks(canvas)
		i := slices.Index(enabled, rep)
		enabled = slices.Delete(enabled, i, i+1)
		n = min(n, len(enabled)+1)
		enabled = slices.Insert(enabled, n-1, rep)
		if layout(canvas, enabled, disabled, b.now) {
			changed = true
		}
	}
	if changed {
		l.touch(b.now)
		st.changed = true
	}
	return nil
}

// --- insert

func (b *batch) insert(w *Page, op *Operation, pt Path, st *opState) error {
	if pt.Kind != PathRepeatables {
		return err422(EInvalidInsertPath, "insert needs a path ending in /repeatables of a canvas")
	}
	if !op.HasValue() {
		return err422(EMissingValue, "insert needs a value with a slug")
	}
	v, err := decodeRaw(op.Value)
	if err != nil {
		return err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return err422(EMissingValue, "insert needs a value object with a slug")
	}
	l, notCanvas, err := b.locate(w, pt)
	if err != nil {
		if notCanvas {
			return err422(ENotACanvas, "Item '%s' is not a canvas", pt.Slug)
		}
		return err
	}
	slug, err := insertSlug(m["slug"])
	if err != nil {
		return err
	}
	blk := l.canvasEd.Block(slug)
	if blk == nil {
		return errRepeatablesNotInTheme(l.canvas.Slug, []string{slug})
	}
	rep := newRepeatable(blk, b.now)
	if err := b.insertItems(rep, blk, l.canvas.Slug, m["items"], st); err != nil {
		return err
	}

	enabled, disabled := splitBlocks(l.canvas)
	at := len(enabled)
	if op.HasAfter() {
		i, found, first, anchor := findAnchor(enabled, op.After)
		switch {
		case found:
			at = i + 1
		case first:
			at = 0
		default:
			st.warnings = append(st.warnings, anchorWarning(anchor))
		}
	}
	enabled = slices.Insert(enabled, at, rep)
	layout(l.canvas, enabled, disabled, b.now)
	l.touch(b.now)
	st.changed = true
	st.res.ID = rep.ID
	st.res.Path = op.Path + "/" + rep.ID
	return nil
}

// insertSlug checks value.slug of an insert.
func insertSlug(v any) (string, error) {
	if v == nil {
		return "", err422(EMissingSlug, "insert needs value.slug, the block kind")
	}
	s, ok := v.(string)
	if !ok {
		return "", err422(EInvalidSlug, "value.slug must be a string")
	}
	if strings.TrimSpace(s) == "" {
		return "", err422(EMissingSlug, "insert needs value.slug, the block kind")
	}
	if len(s) > 255 || !utf8.ValidString(s) || strings.TrimSpace(s) != s {
		return "", err422(EInvalidSlug, "Invalid block slug %q", s)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`<>{}"\`, r) {
			return "", err422(EInvalidSlug, "Invalid block slug %q: markup and control characters are not allowed", s)
		}
	}
	return s, nil
}

// insertItems writes value.items of an insert into the new block rep.
func (b *batch) insertItems(rep *Repeatable, blk *themes.Block, canvas string, v any, st *opState) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return err422(EInsertFailed, "value.items must be an object of item slug to content")
	}
	keys := sortedKeys(m)
	var unknown []string
	for _, k := range keys {
		if blk.Editable(k) == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		return errEditablesNotInTheme(unknown, canvas, blk.Slug)
	}
	// Files are stored last, once every value checked out.
	type pending struct {
		it *Item
		fv files.Value
	}
	var uploads []pending
	for _, k := range keys {
		ed, it, val := blk.Editable(k), rep.Item(k), m[k]
		if it == nil {
			continue // unreachable: newRepeatable creates every item
		}
		switch ed.Type {
		case themes.TypeReference, themes.TypeCanvas:
			if !emptyValue(val) {
				what := "Reference"
				if ed.Type == themes.TypeCanvas {
					what = "Canvas"
				}
				st.warnings = append(st.warnings, fmt.Sprintf("%s '%s' is not assigned on insert; set it afterwards", what, k))
			}
		case themes.TypeFile:
			fv, act, err := files.ParseBatchValue(val, nil, k)
			if err != nil {
				return err
			}
			if act == files.Set {
				uploads = append(uploads, pending{it, fv})
			}
		default:
			s, err := insertScalar(ed, val)
			if err != nil {
				return err
			}
			it.Content.set(b.locale, b.def, s)
		}
	}
	for _, p := range uploads {
		f, err := b.storeFile(p.fv, p.it.Slug)
		if err != nil {
			return err
		}
		b.putFile(p.it, f)
	}
	return nil
}

// insertScalar reads a scalar item's content on insert: a string, number,
// boolean or null, or {content: one of those}.
func insertScalar(ed *themes.Editable, v any) (string, error) {
	if v == nil {
		return "", nil
	}
	if m, ok := v.(map[string]any); ok {
		cv, ok := m["content"]
		if !ok {
			return "", err422(EInsertFailed, "Item '%s' takes content (a scalar or {content})", ed.Slug)
		}
		v = cv
	}
	switch x := v.(type) {
	case json.Number:
		v = x.String()
	case bool:
		if ed.Type != themes.TypeSwitch {
			v = fmt.Sprint(x)
		}
	}
	s, err := scalarValue(ed, v)
	if err != nil {
		return "", err422(EInsertFailed, "%s", cms.ErrorMessage(err))
	}
	return s, nil
}

func emptyValue(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		return len(v) == 0
	case string:
		return v == ""
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// findAnchor reads an after value against a canvas's enabled blocks: found
// with the anchor's index, first for null, or neither with the anchor as
// text for the warning.
func findAnchor(enabled []*Repeatable, raw json.RawMessage) (i int, found, first bool, anchor string) {
	switch jsonw.Kind(raw) {
	case 'n':
		return 0, false, true, ""
	case '"':
		anchor = jsonString(raw)
	default:
		return 0, false, false, string(bytes.TrimSpace(raw))
	}
	if cms.IsID(anchor) {
		id := strings.ToLower(anchor)
		for i, r := range enabled {
			if r.ID == id {
				return i, true, false, anchor
			}
		}
	}
	return 0, false, false, anchor
}

func anchorWarning(anchor string) string {
	return "Anchor '" + anchor + "' not found, appending to end"
}

// splitBlocks returns a canvas's enabled blocks in position order, and its
// disabled ones.
func splitBlocks(c *Item) (enabled, disabled []*Repeatable) {
	all := slices.Clone(c.Repeatables)
	sortRepeatables(all)
	for _, r := range all {
		if r.Disabled {
			disabled = append(disabled, r)
		} else {
			enabled = append(enabled, r)
		}
	}
	return enabled, disabled
}

// layout makes enabled then disabled the canvas's blocks, numbered from 1;
// blocks whose position changes get updated_at now. It reports whether the
// order or any position changed.
func layout(c *Item, enabled, disabled []*Repeatable, now time.Time) bool {
	all := append(enabled, disabled...)
	changed := len(all) != len(c.Repeatables)
	for i, r := range all {
		if i < len(c.Repeatables) && c.Repeatables[i] != r {
			changed = true
		}
		if r.Position != i+1 {
			r.Position = i + 1
			r.UpdatedAt = now
			changed = true
		}
	}
	if len(all) == 0 {
		all = nil
	}
	c.Repeatables = all
	return changed
}

// --- delete and move

func (b *batch) delete(w *Page, pt Path, st *opState) error {
	if pt.Kind != PathRepeatable {
		return err422(EInvalidDeleteTarget, "Only canvas blocks can be deleted (path .../repeatables/<id>)")
	}
	l, notCanvas, err := b.locate(w, pt)
	if err != nil {
		if notCanvas {
			return err422(EInvalidDeleteTarget, "Item '%s' is not a canvas; only canvas blocks can be deleted", pt.Slug)
		}
		return err
	}
	enabled, disabled := splitBlocks(l.canvas)
	i := slices.Index(enabled, l.rep)
	enabled = slices.Delete(enabled, i, i+1)
	layout(l.canvas, enabled, disabled, b.now)
	l.touch(b.now)
	st.changed = true
	return nil
}

func (b *batch) move(w *Page, op *Operation, pt Path, st *opState) error {
	if pt.Kind != PathRepeatable {
		return err422(EInvalidMoveTarget, "Only canvas blocks can be moved (path .../repeatables/<id>)")
	}
	l, notCanvas, err := b.locate(w, pt)
	if err != nil {
		if notCanvas {
			return err422(EInvalidMoveTarget, "Item '%s' is not a canvas; only canvas blocks can be moved", pt.Slug)
		}
		return err
	}
	if !op.HasAfter() {
		return nil
	}
	enabled, disabled := splitBlocks(l.canvas)
	i, found, first, anchor := findAnchor(enabled, op.After)
	if found && enabled[i] == l.rep {
		return nil
	}
	self := slices.Index(enabled, l.rep)
	enabled = slices.Delete(enabled, self, self+1)
	at := len(enabled)
	switch {
	case found && i < self:
		at = i + 1
	case found:
		at = i // the anchor moved up one place when the block left
	case first:
		at = 0
	default:
		st.warnings = append(st.warnings, anchorWarning(anchor))
	}
	enabled = slices.Insert(enabled, at, l.rep)
	if layout(l.canvas, enabled, disabled, b.now) {
		l.touch(b.now)
		st.changed = true
	}
	return nil
}

// --- results JSON

// AppendResults appends results as the batch response's results array:
// objects with keys index, status, path, then id, warning and error
// ({code, message}) when set.
func AppendResults(dst []byte, results []OpResult) []byte {
	w := &jsonw.Writer{B: dst}
	w.OpenArray()
	for i := range results {
		w.Elem()
		results[i].write(w)
	}
	w.CloseArray()
	return w.B
}

// MarshalJSON writes r as AppendResults writes each result.
func (r OpResult) MarshalJSON() ([]byte, error) {
	w := &jsonw.Writer{}
	r.write(w)
	return w.B, nil
}

func (r *OpResult) write(w *jsonw.Writer) {
	w.OpenObject()
	w.K("index")
	w.Int(int64(r.Index))
	w.K("status")
	w.Str(r.Status)
	w.K("path")
	w.Str(r.Path)
	if r.ID != "" {
		w.K("id")
		w.Str(r.ID)
	}
	if r.Warning != "" {
		w.K("warning")
		w.Str(r.Warning)
	}
	if r.Error != nil {
		w.K("error")
		w.OpenObject()
		w.K("code")
		w.Str(r.Error.Code)
		w.K("message")
		w.Str(r.Error.Message)
		w.CloseObject()
	}
	w.CloseObject()
}
