package edit

// The block operations: insert, delete and move.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

func (b *batchRun) insert(w *doc.Page, op *Operation, pt doc.Path, st *opState) error {
	if pt.Kind != doc.PathRepeatables {
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
func (b *batchRun) insertItems(rep *doc.Repeatable, blk *themes.Block, canvas string, v any, st *opState) error {
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
		it *doc.Item
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
			it.Content.Set(b.locale, b.def, s)
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

func (b *batchRun) delete(w *doc.Page, pt doc.Path, st *opState) error {
	if pt.Kind != doc.PathRepeatable {
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

func (b *batchRun) move(w *doc.Page, op *Operation, pt doc.Path, st *opState) error {
	if pt.Kind != doc.PathRepeatable {
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
