package pages

import (
	"github.com/tessera-cms/tessera/internal/themes"
)

// RenderSchema appends the schema response (GET schema) of page p on
// template tpl to dst; a nil tpl gives {}. current_structure shows p's
// enabled items as stored (the service may Sync a copy first to show
// editables a newer template added).
func RenderSchema(dst []byte, p *Page, tpl *TemplateInfo) []byte {
	w := &jsonWriter{b: dst}
	w.openObject()
	if tpl == nil || tpl.Schema == nil {
		w.closeObject()
		return w.b
	}
	w.k("template")
	w.openObject()
	w.k("id")
	w.str(tpl.ID)
	w.k("name")
	w.str(tpl.Schema.Name)
	w.closeObject()

	w.k("current_structure")
	structure(w, p.Items)

	w.k("available_blocks")
	w.openObject()
	for _, ed := range tpl.Schema.Editables {
		if ed.Type == themes.TypeCanvas {
			w.key(ed.Slug)
			blockDefs(w, ed)
		}
	}
	w.closeObject()

	w.k("select_options")
	w.openObject()
	selectOptions(w, "", tpl.Schema.Editables)
	w.closeObject()

	w.closeObject()
	return w.b
}

func structure(w *jsonWriter, items []*Item) {
	w.openObject()
	for _, it := range items {
		if it.Disabled {
			continue
		}
		w.key(it.Slug)
		w.openObject()
		w.k("id")
		w.str(it.ID)
		w.k("slug")
		w.str(it.Slug)
		w.k("type")
		w.str(it.Type)
		if it.Type == themes.TypeCanvas {
			w.k("repeatables")
			w.openArray()
			for _, r := range it.Repeatables {
				if r.Disabled {
					continue
				}
				w.elem()
				w.openObject()
				w.k("id")
				w.str(r.ID)
				w.k("slug")
				w.str(r.Slug)
				w.k("position")
				w.int(int64(r.Position))
				w.k("items")
				structure(w, r.Items)
				w.closeObject()
			}
			w.closeArray()
		}
		w.closeObject()
	}
	w.closeObject()
}

func orSlug(label, slug string) string {
	if label == "" {
		return slug
	}
	return label
}

// blockDefs writes a canvas's block definitions as an array.
func blockDefs(w *jsonWriter, canvas *themes.Editable) {
	w.openArray()
	for _, b := range canvas.Blocks {
		w.elem()
		w.openObject()
		w.k("slug")
		w.str(b.Slug)
		w.k("label")
		w.str(orSlug(b.Label, b.Slug))
		w.k("hint")
		w.strOrNull(b.Hint)
		w.k("icon")
		w.strOrNull(b.Icon)
		w.k("fields")
		w.openArray()
		for _, ed := range b.Editables {
			w.elem()
			fieldDef(w, ed)
		}
		w.closeArray()
		w.closeObject()
	}
	w.closeArray()
}

// fieldDef writes one block field; keys whose value would be null are left out.
func fieldDef(w *jsonWriter, ed *themes.Editable) {
	w.openObject()
	w.k("slug")
	w.str(ed.Slug)
	w.k("label")
	w.str(orSlug(ed.Label, ed.Slug))
	w.k("type")
	w.str(ed.Type)
	if ed.Type == themes.TypeSelect {
		w.k("options")
		w.openArray()
		for _, o := range ed.Options {
			w.elem()
			w.str(o.Value)
		}
		w.closeArray()
	}
	if ed.Type == themes.TypeReference {
		if ed.Reference != "" {
			w.k("reference")
			w.str(ed.Reference)
		}
		w.k("references_many")
		w.bool(ed.Multiple)
	}
	if ed.Hint != "" {
		w.k("hint")
		w.str(ed.Hint)
	}
	if ed.Default != "" {
		w.k("default_content")
		w.str(ed.Default)
	}
	if ed.Icon != "" {
		w.k("icon")
		w.str(ed.Icon)
	}
	if ed.Type == themes.TypeCanvas {
		w.k("available_blocks")
		blockDefs(w, ed)
	}
	w.closeObject()
}

// selectOptions writes the select_options entries of eds: bare slugs at top
// level, <Canvas>.<block>.<Field> inside blocks (prefix carries the path).
func selectOptions(w *jsonWriter, prefix string, eds []*themes.Editable) {
	for _, ed := range eds {
		switch ed.Type {
		case themes.TypeSelect:
			w.key(prefix + ed.Slug)
			w.openArray()
			for _, o := range ed.Options {
				w.elem()
				w.openObject()
				w.k("label")
				w.str(orSlug(o.Label, o.Value))
				w.k("value")
				w.str(o.Value)
				w.closeObject()
			}
			w.closeArray()
		case themes.TypeCanvas:
			for _, b := range ed.Blocks {
				selectOptions(w, prefix+ed.Slug+"."+b.Slug+".", b.Editables)
			}
		}
	}
}
