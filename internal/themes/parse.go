package themes

import (
	"fmt"
	"strings"
	"unicode"
)

// ParseError is a problem in a template or in a snippet it includes.
type ParseError struct {
	File    string // the template or snippet where the problem is
	Line    int    // 1-based
	Message string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message) }

// Limits on one Parse. Includes can repeat a snippet many times (a snippet
// of blocks included by every block of a canvas, and so on), so the work
// and the schema size are bounded after expansion, not just per source.
const (
	maxIncludeDepth = 16
	maxExpansion    = 32 << 20 // bytes plus tokens walked, counting every include
	maxSchemaNodes  = 20000    // editables and blocks in one schema
)

// Tag names.
const (
	tagCanvas     = "editable_canvas"
	tagRepeatable = "repeatable"
	tagGroup      = "editable_group"
	tagInclude    = "include"
)

// editableTags maps the tags that declare a non-canvas editable to its type.
var editableTags = map[string]string{
	"editable_field":     TypeField,
	"editable_text":      TypeText,
	"editable_file":      TypeFile,
	"editable_select":    TypeSelect,
	"editable_switch":    TypeSwitch,
	"editable_reference": TypeReference,
}

// liquidBlocks are the standard Liquid block tags that are transparent for
// collecting editables; comment and raw are skipped whole.
var liquidBlocks = map[string]bool{
	"if": true, "unless": true, "case": true, "for": true, "tablerow": true, "capture": true,
}

// Parse returns the schema of the Liquid template src, named name.
//
// Editables are declared by the editable_* block tags (see docs/themes.md, "Declaring editables").
// Include tags with a quoted snippet name are followed through include;
// editables of a snippet belong to the scope of the include. Every problem,
// including Liquid syntax errors found by osteele/liquid, is a *ParseError
// naming the template or snippet and the line.
//
// Beyond the tags' documented meaning, Parse decides:
//   - Text, output and other tags between the repeatables of a canvas are
//     ignored; an editable there is an error.
//   - The body of a non-canvas editable is its default content only: an
//     editable tag there is an error and includes there are not followed.
//   - editable_group and Liquid's if/unless/case/for/tablerow/capture are
//     transparent, also around the repeatables of a canvas.
//   - A "{{" or "{%" that starts no Liquid token is an error (Liquid itself
//     would output it as text), as is an unclosed comment or raw.
//   - An include whose name is not a quoted string is an error: its
//     editables could not be known.
//   - A template or snippet that nests deeper than DefaultMaxDepth is an
//     error (see CheckDepth), found before anything else reads it.
func Parse(name, src string, include func(snippet string) (string, error)) (*Template, error) {
	return parse(name, src, include, DefaultMaxDepth)
}

// parse is Parse with nesting bounded by maxDepth.
func parse(name, src string, include func(snippet string) (string, error), maxDepth int) (*Template, error) {
	p := &parser{include: include, snippets: map[string]*tplSource{}, budget: maxExpansion, maxDepth: maxDepth}
	main, err := p.load(name, src)
	if err != nil {
		return nil, err
	}
	if p.budget -= len(src) + len(main.toks); p.budget < 0 {
		return nil, p.errorf(main, 1, "template too large")
	}
	t := &Template{Name: name}
	root := &scope{editables: &t.Editables, seen: map[string]slugAt{}}
	if err := p.walk(main, root); err != nil {
		return nil, err
	}
	return t, nil
}

// tplSource is a scanned template or snippet.
type tplSource struct {
	name    string
	src     string
	toks    []tplToken
	checked bool // by osteele/liquid
}

type parser struct {
	include  func(string) (string, error)
	snippets map[string]*tplSource // loaded snippets, by name
	chain    []string              // snippets being walked, outermost first
	budget   int                   // expansion left
	nodes    int                   // editables and blocks made
	maxDepth int                   // nesting bound of each source (CheckDepth)
}

// scope is where declared editables go: a template's top level or a block
// (editables), or a canvas body (canvas, whose blocks are declared there).
type scope struct {
	editables *[]*Editable
	canvas    *Editable
	depth     int               // canvases around this scope
	seen      map[string]slugAt // slugs declared in this scope
}

type slugAt struct {
	file string
	line int
}

// frame is an open block tag while walking one source.
type frame struct {
	tok   *tplToken
	scope *scope
	// body is set inside the body of a non-canvas editable, which is that
	// editable's default content; bodyTok is the editable's tag.
	body    *Editable
	bodyTok *tplToken
}

