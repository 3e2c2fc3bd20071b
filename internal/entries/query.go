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
// operators: store.OpNotEqual, …; Values for OpIn and OpNotIn).
type Cond struct {
	Key    string
	Value  string
	Op     string
	Values []string
}

// ParseWhere parses a where= expression: a JSON object of key -> value,
// or a list of key:value pairs separated by commas or white space, where
// value is a JSON string ("…", with escapes) or a bare word (a number,
// true, false, an id). Keys are field names, or _slug / slug, _id / id.
// Errors name what is wrong.
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
	var out []Cond
	for i := 0; i < len(s); {
		// Skip separators.
		if c := s[i]; c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '&' {
			i++
			continue
		}
		colon := strings.IndexByte(s[i:], ':')
		if colon <= 0 {
			return nil, fmt.Errorf("where expects field:\"value\" pairs, got %q", s[i:])
		}
		key := strings.TrimSpace(s[i : i+colon])
		if key == "" || strings.ContainsAny(key, `," `) {
			return nil, fmt.Errorf("where has a malformed field name %q", key)
		}
		i += colon + 1
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i < len(s) && s[i] == '"' {
			end, err := stringEnd(s, i)
			if err != nil {
				return nil, err
			}
			var v string
			if err := json.Unmarshal([]byte(s[i:end]), &v); err != nil {
				return nil, fmt.Errorf("where %s: malformed string %s", key, s[i:end])
			}
			out = append(out, Cond{Key: key, Value: v})
			i = end
			continue
		}
		j := i
		for j < len(s) && s[j] != ',' && s[j] != ' ' && s[j] != '&' {
			j++
		}
		if j == i {
			return nil, fmt.Errorf("where %s: missing value", key)
		}
		v := s[i:j]
		if v == "null" {
			return nil, fmt.Errorf("where %s: null cannot be matched; filter on a value", key)
		}
		out = append(out, Cond{Key: key, Value: v})
		i = j
	}
	return out, nil
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
