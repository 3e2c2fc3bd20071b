package cms

import (
	"encoding/json"
	"strings"
)

// Bool reads a boolean as the API accepts one in a body: JSON true/false,
// or the switch value set (true, false, yes, no, 1, 0, on, off, any case)
// as a string or number. ok is false for anything else.
func Bool(v any) (b, ok bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "1", "on":
			return true, true
		case "false", "no", "0", "off":
			return false, true
		}
	case json.Number:
		return Bool(v.String())
	case float64:
		if v == 1 || v == 0 {
			return v == 1, true
		}
	}
	return false, false
}
