package edit

// The values set and insert write: scalar contents, references, files.

import (
	"fmt"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

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

func (b *batchRun) storeFile(fv files.Value, slug string) (*files.File, error) {
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
func (b *batchRun) putFile(it *doc.Item, f *files.File) {
	if f == nil && b.locale == b.def {
		delete(it.Files, b.locale)
		return
	}
	if it.Files == nil {
		it.Files = map[string]*files.File{}
	}
	it.Files[b.locale] = f
}
