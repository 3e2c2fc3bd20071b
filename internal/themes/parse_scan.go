package themes

import (
	"fmt"
	"regexp"
	"strings"
)

// tplToken is one "{{ … }}" object or "{% … %}" tag of a Liquid source;
// the text between tokens is not kept.
type tplToken struct {
	obj        bool   // an object, not a tag
	name       string // a tag's name
	args       string // a tag's arguments, without the name and delimiters
	argsAt     int    // offset of args in the source, -1 when there are none
	start, end int    // the token's extent in the source
	line       int    // 1-based line of start
}

// liquidToken is github.com/osteele/liquid's token pattern (parser.Scan,
// default delimiters), anchored. Running it at each "{{" or "{%" where a
// token may start gives exactly the tokens Liquid sees: the pattern has no
// assertions, so its match at a position depends only on what follows.
var liquidToken = regexp.MustCompile(`^(?:\{\{-?\s*(.+?)\s*-?\}\}|\{%-?\s*(\w+)(?:\s+((?:[^%]|%[^}])+?))?\s*-?%\})`)

// scanTemplate splits src into Liquid tokens, the way osteele/liquid does.
//
// Where Liquid's scanner would silently take a "{{" or "{%" as text because
// no token matches there ("{{ x" with no "}}" on that line, "{% if x" with
// no "%}", "{%}"), scanTemplate reports an error instead. Besides catching
// typos that would drop an editable without a word, this keeps
// osteele/liquid linear: its unanchored scan restarts every such failed
// attempt after each later token, which is quadratic in the input size
// (tens of seconds for 50 KB of "{% x {{a}} "). Without failed attempts,
// its scan and ours do the same linear work.
//
// Each regexp run here is anchored and ends at the token's end (or, for
// the lower-priority "{{" alternatives, at the end of its line), so the
// whole scan is linear too.
func scanTemplate(file, src string) ([]tplToken, error) {
	var toks []tplToken
	err := scanTokens(file, src, func(t tplToken) error {
		toks = append(toks, t)
		return nil
	})
	return toks, err
}

// scanTokens calls fn with each token of src in order, as scanTemplate
// finds them, and stops at the first error, its own or fn's.
func scanTokens(file, src string, fn func(tplToken) error) error {
	line, counted := 1, 0
	for p := 0; p < len(src); {
		i := nextDelim(src, p)
		if i < 0 {
			break
		}
		line += strings.Count(src[counted:i], "\n")
		counted = i
		m := liquidToken.FindStringSubmatchIndex(src[i:])
		if m == nil {
			return &ParseError{File: file, Line: line, Message: unterminated(src[i:])}
		}
		t := tplToken{start: i, end: i + m[1], line: line, argsAt: -1}
		if m[2] >= 0 {
			t.obj = true
			t.args = src[i+m[2] : i+m[3]]
		} else {
			t.name = src[i+m[4] : i+m[5]]
			if m[6] >= 0 {
				t.args, t.argsAt = src[i+m[6]:i+m[7]], i+m[6]
			}
		}
		if err := fn(t); err != nil {
			return err
		}
		p = t.end
	}
	return nil
}

// nextDelim returns the offset of the next "{{" or "{%" at or after p, or -1.
func nextDelim(src string, p int) int {
	for p < len(src) {
		i := strings.IndexByte(src[p:], '{')
		if i < 0 {
			return -1
		}
		i += p
		if i+1 < len(src) && (src[i+1] == '{' || src[i+1] == '%') {
			return i
		}
		p = i + 1
	}
	return -1
}

// unterminated describes a "{{" or "{%" that starts no token.
func unterminated(rest string) string {
	excerpt := rest
	if i := strings.IndexByte(excerpt, '\n'); i >= 0 {
		excerpt = excerpt[:i]
	}
	if len(excerpt) > 24 {
		excerpt = strings.ToValidUTF8(excerpt[:24], "") + "…"
	}
	if strings.HasPrefix(rest, "{{") {
		return fmt.Sprintf(`unterminated output %q: close it with "}}" on the same line`, excerpt)
	}
	return fmt.Sprintf(`unterminated or malformed tag %q: a tag is "{%% name arguments %%}"`, excerpt)
}
