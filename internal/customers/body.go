package customers

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Password bounds: bcrypt reads at most 72 bytes, so a longer password is
// refused rather than silently cut.
const (
	minPassword = 8
	maxPassword = 72
	maxText     = 200 // names, slugs, statuses, group and role names
	maxList     = 100 // groups and roles
)

// readOnlyKeys are keys of the read shape a write may carry back (a client
// that PUTs what it read) and that are ignored.
var readOnlyKeys = []string{"id", "created_at", "updated_at", "last_activity_at", "number", "url",
	"confirmation_token", "session_token"}

// write is a decoded customer write body: nil fields were not sent.
type write struct {
	name, firstname, lastname, email, language, status, slug *string
	groups, roles                                            *[]string
	password                                                 *string
	// custom holds every other key: custom fields (and their
	// translations), checked against the site's definitions.
	custom map[string]any
}

// decodeWrite decodes a create or update body. Errors: invalid_json for a
// body that is not a JSON object, validation_failed naming the field for a
// value of the wrong type or an unknown key.
func decodeWrite(body []byte) (*write, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object.")
	}
	w := &write{}
	for k, raw := range m {
		var err error
		switch k {
		case "name":
			w.name, err = text(k, raw)
		case "firstname":
			w.firstname, err = text(k, raw)
		case "lastname":
			w.lastname, err = text(k, raw)
		case "email":
			w.email, err = text(k, raw)
		case "language":
			w.language, err = text(k, raw)
		case "status":
			w.status, err = text(k, raw)
		case "slug":
			w.slug, err = text(k, raw)
		case "groups":
			w.groups, err = list(k, raw)
		case "roles":
			w.roles, err = list(k, raw)
		case "password":
			w.password, err = text(k, raw)
		case "password_confirmation":
			// checked below, against password
		default:
			if slices.Contains(readOnlyKeys, k) {
				break
			}
			var v any
			if err = json.Unmarshal(raw, &v); err != nil {
				return nil, cms.FieldError(k, "is not valid JSON")
			}
			if w.custom == nil {
				w.custom = map[string]any{}
			}
			w.custom[k] = v
		}
		if err != nil {
			return nil, err
		}
	}
	if raw, ok := m["password_confirmation"]; ok {
		conf, err := text("password_confirmation", raw)
		if err != nil {
			return nil, err
		}
		if w.password == nil || *conf != *w.password {
			return nil, cms.FieldError("password_confirmation", "does not match password")
		}
	}
	if w.password != nil {
		switch n := len(*w.password); {
		case n < minPassword:
			return nil, cms.FieldError("password", "must be at least 8 characters")
		case n > maxPassword:
			return nil, cms.FieldError("password", "must be at most 72 bytes")
		}
	}
	return w, nil
}

// text decodes a string field; null reads as "".
func text(field string, raw json.RawMessage) (*string, error) {
	var s string
	if !bytes.Equal(raw, []byte("null")) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, cms.FieldError(field, "must be a string")
		}
	}
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return nil, cms.FieldError(field, "must be valid text")
	}
	if field != "password" && len(s) > maxText && field != "email" {
		return nil, cms.FieldError(field, "is too long")
	}
	return &s, nil
}

// list decodes an array of strings; null reads as empty. Blank entries are
// dropped and duplicates kept once, in the order sent.
func list(field string, raw json.RawMessage) (*[]string, error) {
	var in []string
	if !bytes.Equal(raw, []byte("null")) {
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, cms.FieldError(field, "must be an array of strings")
		}
	}
	if len(in) > maxList {
		return nil, cms.FieldError(field, "holds at most 100 names")
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		s = strings.TrimSpace(s)
		if len(s) > maxText || strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			return nil, cms.FieldError(field, "holds a name that is too long or not text")
		}
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return &out, nil
}
