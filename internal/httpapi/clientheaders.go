package httpapi

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// DefaultClientHeaderPrefix is the prefix of the headers a client names
// its site, its version and a customer's session with: X-Service-Site,
// X-Service-Client-Version, X-Service-Session-Token.
const DefaultClientHeaderPrefix = "Service"

// clientHeaderPrefixRE keeps a prefix one header-name token, so that
// X-<prefix>-Site is a valid header name.
var clientHeaderPrefixRE = regexp.MustCompile(`^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$`)

// CheckClientHeaderPrefix reports whether prefix can name client headers
// (--client-header-prefix): letters and digits, in dash-separated parts.
func CheckClientHeaderPrefix(prefix string) error {
	if len(prefix) > 40 || !clientHeaderPrefixRE.MatchString(prefix) {
		return fmt.Errorf("client header prefix %q: use letters and digits (and single dashes between them), at most 40", prefix)
	}
	return nil
}

// headerKey is one client header under its canonical names: the
// X-Service-… one and, when the server takes another prefix, that one's
// ("" when not). Both are canonical already, so a read is a map lookup
// with no allocation.
type headerKey [2]string

// value returns the header's value: the X-Service-… one when the request
// sends it, else the other prefix's.
func (k *headerKey) value(h http.Header) string {
	if v := h[k[0]]; len(v) > 0 {
		return v[0]
	}
	if k[1] != "" {
		if v := h[k[1]]; len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// clientHeaders are the request headers a client of the API names its
// site, its version and a customer's session with, made once when the
// server starts. Every read of them goes through here.
type clientHeaders struct {
	site, version, session headerKey
	// corsAllow is the Access-Control-Allow-Headers value, with the other
	// prefix's names beside the X-Service-… ones.
	corsAllow []string
}

// newClientHeaders returns the headers for prefix ("" or
// DefaultClientHeaderPrefix: X-Service-… only). An invalid prefix is
// ignored here; serve checks it (CheckClientHeaderPrefix) before.
func newClientHeaders(prefix string) *clientHeaders {
	c := &clientHeaders{}
	names := []string{"Site", "Client-Version", "Session-Token"}
	keys := []*headerKey{&c.site, &c.version, &c.session}
	other := prefix != "" && !strings.EqualFold(prefix, DefaultClientHeaderPrefix) && CheckClientHeaderPrefix(prefix) == nil
	allow := []string{"Authorization", "Content-Type", "If-Match"}
	for i, n := range names {
		keys[i][0] = "X-" + DefaultClientHeaderPrefix + "-" + n
		allow = append(allow, keys[i][0])
		if other {
			keys[i][1] = http.CanonicalHeaderKey("X-" + prefix + "-" + n)
			allow = append(allow, keys[i][1])
		}
	}
	c.corsAllow = []string{strings.Join(allow, ", ")}
	return c
}

// defaultClientHeaders serve requests whose info names no server's
// headers (a handler reached without logRequests or handle).
var defaultClientHeaders = newClientHeaders("")

// clientHeaders returns the client headers of the server that took the
// request.
func (i *requestInfo) clientHeaders() *clientHeaders {
	if i.headers == nil {
		return defaultClientHeaders
	}
	return i.headers
}

// siteHeader is the site the request names (X-Service-Site), trimmed.
func siteHeader(r *http.Request) string {
	return strings.TrimSpace(info(r).clientHeaders().site.value(r.Header))
}

// clientVersion reports whether the request sends a client version
// (X-Service-Client-Version): file objects then carry __type.
func clientVersion(r *http.Request) bool {
	return info(r).clientHeaders().version.value(r.Header) != ""
}

// sessionToken is the customer session token the request sends
// (X-Service-Session-Token), trimmed.
func sessionToken(r *http.Request) string {
	return strings.TrimSpace(info(r).clientHeaders().session.value(r.Header))
}
