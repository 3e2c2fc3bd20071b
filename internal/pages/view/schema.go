package view

import (
	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// RenderSchema appends the schema response (GET schema) of page p on
// template tpl to dst; a nil tpl gives {}, with a template_missing warning
// when the page names a template the theme lacks. current_structure shows p's
// enabled items as stored (the service may edit.Sync a copy first to show
// editables a newer template added).
func RenderSchema(dst []byte, p *doc.Page, tpl *doc.TemplateInfo) []byte {
	w := &jsonw.Writer{B: dst}
	w.OpenObject()
	if tpl == nil || tpl.Schema == nil {
		if p.Template != "" {
			// The theme lost the page's template (a forced removal): the
			// page still reads, and its schema says why it has no fields.
			w.K("warnings")
			w.OpenArray()
			w.OpenObject()
			w.K("code")
			w.Str("template_missing")
			w.K("template")
			w.Str(p.Template)
			w.K("message")
			w.Str("The theme has no template " + p.Template + "; push it again or give the page another template.")
			w.CloseObject()
			w.CloseArray()
		}
		w.CloseObject()
		return w.B
	}
	w.K("template")
	w.OpenObject()
	w.K("id")
	w.Str(tpl.ID)
	w.K("name")
	w.Str(tpl.Schema.Name)
	w.CloseObject()

	w.K("current_structure")
	structure(w, p.Items)

	w.K("available_blocks")
	w.OpenObject()
	for _, ed := range tpl.Schema.Editables {
		if ed.Type == themes.TypeCanvas {
			w.Key(ed.Slug)
			blockDefs(w, ed)
		}
	}
	w.CloseObject()

	w.K("select_options")
	w.OpenObject()
	selectOptions(w, "", tpl.Schema.Editables)
	w.CloseObject()

	w.CloseObject()
	return w.B
}

func structure(w *jsonw.Writer, items []*doc.Item) {
	w.OpenObject()
	for _, it := range items {
		if it.Disabled {
			continue
		}
		w.Key(it.Slug)
		w.OpenObject()
		w.K("id")
		w.Str(it.ID)
		w.K("slug")
		w.Str(it.Slug)
		w.K("type")
		w.Str(it.Type)
		if it.Type == themes.TypeCanvas {
			w.K("repeatables")
			w.OpenArray()
			for _, r := range it.Repeatables {
				if r.Disabled {
					continue
				}
				w.Elem()
				w.OpenObject()
				w.K("id")
				w.Str(r.ID)
				w.K("slug")
				w.Str(r.Slug)
				w.K("position")
				w.Int(int64(r.Position))
				w.K("items")
				structure(w, r.Items)
				w.CloseObject()
			}
			w.CloseArray()
		}
		w.CloseObject()
	}
	w.CloseObject()
}

func orSlug(label, slug string) string {
	if label == "" {
		return slug
	}
	return label
}

// blockDefs writes a canvas's block definitions as an array.
func blockDefs(w *jsonw.Writer, canvas *themes.Editable) {
	w.OpenArray()
	for _, b := range canvas.Blocks {
		w.Elem()
		w.OpenObject()
		w.K("slug")
		w.Str(b.Slug)
		w.K("label")
		w.Str(orSlug(b.Label, b.Slug))
		w.K("hint")
		w.StrOrNull(b.Hint)
		w.K("icon")
		w.StrOrNull(b.Icon)
		w.K("fields")
		w.OpenArray()
		for _, ed := range b.Editables {
			w.Elem()
			fieldDef(w, ed)
		}
		w.CloseArray()
		w.CloseObject()
	}
	w.CloseArray()
}

// fieldDef writes one block field; keys whose value would be null are left out.
func fieldDef(w *jsonw.Writer, ed *themes.Editable) {
	w.OpenObject()
	w.K("slug")
	w.Str(ed.Slug)
	w.K("label")
	w.Str(orSlug(ed.Label, ed.Slug))
	w.K("type")
	w.Str(ed.Type)
	if ed.Type == themes.TypeSelect {
		w.K("options")
		w.OpenArray()
		for _, o := range ed.Options {
			w.Elem()
			w.Str(o.Value)
		}
		w.CloseArray()
	}
	if ed.Type == themes.TypeReference {
		if ed.Reference != "" {
			w.K("reference")
			w.Str(ed.Reference)
		}
		w.K("references_many")
		w.Bool(ed.Multiple)
	}
	if ed.Hint != "" {
		w.K("hint")
		w.Str(ed.Hint)
	}
	if ed.Default != "" {
		w.K("default_content")
		w.Str(ed.Default)
	}
	if ed.Icon != "" {
		w.K("icon")
		w.Str(ed.Icon)
	}
	if ed.Type == themes.TypeCanvas {
		w.K("available_blocks")
		blockDefs(w, ed)
	}
	w.CloseObject()
}

// selectOptions writes the select_options entries of eds: bare slugs at top
// level, <Canvas>.<block>.<Field> inside blocks (prefix carries the path).
func selectOptions(w *jsonw.Writer, prefix string, eds []*themes.Editable) {
	for _, ed := range eds {
		switch ed.Type {
		case themes.TypeSelect:
			w.Key(prefix + ed.Slug)
			w.OpenArray()
			for _, o := range ed.Options {
				w.Elem()
				w.OpenObject()
				w.K("label")
				w.Str(orSlug(o.Label, o.Value))
				w.K("value")
				w.Str(o.Value)
				w.CloseObject()
			}
			w.CloseArray()
		case themes.TypeCanvas:
			for _, b := range ed.Blocks {
				selectOptions(w, prefix+ed.Slug+"."+b.Slug+".", b.Editables)
			}
		}
	}
}
