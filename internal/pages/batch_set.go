package pages

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// The set operation: page fields, items of every editable type, files,
// references and blocks.

func (b *batch) set(w *doc.Page, op *Operation, pt doc.Path, st *opState) error {
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

func (b *batch) setField(w *doc.Page, field string, v any, st *opState) error {
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
func (b *batch) setItem(it *doc.Item, ed *themes.Editable, v any, st *opState) (bool, error) {
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

func (b *batch) setReference(it *doc.Item, ed *themes.Editable, v any) (bool, error) {
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

func (b *batch) setFile(it *doc.Item, v any, slug string) (bool, error) {
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
func (b *batch) putFile(it *doc.Item, f *files.File) {
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
