package cms

import "strings"

// ParseIfMatch parses an If-Match header value. It accepts exactly one
// strong entity tag, quoted or not, and "*"; a weak tag (W/"…"), a list, an
// empty value or stray quotes do not parse (ok false). Clients of the
// original service send the bare md5, the quoted form, or the ETag header
// as they read it.
func ParseIfMatch(h string) (etag string, ok bool) {
	h = strings.TrimSpace(h)
	if h == "" || strings.HasPrefix(h, "W/") || strings.HasPrefix(h, "w/") || strings.Contains(h, ",") {
		return "", false
	}
	if strings.HasPrefix(h, `"`) {
		if len(h) < 2 || !strings.HasSuffix(h, `"`) {
			return "", false
		}
		h = h[1 : len(h)-1]
	}
	if h == "" || strings.ContainsAny(h, "\" \t") {
		return "", false
	}
	return h, true
}
