package view

// The item-subtree read (GET /api/pages/{page}/items/{path...}).

import (
	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/themes"
)

// ParseSubtreePath parses the {path} of GET items/{path}: the rest of the
// URL path after "/items/", still escaped (so that "%2B" stays a literal
// plus). Errors are the route's 404 with no code.
func ParseSubtreePath(rest string) (doc.Path, error) {
	p, err := doc.ParsePath("/items/" + rest)
	if err != nil {
		return doc.Path{}, errSubtreeNotFound("Item not found: /items/" + rest)
	}
	return p, nil
}

// RenderItem appends the item-subtree response for path (GET
// items/{path}) to dst. A path that does not resolve to an enabled item or
// repeatable gives a 404 *cms.Error with no code whose message says "not
// found" or "not a canvas". Compact and content_locale apply; Fields does not.
func RenderItem(dst []byte, p *doc.Page, path doc.Path, v *View) ([]byte, error) {
	if path.Kind != doc.PathItem && path.Kind != doc.PathRepeatable {
		return dst, errSubtreeNotFound("Item not found: " + path.String())
	}
	t, eds, err := resolveWithEditables(p, path, v.Template)
	if err != nil {
		return dst, errSubtreeNotFound(cms.ErrorMessage(err))
	}
	r := newRenderer(dst, v)
	if t.Item != nil {
		err = r.resolveRefs([]*doc.Item{t.Item}, nil)
	} else {
		err = r.resolveRefs(nil, t.Repeatable)
	}
	if err != nil {
		return dst, err
	}
	w := &r.w
	w.OpenObject()
	w.K("type")
	if path.Kind == doc.PathItem {
		w.Str("item")
	} else {
		w.Str("repeatable")
	}
	w.K("path")
	w.Str(path.String())
	w.K("parent_path")
	if pp, ok := path.Parent(); ok {
		w.Str(pp.String())
	} else {
		w.Null()
	}
	w.K("position")
	if t.Repeatable != nil {
		w.Int(int64(t.Repeatable.Position))
	} else {
		siblings := p.Items
		if t.Parent != nil {
			siblings = t.Parent.Items
		}
		n := 0
		for _, it := range siblings {
			if it.Disabled {
				continue
			}
			n++
			if it == t.Item {
				break
			}
		}
		w.Int(int64(n))
	}
	w.K("siblings_count")
	w.Int(int64(siblingsCount(p, t)))
	w.K("data")
	if t.Repeatable != nil {
		r.repeatable(t.Repeatable, blockEditables(themes.FindEditable(eds, t.Canvas.Slug), t.Repeatable.Slug))
	} else {
		r.item(t.Item, themes.FindEditable(eds, t.Item.Slug), true)
	}
	w.CloseObject()
	return r.w.B, nil
}

func siblingsCount(p *doc.Page, t doc.Target) int {
	n := 0
	if t.Repeatable != nil {
		for _, rp := range t.Canvas.Repeatables {
			if !rp.Disabled {
				n++
			}
		}
		return n
	}
	siblings := p.Items
	if t.Parent != nil {
		siblings = t.Parent.Items
	}
	for _, it := range siblings {
		if !it.Disabled {
			n++
		}
	}
	return n
}

// resolveWithEditables is Resolve that also returns the template editables of the
// container holding the target (the page's, or the enclosing block's).
func resolveWithEditables(p *doc.Page, path doc.Path, tpl *themes.Template) (doc.Target, []*themes.Editable, error) {
	t, err := p.Resolve(path)
	if err != nil || tpl == nil {
		return t, nil, err
	}
	eds := tpl.Editables
	items := p.Items
	for _, br := range path.Blocks {
		canvas := doc.FindItem(items, br.Canvas)
		rep := canvas.Repeatable(br.ID)
		eds = blockEditables(themes.FindEditable(eds, br.Canvas), rep.Slug)
		items = rep.Items
	}
	return t, eds, nil
}

// errSubtreeNotFound is the item-subtree route's 404, a bare message with no code.
func errSubtreeNotFound(msg string) *cms.Error {
	return &cms.Error{Code: cms.EBareNotFound, Message: msg}
}
