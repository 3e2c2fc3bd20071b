package themes

import (
	"errors"
	"maps"
)

// Tag names of the editable tags, for the renderer of the public site.
const (
	TagCanvas     = tagCanvas
	TagRepeatable = tagRepeatable
	TagGroup      = tagGroup
)

// Tags of the public site that templates may use besides the editables
// and standard Liquid; the renderer defines them, and theme pushes accept them.
const (
	TagLayout     = "layout"
	TagLoginForm  = "customer_login_form"
	TagLogoutForm = "customer_logout_form"
)

var siteTags = []string{TagLayout, TagLoginForm, TagLogoutForm}

// EditableTags returns the tags that declare a non-canvas editable, each
// with the editable type it declares.
func EditableTags() map[string]string { return maps.Clone(editableTags) }

// TagSlug returns the slug an editable, canvas, repeatable or group tag's
// arguments name (their first, quoted argument). Templates were checked
// when they were pushed, so an error here means a template that was never
// checked (one sent to the simulator).
func TagSlug(args string) (string, error) {
	a, err := parseTagArgs(args)
	if err != nil {
		return "", errors.New(err.msg)
	}
	return a.slug, nil
}
