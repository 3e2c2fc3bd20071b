package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/store"
)

// List paging defaults (docs/api.md, "Lists").
const (
	defaultPerPage = 25
	maxPerPage     = 100
)

// pageParams reads the `page` (1-based) and `per_page` query parameters.
// per_page above the maximum is clamped; a value that is not a positive
// number is refused so that a typo does not silently return page one.
func pageParams(r *http.Request) (page, perPage int, err error) {
	q := query(r)
	page, perPage = 1, defaultPerPage
	if v := q.Get("page"); v != "" {
		// The upper bound keeps the offset (page-1)*per_page far from overflow.
		if page, err = strconv.Atoi(v); err != nil || page < 1 || page > 1e9 {
			return 0, 0, cms.Errorf(cms.EInvalid, "Invalid page %q: use a number from 1 to 1000000000.", v)
		}
	}
	if v := q.Get("per_page"); v != "" {
		if perPage, err = strconv.Atoi(v); err != nil || perPage < 1 {
			return 0, 0, cms.Errorf(cms.EInvalid, "Invalid per_page %q: use a number from 1 to %d.", v, maxPerPage)
		}
		perPage = min(perPage, maxPerPage)
	}
	return page, perPage, nil
}

// listOptions turns paging parameters into a store window.
func listOptions(page, perPage int) store.ListOptions {
	return store.ListOptions{Offset: (page - 1) * perPage, Limit: perPage}
}

// writeList writes a bare JSON array with the paging headers of docs/api.md ("Lists").
func writeList(w http.ResponseWriter, r *http.Request, items any, total, page, perPage int) {
	setPaging(w, r, total, page, perPage)
	writeJSON(w, http.StatusOK, items)
}

// setPaging sets the paging headers of a list response.
func setPaging(w http.ResponseWriter, r *http.Request, total, page, perPage int) {
	pages := (total + perPage - 1) / perPage
	h := w.Header()
	h["X-Total-Count"] = []string{strconv.Itoa(total)} // canonical keys, as in writeRawJSON
	h["X-Total-Pages"] = []string{strconv.Itoa(pages)}
	if page < pages {
		next := *r.URL
		q := next.Query()
		q.Set("page", strconv.Itoa(page+1))
		q.Set("per_page", strconv.Itoa(perPage))
		next.RawQuery = q.Encode()
		h.Set("Link", fmt.Sprintf(`<%s>; rel="next"`, requestURL(r, &next)))
	}
}

// requestURL returns u as an absolute URL on the host the request came to,
// with the scheme the client used (requestScheme).
func requestURL(r *http.Request, u *url.URL) string {
	abs := *u
	abs.Scheme, abs.Host = requestScheme(r), r.Host
	return abs.String()
}

// writeCount answers a `/count` route.
func writeCount(w http.ResponseWriter, n int) {
	writeJSON(w, http.StatusOK, map[string]int{"count": n})
}

// writeArray writes a JSON array already made with the paging headers.
func writeArray(w http.ResponseWriter, r *http.Request, body []byte, total, page, perPage int) {
	setPaging(w, r, total, page, perPage)
	writeRawJSON(w, http.StatusOK, body)
}

// writeRawList writes rendered documents as a bare JSON array with the
// paging headers.
func writeRawList(w http.ResponseWriter, r *http.Request, docs [][]byte, total, page, perPage int) {
	writeArray(w, r, jsonw.Array(docs), total, page, perPage)
}
