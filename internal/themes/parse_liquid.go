package themes

import (
	"fmt"
	"strings"
	"sync"

	"github.com/osteele/liquid"
	"github.com/osteele/liquid/render"
)

// checkEngine is an osteele/liquid engine that knows the editable tags, for
// checking that sources parse. It is only used to parse, which does not
// touch its state, so one engine serves every caller.
var checkEngine = sync.OnceValue(func() *liquid.Engine {
	e := liquid.NewEngine()
	nothing := func(render.Context) (string, error) { return "", nil }
	for tag := range editableTags {
		e.RegisterBlock(tag, nothing)
	}
	for _, tag := range []string{tagCanvas, tagRepeatable, tagGroup} {
		e.RegisterBlock(tag, nothing)
	}
	for _, tag := range siteTags {
		e.RegisterTag(tag, nothing)
	}
	return e
})

// checkLiquid reports whether osteele/liquid parses s, as a *ParseError.
// It runs after scanTemplate accepted s, which keeps it linear.
func checkLiquid(s *tplSource) (err error) {
	defer func() {
		// A panic in the third-party parser must not take the server down
		// with a theme push; report it against the source instead.
		if r := recover(); r != nil {
			err = &ParseError{File: s.name, Line: 1, Message: fmt.Sprintf("Liquid could not parse this file: %v", r)}
		}
	}()
	const path = "template"
	_, serr := checkEngine().ParseTemplateLocation([]byte(s.src), path, 1)
	if serr == nil {
		return nil
	}
	line := serr.LineNumber()
	if line < 1 {
		line = 1
	}
	// The message reads "Liquid error (line N): <problem> in <path>".
	msg := strings.TrimPrefix(serr.Error(), "Liquid error")
	if rest, ok := strings.CutPrefix(msg, " (line "); ok {
		if _, after, ok := strings.Cut(rest, ")"); ok {
			msg = after
		}
	}
	msg = strings.TrimSuffix(strings.TrimPrefix(msg, ": "), " in "+path)
	return &ParseError{File: s.name, Line: line, Message: "Liquid: " + msg}
}

// CheckSyntax returns a *ParseError if src, a layout or snippet named name,
// is not valid Liquid or holds a "{{" or "{%" that starts no token (see
// Parse). Unlike Parse it does not check editables: a snippet's may only
// make sense where it is included (repeatables for a canvas, say), so
// snippets are best checked through the templates that include them.
// Like Parse, it refuses a file that nests deeper than DefaultMaxDepth.
func CheckSyntax(name, src string) error { return checkSyntax(name, src, DefaultMaxDepth) }

// checkSyntax is CheckSyntax with nesting bounded by maxDepth.
func checkSyntax(name, src string, maxDepth int) error {
	if err := CheckDepth(name, src, maxDepth); err != nil {
		return err
	}
	toks, err := scanTemplate(name, src)
	if err != nil {
		return err
	}
	return checkLiquid(&tplSource{name: name, src: src, toks: toks})
}