func (p *parser) load(name, src string) (*tplSource, error) {
	// Nesting first: the walk below keeps its own stack, but osteele/liquid
	// recurses once per level.
	if err := CheckDepth(name, src, p.maxDepth); err != nil {
		return nil, err
	}
	toks, err := scanTemplate(name, src)
	if err != nil {
		return nil, err
	}
	return &tplSource{name: name, src: src, toks: toks}, nil
}

func (p *parser) errorf(s *tplSource, line int, format string, a ...any) error {
	return &ParseError{File: s.name, Line: line, Message: fmt.Sprintf(format, a...)}
}

// walk collects the editables of s into sc.
func (p *parser) walk(s *tplSource, sc *scope) error {
	var stack []frame
	for i := 0; i < len(s.toks); i++ {
		tok := &s.toks[i]
		if tok.obj {
			continue
		}
		cur := frame{scope: sc}
		if len(stack) > 0 {
			cur = stack[len(stack)-1]
		}
		name := tok.name
		typ, isEditable := editableTags[name]
		switch {
		case name == "comment" || name == "raw":
			// Like Liquid: skip to the first end tag, nested or not.
			j := i + 1
			for j < len(s.toks) && (s.toks[j].obj || s.toks[j].name != "end"+name) {
				j++
			}
			if j == len(s.toks) {
				return p.errorf(s, tok.line, "{%% %s %%} is not closed with {%% end%s %%}", name, name)
			}
			i = j

		case isEditable || name == tagCanvas || name == tagRepeatable || name == tagGroup:
			if cur.body != nil {
				return p.errorf(s, tok.line, "%s inside the default content of %s %q (line %d)",
					name, cur.bodyTok.name, cur.body.Slug, cur.bodyTok.line)
			}
			args, err := p.tagArgs(s, tok)
			if err != nil {
				return err
			}
			f := frame{tok: tok, scope: cur.scope}
			switch {
			case name == tagGroup:
				// Transparent: its editables belong to the enclosing scope.
			case name == tagRepeatable:
				if cur.scope.canvas == nil {
					return p.errorf(s, tok.line, "repeatable %q must be directly inside an editable_canvas", args.slug)
				}
				b, err := p.block(s, tok, cur.scope, args)
				if err != nil {
					return err
				}
				f.scope = &scope{editables: &b.Editables, depth: cur.scope.depth, seen: map[string]slugAt{}}
			default:
				if c := cur.scope.canvas; c != nil {
					return p.errorf(s, tok.line, "%s %q must be inside a repeatable of editable_canvas %q",
						name, args.slug, c.Slug)
				}
				if name == tagCanvas {
					typ = TypeCanvas
					if cur.scope.depth >= MaxCanvasDepth {
						return p.errorf(s, tok.line, "editable_canvas %q nested too deep: canvases nest at most %d levels",
							args.slug, MaxCanvasDepth)
					}
				}
				e, err := p.editable(s, tok, cur.scope, typ, args)
				if err != nil {
					return err
				}
				if typ == TypeCanvas {
					f.scope = &scope{canvas: e, depth: cur.scope.depth + 1, seen: map[string]slugAt{}}
				} else {
					f.body, f.bodyTok = e, tok
				}
			}
			stack = append(stack, f)

		case liquidBlocks[name]:
			stack = append(stack, frame{tok: tok, scope: cur.scope, body: cur.body, bodyTok: cur.bodyTok})

		case strings.HasPrefix(name, "end") && isBlockTag(name[3:]):
			if len(stack) == 0 {
				return p.errorf(s, tok.line, "{%% %s %%} closes nothing", name)
			}
			if open := cur.tok.name; open != name[3:] {
				return p.errorf(s, tok.line, "{%% %s %%} does not close {%% %s %%} (line %d)", name, open, cur.tok.line)
			}
			if e := cur.body; e != nil && cur.bodyTok == cur.tok {
				e.Default = strings.TrimSpace(s.src[cur.tok.end:tok.start])
				if e.Type == TypeSwitch {
					e.Default = normalizeSwitch(e.Default)
				}
			}
			stack = stack[:len(stack)-1]

		case name == tagInclude && cur.body == nil:
			if err := p.walkInclude(s, tok, cur.scope); err != nil {
				return err
			}
		}
	}
	if len(stack) > 0 {
		f := stack[len(stack)-1]
		return p.errorf(s, f.tok.line, "{%% %s %%} is not closed with {%% end%s %%}", f.tok.name, f.tok.name)
	}
	// Liquid-check a source after walking it, so that problems with
	// editables, which the walk describes better, come first.
	if !s.checked {
		s.checked = true
		return checkLiquid(s)
	}
	return nil
}

