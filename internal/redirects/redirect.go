// Package redirects keeps a site's redirects: a source path (a trailing *
// matches every path below it) to a target path or URL, 301 or 302. The
// public site answers them before it looks for a page, a page whose path
// changes gets one from its old path (pages.Service.Moved), and a redirect
// that would lead back to where it started is refused.
package redirects

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// Bounds.
const (
	maxPath = 2 << 10
	// maxRedirects bounds the redirects of one site the public site and
	// the loop check read.
	maxRedirects = 20000
	// maxHops is how long a chain of redirects may be.
	maxHops = 20
)

// doc is a redirect's stored document; its source is the record's key.
type doc struct {
	Target string `json:"target"`
	Status int    `json:"status"`
}

// Redirect is a stored redirect.
type Redirect struct {
	rec *store.Record
	doc
}

func decode(r *store.Record) (*Redirect, error) {
	rd := &Redirect{rec: r}
	if err := json.Unmarshal(r.Doc, &rd.doc); err != nil {
		return nil, fmt.Errorf("redirects: decode %s: %w", r.ID, err)
	}
	if rd.Status == 0 {
		rd.Status = 301
	}
	return rd, nil
}

// view is a redirect's read shape: the original client's Redirect, with
// its status.
type view struct {
	ID        string `json:"id"`
	Source    string `json:"source"`
	Target    string `json:"target"`
	Status    int    `json:"status"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

func (rd *Redirect) view() view {
	return view{ID: rd.rec.ID, Source: rd.rec.Key, Target: rd.Target, Status: rd.Status,
		CreatedAt: cms.FormatTime(rd.rec.CreatedAt), UpdatedAt: cms.FormatTime(rd.rec.UpdatedAt)}
}

// NormalizeSource checks a source path and returns it as stored: a path
// starting with one /, without a query or fragment, without a trailing /
// (but "/"), and with * only as its last character.
func NormalizeSource(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", cms.FieldError("source", "is required.")
	case !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//"):
		return "", cms.FieldError("source", "must be a path on the site, starting with one / (got "+fmt.Sprintf("%q", s)+").")
	case len(s) > maxPath:
		return "", cms.FieldError("source", fmt.Sprintf("is longer than %d bytes.", maxPath))
	case strings.ContainsAny(s, "?#"):
		return "", cms.FieldError("source", "is a path: it holds no query (?) or fragment (#).")
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) || r == '\\' }):
		return "", cms.FieldError("source", "holds a space, a backslash or a control character.")
	case strings.Contains(strings.TrimSuffix(s, "*"), "*"):
		return "", cms.FieldError("source", "may hold * only at its end (/blog/* matches every path below /blog/).")
	}
	if u, err := url.PathUnescape(s); err == nil {
		s = u
	}
	if strings.HasSuffix(s, "*") {
		return s, nil
	}
	if len(s) > 1 {
		s = strings.TrimRight(s, "/")
		if s == "" {
			s = "/"
		}
	}
	return s, nil
}

// checkTarget checks a target: a path on the site (with a query or
// fragment if need be) or an absolute http(s) URL; * stands for what the
// source's * matched, so only a wildcard source's target may hold it.
func checkTarget(t string, wildcard bool) (string, error) {
	t = strings.TrimSpace(t)
	lower := strings.ToLower(t)
	switch {
	case t == "":
		return "", cms.FieldError("target", "is required.")
	case len(t) > maxPath:
		return "", cms.FieldError("target", fmt.Sprintf("is longer than %d bytes.", maxPath))
	case strings.ContainsFunc(t, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) || r == '\\' }):
		return "", cms.FieldError("target", "holds a space, a backslash or a control character.")
	case strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "//"):
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		if u, err := url.Parse(t); err != nil || u.Host == "" {
			return "", cms.FieldError("target", "is not a URL with a host.")
		}
	default:
		return "", cms.FieldError("target", "must be a path on the site (/new) or an http or https URL.")
	}
	if !wildcard && strings.Contains(t, "*") {
		return "", cms.FieldError("target", "holds *, which stands for what the source's * matched: the source has none.")
	}
	return t, nil
}

// write is a parsed redirect body.
type write struct {
	source, target *string
	status         *int
}

var readOnly = []string{"id", "url", "created_at", "updated_at"}

func parseWrite(raw map[string]json.RawMessage) (*write, error) {
	w := &write{}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		switch k {
		case "source", "target":
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, cms.FieldError(k, "must be a string.")
			}
			if k == "source" {
				w.source = &s
			} else {
				w.target = &s
			}
		case "status":
			var n int
			if err := json.Unmarshal(v, &n); err != nil || n != 301 && n != 302 {
				return nil, cms.FieldError("status", "must be 301 (moved for good) or 302 (for now).")
			}
			w.status = &n
		default:
			if !slices.Contains(readOnly, k) {
				return nil, cms.FieldError(k, "is not a field of a redirect (source, target, status).")
			}
		}
	}
	return w, nil
}

// Table is a site's redirects, compiled for matching: exact sources by
// path, wildcard ones longest first. It is shared and never changed.
type Table struct {
	exact    map[string]*doc
	wildcard []wildRule
}

type wildRule struct {
	prefix string
	doc    *doc
}

func newTable(rds []*Redirect) *Table {
	t := &Table{exact: map[string]*doc{}}
	for _, rd := range rds {
		t.add(rd.rec.Key, &rd.doc)
	}
	t.sort()
	return t
}

func (t *Table) add(source string, d *doc) {
	if p, ok := strings.CutSuffix(source, "*"); ok {
		t.wildcard = append(t.wildcard, wildRule{prefix: p, doc: d})
		return
	}
	t.exact[source] = d
}

func (t *Table) sort() {
	sort.SliceStable(t.wildcard, func(i, j int) bool { return len(t.wildcard[i].prefix) > len(t.wildcard[j].prefix) })
}

// Match returns where a visit of path (unescaped) goes, and with which
// status: an exact source first, else the longest wildcard source the
// path starts with, its * in the target replaced by the rest of the path.
func (t *Table) Match(path string) (target string, status int, ok bool) {
	if t == nil {
		return "", 0, false
	}
	p := path
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
	}
	if d := t.exact[p]; d != nil {
		return d.Target, d.Status, true
	}
	for _, w := range t.wildcard {
		if rest, ok := strings.CutPrefix(path, w.prefix); ok {
			return strings.ReplaceAll(w.doc.Target, "*", rest), w.doc.Status, true
		}
	}
	return "", 0, false
}

// Len is the number of redirects in the table.
func (t *Table) Len() int { return len(t.exact) + len(t.wildcard) }

// localPath returns the path of a target on the site (no query or
// fragment), or false for an absolute URL.
func localPath(target string) (string, bool) {
	if !strings.HasPrefix(target, "/") || strings.HasPrefix(target, "//") {
		return "", false
	}
	if i := strings.IndexAny(target, "?#"); i >= 0 {
		target = target[:i]
	}
	return target, true
}

// loop reports whether a redirect from source to target leads, through
// the table (which holds it), back to a path it has been: then the
// redirect would send visitors round for ever. A wildcard source is
// followed from a path below it that no other source names.
func (t *Table) loop(source, target string) bool {
	start := source
	if p, ok := strings.CutSuffix(source, "*"); ok {
		start = p + "\x00" // no source is exactly this; prefixes still match
		target = strings.ReplaceAll(target, "*", "\x00")
	}
	seen := map[string]bool{norm(start): true}
	cur := target
	for range maxHops {
		p, ok := localPath(cur)
		if !ok {
			return false
		}
		if seen[norm(p)] {
			return true
		}
		seen[norm(p)] = true
		next, _, ok := t.Match(p)
		if !ok {
			return false
		}
		cur = next
	}
	return true // a chain that long goes round, or might as well
}

func norm(p string) string {
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
		if p == "" {
			return "/"
		}
	}
	return p
}
