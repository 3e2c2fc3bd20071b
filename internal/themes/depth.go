package themes

import (
	"fmt"
	"strings"
)

// DefaultMaxDepth is how deep a Liquid file may nest when no other bound
// is given: blocks inside blocks, and brackets inside one output or tag.
// Themes stay far below it. The bound exists because osteele/liquid
// compiles and renders blocks (and evaluates expressions) by recursion: a
// few hundred thousand levels, a few hundred KB of text, overflow the
// goroutine's stack, which ends the process; no recover catches it.
const DefaultMaxDepth = 100

// Nesting is how deeply a Liquid source nests, and where.
type Nesting struct {
	// Blocks is the deepest nesting of block tags (if, for, capture, the
	// editable tags…); BlocksLine is the line of the tag that reaches it.
	Blocks, BlocksLine int
	// Brackets is the deepest nesting of ( and [ inside one output or tag
	// (outside quoted strings); BracketsLine is the line of that token.
	Brackets, BracketsLine int
}

// blockTags are the tags that open a block in every engine a theme meets
// (the schema parser's, the check's and the renderer's). comment and raw
// are blocks too, but what they enclose is never parsed.
var blockTags = func() map[string]bool {
	m := map[string]bool{tagCanvas: true, tagRepeatable: true, tagGroup: true}
	for t := range liquidBlocks {
		m[t] = true
	}
	for t := range editableTags {
		m[t] = true
	}
	return m
}()

// MeasureNesting returns how deeply src, the Liquid file named file, nests.
// It reads the raw text in one linear pass and recurses nowhere, so it is
// safe on any input, and it sees the tokens Liquid sees. Like Parse it
// refuses, with a *ParseError, a "{{" or "{%" that starts no token: Liquid
// would take it as text, but its scanner is quadratic on such input.
func MeasureNesting(file, src string) (Nesting, error) { return nesting(file, src, 0) }

// nesting is MeasureNesting that, when limit is positive, stops with a
// *ParseError at the first token that nests deeper than limit.
func nesting(file, src string, limit int) (Nesting, error) {
	var n Nesting
	depth := 0
	skip := "" // the end tag that closes the comment or raw being skipped
	err := scanTokens(file, src, func(t tplToken) error {
		if skip != "" {
			if !t.obj && t.name == skip {
				skip = ""
			}
			return nil
		}
		if d := bracketDepth(t.args); d > n.Brackets {
			n.Brackets, n.BracketsLine = d, t.line
			if limit > 0 && d > limit {
				return &ParseError{File: file, Line: t.line,
					Message: fmt.Sprintf("brackets nest more than %d levels deep in one output or tag", limit)}
			}
		}
		switch {
		case t.obj:
		case t.name == "comment" || t.name == "raw":
			skip = "end" + t.name
		case blockTags[t.name]:
			if depth++; depth > n.Blocks {
				n.Blocks, n.BlocksLine = depth, t.line
				if limit > 0 && depth > limit {
					return &ParseError{File: file, Line: t.line,
						Message: fmt.Sprintf("{%% %s %%} nests blocks more than %d levels deep", t.name, limit)}
				}
			}
		case strings.HasPrefix(t.name, "end") && blockTags[t.name[3:]]:
			// An end tag that closes nothing is the parser's error to
			// report; here it only must not make the depth negative.
			depth = max(depth-1, 0)
		}
		return nil
	})
	return n, err
}

// bracketDepth returns the deepest nesting of ( and [ in the arguments of
// a token, outside quoted strings (Liquid's strings have no escapes).
func bracketDepth(args string) int {
	depth, deepest := 0, 0
	var quote byte
	for i := 0; i < len(args); i++ {
		switch c := args[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == ')' || c == ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// CheckDepth returns a *ParseError naming file and line when src nests
// deeper than maxDepth (DefaultMaxDepth when maxDepth is 0 or less), or
// when it holds a "{{" or "{%" that starts no token (see MeasureNesting).
// It is meant to run on a file before any Liquid parser sees it.
func CheckDepth(file, src string, maxDepth int) error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	_, err := nesting(file, src, maxDepth)
	return err
}
