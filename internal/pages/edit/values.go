package edit

// Reading the loosely typed values of a decoded body (strings, lists,
// integers, locales, ids, roles), shared by PUT and the batch engine.

import (
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
)

// asString reads a string; null reads as "".
func asString(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	}
	return "", false
}

func asStrings(v any) ([]string, bool) {
	if v == nil {
		return nil, true
	}
	raw, ok := v.([]any)
	if !ok {
		return nil, false
	}
	if len(raw) == 0 {
		return nil, true
	}
	out := make([]string, len(raw))
	for i, e := range raw {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

func asInt(v any) (int, bool) {
	var f float64
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			if n < math.MinInt32 || n > math.MaxInt32 {
				return 0, false
			}
			return int(n), true
		}
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, false
		}
	case float64:
		f = v
	case int:
		return v, true
	default:
		return 0, false
	}
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// validLocale reports whether s looks like a locale code: two or three
// letters, then optional subtags of 2 to 8 letters or digits after '-' or
// '_' ("en", "pt-BR", "zh_Hant").
func validLocale(s string) bool {
	if len(s) > 35 {
		return false
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) == 0 || strings.Count(s, "-")+strings.Count(s, "_") != len(parts)-1 {
		return false
	}
	for i, p := range parts {
		if i == 0 && (len(p) < 2 || len(p) > 3) || len(p) < 2 || len(p) > 8 {
			return false
		}
		for _, c := range p {
			letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
			if !letter && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Why a value is not a list of ids (parseIDList).
const (
	idListOK    = iota
	idListShape // neither an id, an array nor null
	idNotString // an element is not a string
	idInvalid   // an element is not a 24-hex id
)

// parseIDList reads a reference value that is null, one id or an array of
// ids, returning the ids lower-cased without duplicates, or why it is not
// such a value and the offending element. PUT and batch share it and word
// their errors differently.
func parseIDList(v any) (ids []string, bad any, why int) {
	var raw []any
	switch v := v.(type) {
	case nil:
		return nil, nil, idListOK
	case string:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, v, idListShape
	}
	ids = make([]string, 0, len(raw))
	for _, e := range raw {
		s, ok := e.(string)
		if !ok {
			return nil, e, idNotString
		}
		if !cms.IsID(s) {
			return nil, s, idInvalid
		}
		if s = strings.ToLower(s); !slices.Contains(ids, s) {
			ids = append(ids, s)
		}
	}
	return ids, nil, idListOK
}

// ParseRoles reads a list of customer role names (a page's roles): an
// array of strings, or null for none (see cms.RoleNames).
func ParseRoles(v any) ([]string, error) {
	list, ok := asStrings(v)
	if !ok {
		return nil, errInvalid("roles must be an array of customer role names")
	}
	out, err := cms.RoleNames(list)
	if err != nil {
		return nil, errInvalid("roles: %v", err)
	}
	return out, nil
}
