package edit

// What every batch operation works with: the options, the per-operation
// state, and an item path located against the page and its template.

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

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

// batchRun is one ApplyBatch call: its options, the locales it writes and
// the template editables paths resolve against.
type batchRun struct {
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
func (b *batchRun) locate(p *doc.Page, pt doc.Path) (l *located, notCanvas bool, err error) {
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