func isBlockTag(name string) bool {
	_, editable := editableTags[name]
	return editable || liquidBlocks[name] || name == tagCanvas || name == tagRepeatable || name == tagGroup
}

// tagArgs parses the arguments of an editable, canvas, repeatable or group tag.
func (p *parser) tagArgs(s *tplSource, tok *tplToken) (*tagArgs, error) {
	a, err := parseTagArgs(tok.args)
	if err != nil {
		line := tok.line
		if tok.argsAt >= 0 {
			line += strings.Count(s.src[tok.start:tok.argsAt+err.at], "\n")
		}
		return nil, p.errorf(s, line, "%s: %s", tok.name, err.msg)
	}
	return a, nil
}

// optionLine returns the line of an option value of tok.
func optionLine(s *tplSource, tok *tplToken, v argValue) int {
	return tok.line + strings.Count(s.src[tok.start:tok.argsAt+v.at], "\n")
}

// stringOpt returns a string option, "" when absent.
func (p *parser) stringOpt(s *tplSource, tok *tplToken, a *tagArgs, key string) (string, error) {
	v, ok := a.opts[key]
	if !ok {
		return "", nil
	}
	if v.kind != argString {
		return "", p.errorf(s, optionLine(s, tok, v), "%s %q: %s must be a quoted string, got %s", tok.name, a.slug, key, v.kind)
	}
	return v.text, nil
}

// common reads the label, hint and icon options every tag takes.
func (p *parser) common(s *tplSource, tok *tplToken, a *tagArgs) (label, hint, icon string, err error) {
	if label, err = p.stringOpt(s, tok, a, "label"); err != nil {
		return
	}
	if label == "" {
		label = a.slug
	}
	if hint, err = p.stringOpt(s, tok, a, "hint"); err != nil {
		return
	}
	icon, err = p.stringOpt(s, tok, a, "icon")
	return
}

func (p *parser) declare(s *tplSource, tok *tplToken, seen map[string]slugAt, what, slug string) error {
	if prev, dup := seen[slug]; dup {
		where := fmt.Sprintf("line %d", prev.line)
		if prev.file != s.name {
			where = fmt.Sprintf("%s:%d", prev.file, prev.line)
		}
		return p.errorf(s, tok.line, "duplicate %s %q: already declared at %s", what, slug, where)
	}
	seen[slug] = slugAt{s.name, tok.line}
	if p.nodes++; p.nodes > maxSchemaNodes {
		return p.errorf(s, tok.line, "too many editables: a schema holds at most %d editables and blocks", maxSchemaNodes)
	}
	return nil
}

// block declares a canvas's block kind.
func (p *parser) block(s *tplSource, tok *tplToken, sc *scope, a *tagArgs) (*Block, error) {
	if err := p.declare(s, tok, sc.seen, "repeatable", a.slug); err != nil {
		return nil, err
	}
	b := &Block{Slug: a.slug}
	var err error
	if b.Label, b.Hint, b.Icon, err = p.common(s, tok, a); err != nil {
		return nil, err
	}
	sc.canvas.Blocks = append(sc.canvas.Blocks, b)
	return b, nil
}

// editable declares an editable in sc; the default comes with the end tag.
func (p *parser) editable(s *tplSource, tok *tplToken, sc *scope, typ string, a *tagArgs) (*Editable, error) {
	if err := p.declare(s, tok, sc.seen, "editable", a.slug); err != nil {
		return nil, err
	}
	e := &Editable{Slug: a.slug, Type: typ}
	var err error
	if e.Label, e.Hint, e.Icon, err = p.common(s, tok, a); err != nil {
		return nil, err
	}
	switch typ {
	case TypeSelect:
		if e.Options, err = p.selectOptions(s, tok, a); err != nil {
			return nil, err
		}
	case TypeReference:
		if e.Reference, err = p.stringOpt(s, tok, a, "to"); err != nil {
			return nil, err
		}
		if !validReference(e.Reference) {
			return nil, p.errorf(s, tok.line, "%s %q: to must be 'pages' or 'channels.<channel slug>', got %q", tok.name, a.slug, e.Reference)
		}
		if v, ok := a.opts["multiple"]; ok {
			if v.kind != argBool {
				return nil, p.errorf(s, optionLine(s, tok, v), "%s %q: multiple must be true or false, got %s", tok.name, a.slug, v.kind)
			}
			e.Multiple = v.text == "true"
		}
	}
	*sc.editables = append(*sc.editables, e)
	return e, nil
}

