package pages

import (
	"github.com/tessera-cms/tessera/internal/cms"
)

// ParseIfMatch parses an If-Match header value (cms.ParseIfMatch).
func ParseIfMatch(h string) (etag string, ok bool) { return cms.ParseIfMatch(h) }

// CheckIfMatch checks an If-Match header against the page's current ETag.
// A stale, weak, listed or malformed value is the spec's 412
// precondition_failed carrying current_etag (unquoted).
func CheckIfMatch(header, current string) error {
	tag, ok := ParseIfMatch(header)
	if ok && (tag == "*" || tag == current) {
		return nil
	}
	return cms.Errorf(cms.EPreconditionFailed, "Page was modified").
		WithField("current_etag", current)
}
