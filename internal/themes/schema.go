package themes

import "strings"

// Editable types, as they appear in page item JSON and in the schema.
const (
	TypeField     = "field"
	TypeText      = "text"
	TypeFile      = "file"
	TypeSelect    = "select"
	TypeSwitch    = "switch"
	TypeReference = "reference"
	TypeCanvas    = "canvas"
)

// MaxCanvasDepth is how deep canvases may nest: a canvas inside a block of a
// top-level canvas is allowed, one more level is not.
const MaxCanvasDepth = 2

// Template is the schema of one template: the editables it declares, in
// document order, with includes followed and groups flattened.
type Template struct {
	Name      string
	Editables []*Editable
}

// Editable is one editable declared by a template or a block.
type Editable struct {
	Slug    string
	Type    string // one of the Type constants
	Label   string // defaults to the slug
	Hint    string
	Icon    string
	Default string // the tag's body, trimmed; the item's fallback_content
	// Options are a select's values with their labels, in declared order.
	Options []Option
	// Reference is a reference's target resource ("pages", "channels.articles").
	Reference string
	// Multiple reports whether a reference holds many targets.
	Multiple bool
	// Blocks are a canvas's repeatable block kinds, in declared order.
	Blocks []*Block
}

// Option is one choice of a select.
type Option struct {
	Value string
	Label string
}

// Block is one kind of repeatable block a canvas accepts.
type Block struct {
	Slug      string
	Label     string
	Hint      string
	Icon      string
	Editables []*Editable
}

// Editable returns the template's top-level editable with the given slug, or nil.
func (t *Template) Editable(slug string) *Editable { return FindEditable(t.Editables, slug) }

// Block returns the canvas's block kind with the given slug, or nil.
func (e *Editable) Block(slug string) *Block {
	for _, b := range e.Blocks {
		if b.Slug == slug {
			return b
		}
	}
	return nil
}

// Option returns the select option whose value equals v ignoring case, or nil.
func (e *Editable) Option(v string) *Option {
	for i := range e.Options {
		if strings.EqualFold(e.Options[i].Value, v) {
			return &e.Options[i]
		}
	}
	return nil
}

// Editable returns the block's editable with the given slug, or nil.
func (b *Block) Editable(slug string) *Editable { return FindEditable(b.Editables, slug) }

// FindEditable returns the editable of list with the given slug, or nil:
// a template's top-level editables or a block's.
func FindEditable(list []*Editable, slug string) *Editable {
	for _, e := range list {
		if e.Slug == slug {
			return e
		}
	}
	return nil
}
