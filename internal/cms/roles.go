package cms

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// MaxRoleBytes bounds a customer role name.
const MaxRoleBytes = 100

// RoleNames checks a list of customer role names (what a page or a
// channel requires, a customer holds): names trimmed, blanks dropped, each
// kept once, in order; a name over MaxRoleBytes or with a control
// character is an error naming it.
func RoleNames(list []string) ([]string, error) {
	var out []string
	for _, r := range list {
		r = strings.TrimSpace(r)
		if r == "" || slices.Contains(out, r) {
			continue
		}
		if len(r) > MaxRoleBytes || strings.ContainsFunc(r, unicode.IsControl) {
			return nil, fmt.Errorf("%q is not a role name (at most %d bytes, no control characters)", r, MaxRoleBytes)
		}
		out = append(out, r)
	}
	return out, nil
}

// HasRole reports whether held holds one of required; requiring none is
// always met.
func HasRole(held, required []string) bool {
	if len(required) == 0 {
		return true
	}
	for _, r := range required {
		if slices.Contains(held, r) {
			return true
		}
	}
	return false
}
