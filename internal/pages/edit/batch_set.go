package edit

// The set operation: page fields, items of every editable type, files,
// references and blocks.

import (
	"fmt"
	"slices"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

func (b *batchRun) set(w *doc.Page, op *Operation, pt doc.Path, st *opState) error {
	if !op.HasValue() {
		return err422(EMissingValue, "set needs a value")
	}
	v, err := decodeRaw(op.Value)
	if err != nil {
		return err
	}
	switch pt.Kind {
	case doc.PathField:
		return b.setField(w, pt.Field, v, st)
	case doc.PathRepeatables:
		return err422(EInvalidTarget, "A canvas's block list cannot be set; insert, delete or move its blocks")
	}
	l, notCanvas, err := b.locate(w, pt)
	if err != nil {
		if notCanvas {
			return err422(EInvalidContainerParent, "Item '%s' is not a canvas; only canvas blocks can be set by id", pt.Slug)
		}
		return err
	}
	if pt.Kind == doc.PathRepeatable {
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

func (b *batchRun) setField(w *doc.Page, field string, v any, st *opState) error {
	var t *doc.Text
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
		if w.Slug.Set(b.locale, b.def, s) {
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
	if t.Set(b.locale, b.def, s) {
		st.changed = true
	}
	return nil
}

// setItem writes v to an item and reports whether it changed.
func (b *batchRun) setItem(it *doc.Item, ed *themes.Editable, v any, st *opState) (bool, error) {
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
	return it.Content.Set(b.locale, b.def, s), nil
}

func (b *batchRun) setReference(it *doc.Item, ed *themes.Editable, v any) (bool, error) {
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

func (b *batchRun) setFile(it *doc.Item, v any, slug string) (bool, error) {
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

func (b *batchRun) setRepeatable(l *located, v any, st *opState) error {
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
