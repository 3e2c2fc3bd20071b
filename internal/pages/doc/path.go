package doc

import (
	"net/url"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/themes"
)

// PathKind is what a path addresses.
type PathKind int

// Kinds of paths.
const (
	// PathField is a page field: /<field>.
	PathField PathKind = iota + 1
	// PathItem is an editable: /items/<Slug>, possibly inside repeatables.
	PathItem
	// PathRepeatable is one block: .../items/<Canvas>/repeatables/<id>.
	PathRepeatable
	// PathRepeatables is a canvas's block list, the insert target:
	// .../items/<Canvas>/repeatables.
	PathRepeatables
)

// BlockRef names one enclosing repeatable of a path: the canvas slug and the
// repeatable's id.
type BlockRef struct {
	Canvas string
	ID     string
}

// Path is a parsed batch-style path.
type Path struct {
	Kind PathKind
	// Field is the page field of a PathField.
	Field string
	// Blocks are the repeatables enclosing the target, outermost first.
	Blocks []BlockRef
	// Slug is the item slug of a PathItem, or the canvas slug of a
	// PathRepeatable or PathRepeatables.
	Slug string
	// ID is the repeatable id of a PathRepeatable (lower case).
	ID string
}

// CanvasDepth is how many canvases the path goes through.
func (p Path) CanvasDepth() int {
	n := len(p.Blocks)
	if p.Kind == PathRepeatable || p.Kind == PathRepeatables {
		n++
	}
	return n
}

// ParsePath parses a batch-style path. Segments are URL-decoded with '+'
// read as a space ("%2B" is a literal plus; a literal space also works).
// Every error is a *cms.Error with code path_not_found; a non-id segment
// after /repeatables gives the message "Invalid repeatable ID".
func ParsePath(s string) (Path, error) {
	if s == "" || s[0] != '/' {
		return Path{}, PathError("Path must start with '/': %q", s)
	}
	segs := strings.Split(s[1:], "/")
	for i, raw := range segs {
		seg, err := url.QueryUnescape(raw)
		if err != nil {
			return Path{}, PathError("Invalid escape in path segment %q", raw)
		}
		if seg == "" {
			return Path{}, PathError("Empty segment in path %q", s)
		}
		segs[i] = seg
	}
	if segs[0] != "items" {
		if len(segs) > 1 {
			return Path{}, PathError("Path not found: %s", s)
		}
		return Path{Kind: PathField, Field: segs[0]}, nil
	}
	var blocks []BlockRef
	i := 1
	for {
		if i == len(segs) {
			return Path{}, PathError("Missing item slug in path %q", s)
		}
		slug := segs[i]
		i++
		if i == len(segs) {
			return Path{Kind: PathItem, Blocks: blocks, Slug: slug}, nil
		}
		if segs[i] != "repeatables" {
			return Path{}, PathError("Path not found: %s", s)
		}
		i++
		if len(blocks)+1 > themes.MaxCanvasDepth {
			return Path{}, PathError("Path nests canvases deeper than %d", themes.MaxCanvasDepth)
		}
		if i == len(segs) {
			return Path{Kind: PathRepeatables, Blocks: blocks, Slug: slug}, nil
		}
		if !cms.IsID(segs[i]) {
			return Path{}, PathError("Invalid repeatable ID")
		}
		id := strings.ToLower(segs[i])
		i++
		if i == len(segs) {
			return Path{Kind: PathRepeatable, Blocks: blocks, Slug: slug, ID: id}, nil
		}
		if segs[i] != "items" {
			return Path{}, PathError("Path not found: %s", s)
		}
		i++
		blocks = append(blocks, BlockRef{Canvas: slug, ID: id})
	}
}

