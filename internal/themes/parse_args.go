package themes

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tagArgs are an editable tag's arguments: the slug, then keyword options.
type tagArgs struct {
	slug string
	opts map[string]argValue
}

// argValue is one option's value.
type argValue struct {
	kind argKind
	text string // the string's contents, or the number or identifier as written
	at   int    // offset of the value in the arguments
}

type argKind int

const (
	argString argKind = iota
	argNumber
	argBool
	argIdent // a variable; only unknown options may use one
)

func (k argKind) String() string {
	return [...]string{"a quoted string", "a number", "true or false", "a variable"}[k]
}

// argError is a problem at an offset of a tag's arguments.
type argError struct {
	at  int
	msg string
}

func argErrorf(at int, format string, a ...any) *argError {
	return &argError{at, fmt.Sprintf(format, a...)}
}

// parseTagArgs parses `'slug', key: value, key: value`. Strings are Liquid
// strings: single or double quotes, no escapes.
func parseTagArgs(s string) (*tagArgs, *argError) {
	l := argLexer{s: s}
	l.space()
	if l.eof() {
		return nil, argErrorf(l.p, "missing slug: the first argument is a quoted string")
	}
	at := l.p
	slug, err := l.str()
	if err != nil {
		return nil, err
	}
	if err := checkSlug(slug); err != "" {
		return nil, argErrorf(at, "%s", err)
	}
	a := &tagArgs{slug: slug, opts: map[string]argValue{}}
	for {
		l.space()
		if l.eof() {
			return a, nil
		}
		if l.s[l.p] != ',' {
			return nil, argErrorf(l.p, "expected ',' before %s", l.excerpt())
		}
		l.p++
		l.space()
		at := l.p
		key := l.word(false)
		if key == "" {
			return nil, argErrorf(at, "expected an option name, got %s", l.excerpt())
		}
		if _, dup := a.opts[key]; dup {
			return nil, argErrorf(at, "option %s given twice", key)
		}
		l.space()
		if l.eof() || l.s[l.p] != ':' {
			return nil, argErrorf(l.p, "expected ':' after option %s, got %s", key, l.excerpt())
		}
		l.p++
		l.space()
		v, err := l.value()
		if err != nil {
			return nil, err
		}
		a.opts[key] = v
	}
}

// checkSlug returns what is wrong with a slug, or "".
func checkSlug(slug string) string {
	switch {
	case strings.TrimSpace(slug) == "":
		return "empty slug"
	case strings.TrimSpace(slug) != slug:
		return fmt.Sprintf("slug %q starts or ends with spaces", slug)
	case !utf8.ValidString(slug):
		return fmt.Sprintf("slug %q is not valid UTF-8", slug)
	}
	for _, r := range slug {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("slug %q contains a control character", slug)
		}
	}
	return ""
}

type argLexer struct {
	s string
	p int
}

func (l *argLexer) eof() bool { return l.p >= len(l.s) }

func (l *argLexer) space() {
	for l.p < len(l.s) && isSpace(l.s[l.p]) {
		l.p++
	}
}

// isSpace reports whether c is white space to Liquid (Go regexp's \s, and \v).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// excerpt quotes what follows for an error message.
func (l *argLexer) excerpt() string {
	if l.eof() {
		return "the end of the tag"
	}
	rest := l.s[l.p:]
	if len(rest) > 16 {
		rest = strings.ToValidUTF8(rest[:16], "") + "…"
	}
	return fmt.Sprintf("%q", rest)
}

// str reads a quoted string.
func (l *argLexer) str() (string, *argError) {
	if l.eof() || (l.s[l.p] != '\'' && l.s[l.p] != '"') {
		return "", argErrorf(l.p, "expected a quoted string, got %s", l.excerpt())
	}
	q := l.s[l.p]
	end := strings.IndexByte(l.s[l.p+1:], q)
	if end < 0 {
		return "", argErrorf(l.p, "unterminated string %s", l.excerpt())
	}
	v := l.s[l.p+1 : l.p+1+end]
	if strings.Contains(v, "%}") {
		// Liquid ends a tag at the first "%}"; one that survives inside a
		// string only did because a '%' before it paired with it, which a
		// reader (and Format) cannot count on.
		return "", argErrorf(l.p, `a string cannot contain "%%}"`)
	}
	l.p += end + 2
	return v, nil
}

// word reads an option name or, with dots, a variable.
func (l *argLexer) word(dots bool) string {
	start := l.p
	for l.p < len(l.s) {
		c := l.s[l.p]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			l.p > start && (c >= '0' && c <= '9' || c == '-' || dots && c == '.') {
			l.p++
			continue
		}
		break
	}
	return l.s[start:l.p]
}

// value reads an option value: a string, a number, true, false or a variable.
func (l *argLexer) value() (argValue, *argError) {
	at := l.p
	if l.eof() {
		return argValue{}, argErrorf(at, "expected a value, got the end of the tag")
	}
	switch c := l.s[l.p]; {
	case c == '\'' || c == '"':
		s, err := l.str()
		return argValue{kind: argString, text: s, at: at}, err
	case c == '-' || c >= '0' && c <= '9':
		if c == '-' {
			l.p++
		}
		ok := l.digits()
		if ok && l.p < len(l.s) && l.s[l.p] == '.' {
			l.p++
			ok = l.digits()
		}
		if !ok {
			return argValue{}, argErrorf(at, "malformed number %q", l.s[at:l.p])
		}
		return argValue{kind: argNumber, text: l.s[at:l.p], at: at}, nil
	default:
		w := l.word(true)
		switch w {
		case "":
			return argValue{}, argErrorf(at, "expected a value, got %s", l.excerpt())
		case "true", "false":
			return argValue{kind: argBool, text: w, at: at}, nil
		}
		return argValue{kind: argIdent, text: w, at: at}, nil
	}
}

// digits reads a run of digits and reports whether there was one.
func (l *argLexer) digits() bool {
	start := l.p
	for l.p < len(l.s) && l.s[l.p] >= '0' && l.s[l.p] <= '9' {
		l.p++
	}
	return l.p > start
}