func validReference(to string) bool {
	if to == "pages" {
		return true
	}
	channel, ok := strings.CutPrefix(to, "channels.")
	return ok && channel != "" && strings.TrimSpace(channel) == channel
}

// selectOptions reads options: 'a|b' and labels: 'A|B'.
func (p *parser) selectOptions(s *tplSource, tok *tplToken, a *tagArgs) ([]Option, error) {
	values, err := p.stringOpt(s, tok, a, "options")
	if err != nil {
		return nil, err
	}
	if values == "" {
		return nil, p.errorf(s, tok.line, "%s %q needs options, for example options: 'small|large'", tok.name, a.slug)
	}
	labels, err := p.stringOpt(s, tok, a, "labels")
	if err != nil {
		return nil, err
	}
	var opts []Option
	seen := map[string]bool{}
	for _, v := range strings.Split(values, "|") {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, p.errorf(s, optionLine(s, tok, a.opts["options"]), "%s %q: empty value in options %q", tok.name, a.slug, values)
		}
		// Values match ignoring case (Editable.Option), so two that differ
		// only in case could not be told apart.
		k := foldKey(v)
		if seen[k] {
			return nil, p.errorf(s, optionLine(s, tok, a.opts["options"]), "%s %q: option %q given twice (options ignore case)", tok.name, a.slug, v)
		}
		seen[k] = true
		opts = append(opts, Option{Value: v, Label: v})
	}
	if labels != "" {
		ls := strings.Split(labels, "|")
		if len(ls) > len(opts) {
			return nil, p.errorf(s, optionLine(s, tok, a.opts["labels"]), "%s %q: %d labels for %d options", tok.name, a.slug, len(ls), len(opts))
		}
		for i, l := range ls {
			if l = strings.TrimSpace(l); l != "" {
				opts[i].Label = l
			}
		}
	}
	return opts, nil
}

// foldKey maps strings that are equal under strings.EqualFold to the same
// key: every rune becomes the smallest rune of its case-folding orbit.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// normalizeSwitch turns the boolean words a switch accepts into true or false.
func normalizeSwitch(s string) string {
	switch strings.ToLower(s) {
	case "true", "yes", "on", "1":
		return "true"
	case "false", "no", "off", "0":
		return "false"
	}
	return s
}

// walkInclude follows {% include 'name' %} into sc.
func (p *parser) walkInclude(s *tplSource, tok *tplToken, sc *scope) error {
	l := argLexer{s: tok.args}
	l.space()
	name, aerr := l.str()
	if aerr != nil || name == "" {
		return p.errorf(s, tok.line, "include needs a quoted snippet name, got %q: a snippet chosen at render time could hide editables", strings.TrimSpace(tok.args))
	}
	for i, n := range p.chain {
		if n == name {
			cycle := append(append([]string(nil), p.chain[i:]...), name)
			return p.errorf(s, tok.line, "include cycle: %s", strings.Join(cycle, " -> "))
		}
	}
	if len(p.chain) >= maxIncludeDepth {
		return p.errorf(s, tok.line, "include %q: includes nest more than %d levels", name, maxIncludeDepth)
	}
	snip, ok := p.snippets[name]
	if !ok {
		if p.include == nil {
			return p.errorf(s, tok.line, "include %q: no snippets available", name)
		}
		src, err := p.include(name)
		if err != nil {
			return p.errorf(s, tok.line, "include %q: %v", name, err)
		}
		if snip, err = p.load(name, src); err != nil {
			return err
		}
		p.snippets[name] = snip
	}
	if p.budget -= len(snip.src) + len(snip.toks); p.budget < 0 {
		return p.errorf(s, tok.line, "include %q: template too large once includes are expanded", name)
	}
	p.chain = append(p.chain, name)
	err := p.walk(snip, sc)
	p.chain = p.chain[:len(p.chain)-1]
	return err
}