// String returns the path in canonical form; ParsePath(p.String()) gives p
// back. Spaces are written %20, and '%', '+', '/', '?', '#' and control
// characters are escaped; other characters are written as they are.
func (p Path) String() string {
	var b strings.Builder
	if p.Kind == PathField {
		b.WriteByte('/')
		escapeSegment(&b, p.Field)
		return b.String()
	}
	for _, br := range p.Blocks {
		b.WriteString("/items/")
		escapeSegment(&b, br.Canvas)
		b.WriteString("/repeatables/")
		b.WriteString(br.ID)
	}
	b.WriteString("/items/")
	escapeSegment(&b, p.Slug)
	switch p.Kind {
	case PathRepeatables:
		b.WriteString("/repeatables")
	case PathRepeatable:
		b.WriteString("/repeatables/")
		b.WriteString(p.ID)
	}
	return b.String()
}

// Parent returns the path of the repeatable or canvas containing p, and
// false for a top-level item or a page field.
func (p Path) Parent() (Path, bool) {
	switch p.Kind {
	case PathItem:
		if len(p.Blocks) == 0 {
			return Path{}, false
		}
		last := p.Blocks[len(p.Blocks)-1]
		return Path{Kind: PathRepeatable, Blocks: p.Blocks[:len(p.Blocks)-1], Slug: last.Canvas, ID: last.ID}, true
	case PathRepeatable, PathRepeatables:
		return Path{Kind: PathItem, Blocks: p.Blocks, Slug: p.Slug}, true
	}
	return Path{}, false
}

const hexDigits = "0123456789ABCDEF"

func escapeSegment(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f || c == ' ' || c == '%' || c == '+' || c == '/' || c == '?' || c == '#':
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		default:
			b.WriteByte(c)
		}
	}
}

// Target is what an item path resolves to in a page.
type Target struct {
	// Parent is the repeatable holding Item or Canvas; nil at top level.
	Parent *Repeatable
	// Item is the target of a PathItem.
	Item *Item
	// Canvas is the canvas of a PathRepeatable or PathRepeatables.
	Canvas *Item
	// Repeatable is the target of a PathRepeatable.
	Repeatable *Repeatable
}

// Resolve finds the enabled item, repeatable or canvas path addresses.
// Errors are path_not_found *cms.Errors whose messages say "not found" or
// "not a canvas".
func (p *Page) Resolve(path Path) (Target, error) {
	if path.Kind == PathField {
		return Target{}, PathError("Item path not found: %s", path)
	}
	var t Target
	items := p.Items
	for _, br := range path.Blocks {
		canvas, err := findCanvas(items, br.Canvas)
		if err != nil {
			return Target{}, err
		}
		r := canvas.Repeatable(br.ID)
		if r == nil || r.Disabled {
			return Target{}, PathError("Repeatable %s not found in canvas '%s'", br.ID, br.Canvas)
		}
		t.Parent = r
		items = r.Items
	}
	if path.Kind == PathItem {
		it := FindItem(items, path.Slug)
		if it == nil || it.Disabled {
			return Target{}, PathError("Item '%s' not found", path.Slug)
		}
		t.Item = it
		return t, nil
	}
	canvas, err := findCanvas(items, path.Slug)
	if err != nil {
		return Target{}, err
	}
	t.Canvas = canvas
	if path.Kind == PathRepeatable {
		r := canvas.Repeatable(path.ID)
		if r == nil || r.Disabled {
			return Target{}, PathError("Repeatable %s not found in canvas '%s'", path.ID, path.Slug)
		}
		t.Repeatable = r
	}
	return t, nil
}

func findCanvas(items []*Item, slug string) (*Item, error) {
	it := FindItem(items, slug)
	if it == nil || it.Disabled {
		return nil, PathError("Item '%s' not found", slug)
	}
	if it.Type != themes.TypeCanvas {
		return nil, PathError("Item '%s' is not a canvas", slug)
	}
	return it, nil
}

// EPathNotFound is the code of a path that does not parse or names nothing.
const EPathNotFound = "path_not_found"

// PathError is a path_not_found error with the message format makes.
func PathError(format string, args ...any) *cms.Error {
	return cms.Errorf(EPathNotFound, format, args...)
}
