package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/lru"
)

// Text no store can hold: PostgreSQL refuses NUL in text and invalid UTF-8
// anywhere, where SQLite would store them. Refusing such input at the door
// gives one answer on every store, and the services never see it.

// checkRequestText refuses a path with NUL or invalid UTF-8 (404: no record
// can be named so) and a query value or name with either (400).
func checkRequestText(r *http.Request) error {
	if !cleanText(r.URL.Path) {
		return cms.ErrNotFound()
	}
	if r.URL.RawQuery == "" {
		return nil
	}
	if q, ok := queries.get(r.URL.RawQuery); ok {
		info(r).query = q
		return nil
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return cms.Errorf(cms.EBadRequest, "The query string is malformed: %v.", err)
	}
	for k, vs := range q {
		if !cleanText(k) {
			return cms.Errorf(cms.EBadRequest, "A query parameter name is not valid text.")
		}
		for _, v := range vs {
			if !cleanText(v) {
				return cms.Errorf(cms.EBadRequest, "Query parameter %q is not valid text (NUL or invalid UTF-8).", k)
			}
		}
	}
	queries.put(r.URL.RawQuery, q)
	info(r).query = q // the handlers' options are read from it
	return nil
}

// queries keeps the checked, parsed query strings seen last: clients send
// the same few again and again (compact=1, per_page=20), and a parse makes
// a map per request. The values are never changed (see query), so one
// parse serves every request with that string; parsing is a pure function
// of the string, so nothing can make an entry stale. When full, the least
// recently used strings go.
var queries = &queryCache{c: lru.Cache[string, url.Values]{MaxEntries: maxQueries}}

// maxQueries bounds queryCache.
const maxQueries = 1024

type queryCache struct{ c lru.Cache[string, url.Values] }

func (q *queryCache) get(raw string) (url.Values, bool) { return q.c.Get(raw) }

func (q *queryCache) put(raw string, v url.Values) {
	if len(raw) > 256 {
		return // long ones are rarely sent twice; keep the cache small
	}
	q.c.Put(raw, v)
}

func cleanText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// jsonHasNUL reports whether a JSON text has a string holding NUL (written
// \u0000, the only way JSON can carry it). It follows string boundaries,
// so an escaped backslash before "u0000" is not mistaken for one.
func jsonHasNUL(b []byte) bool {
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == 0:
			return true
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\' && i+1 < len(b):
			if b[i+1] == 'u' && i+5 < len(b) && string(b[i+2:i+6]) == "0000" {
				return true
			}
			i++ // the escaped character
		}
	}
	return false
}
