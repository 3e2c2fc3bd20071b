package entries

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Cond is one condition on a list: the entry's Key equals Value (where=),
// or, from cloud code's queries, relates to it as Op says (the store's
// operators: store.OpNotEqual, …; Values for OpIn and OpNotIn). A Cond
// with Any holds when any of those conditions holds (its other fields are
// unused); they have no Any of their own.
type Cond struct {
	Key    string
	Value  string
	Op     string
	Values []string
	Any    []Cond
}

// ParseWhere parses a where= expression: a JSON object of key -> value,
// or a list of key:value pairs separated by commas or white space, where
// value is a JSON string ("…", with escapes) or a bare word (a number,
// true, false, an id). Pairs joined by the word OR (any case) are one
// condition that holds when any of them does; the others must all hold,
// so OR binds closer than the separators, as in web search:
// `a:1, b:2 OR c:3` is a AND (b OR c). Keys are field names, or _slug /
// slug, _id / id. Errors name what is wrong.
func ParseWhere(s string) ([]Cond, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("where is not valid UTF-8")
	}
	if s[0] == '{' {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			return nil, fmt.Errorf("where is not a JSON object: %v", err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make([]Cond, 0, len(m))
		for _, k := range keys {
			v, err := condText(m[k])
			if err != nil {
				return nil, fmt.Errorf("where %s: %v", k, err)
			}
			out = append(out, Cond{Key: k, Value: v})
		}
		return out, nil
	}
	var out, alts []Cond
	or := false // an OR was read after the last pair
	flush := func() {
		switch len(alts) {
		case 0:
		case 1:
			out = append(out, alts[0])
		default:
			out = append(out, Cond{Any: alts})
		}
		alts = nil
	}
	for i := 0; i < len(s); {
		if separator(s[i]) {
			i++
			continue
		}
		if isOr(s, i) {
			if len(alts) == 0 || or {
				return nil, fmt.Errorf("where: OR must stand between two field:\"value\" pairs")
			}
			or = true
			i += 2
			continue
		}
		c, end, err := parsePair(s, i)
		if err != nil {
			return nil, err
		}
		if !or {
			flush()
		}
		alts, or, i = append(alts, c), false, end
	}
	if or {
		return nil, fmt.Errorf("where: OR must stand between two field:\"value\" pairs")
	}
	flush()
	return out, nil
}

// isOr reports whether the word OR (any case) starts at s[i]: followed by
// a separator or the end, and not by a colon (then it is a key: "or :x").
func isOr(s string, i int) bool {
	if len(s) < i+2 || !strings.EqualFold(s[i:i+2], "or") {
		return false
	}
	j := i + 2
	if j < len(s) && !separator(s[j]) {
		return false
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		j++
	}
	return j == len(s) || s[j] != ':'
}

// separator reports whether c separates two where= pairs.
func separator(c byte) bool {
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '&'
}

// parsePair parses the key:value pair starting at s[i] and returns it and
// the index after it.
func parsePair(s string, i int) (Cond, int, error) {
	colon := strings.IndexByte(s[i:], ':')
	if colon <= 0 {
		return Cond{}, 0, fmt.Errorf("where expects field:\"value\" pairs, got %q", s[i:])
	}
	key := strings.TrimSpace(s[i : i+colon])
	if key == "" || strings.ContainsAny(key, `," `) {
		return Cond{}, 0, fmt.Errorf("where has a malformed field name %q", key)
	}
	i += colon + 1
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && s[i] == '"' {
		end, err := stringEnd(s, i)
		if err != nil {
			return Cond{}, 0, err
		}
		var v string
		if err := json.Unmarshal([]byte(s[i:end]), &v); err != nil {
			return Cond{}, 0, fmt.Errorf("where %s: malformed string %s", key, s[i:end])
		}
		return Cond{Key: key, Value: v}, end, nil
	}
	j := i
	for j < len(s) && !separator(s[j]) {
		j++
	}
	if j == i {
		return Cond{}, 0, fmt.Errorf("where %s: missing value", key)
	}
	v := s[i:j]
	if v == "null" {
		return Cond{}, 0, fmt.Errorf("where %s: null cannot be matched; filter on a value", key)
	}
	return Cond{Key: key, Value: v}, j, nil
}

// stringEnd returns the index after the JSON string starting at s[i].
func stringEnd(s string, i int) (int, error) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("where has an unterminated string %s", s[i:])
}

// condText is the text a JSON where value is compared as.
func condText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case float64:
		return numberText(v), nil
	case bool:
		if v {
			return "true", nil
		}
		return "false", nil
	}
	return "", fmt.Errorf("must be a string, a number or a boolean")
}

// SortKey is one parsed sort= key.
type SortKey struct {
	Key  string
	Desc bool
}

// ParseSort parses sort=: keys separated by commas, each "key", "-key",
// "key:asc|desc" or "key asc|desc".
func ParseSort(s string) ([]SortKey, error) {
	var out []SortKey
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k := SortKey{}
		if rest, ok := strings.CutPrefix(part, "-"); ok {
			k.Desc, part = true, rest
		}
		if i := strings.IndexAny(part, ": "); i >= 0 {
			dir := strings.ToLower(strings.TrimSpace(part[i+1:]))
			part = strings.TrimSpace(part[:i])
			switch dir {
			case "asc":
			case "desc":
				k.Desc = !k.Desc
			default:
				return nil, fmt.Errorf("sort direction must be asc or desc, got %q", dir)
			}
		}
		if part == "" || !utf8.ValidString(part) {
			return nil, fmt.Errorf("sort has an empty or malformed key")
		}
		k.Key = part
		out = append(out, k)
	}
	return out, nil
}
