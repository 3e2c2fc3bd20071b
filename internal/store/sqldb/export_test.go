package sqldb

import "github.com/tessera-cms/tessera/internal/store"

// Rebind exposes placeholder rewriting to the tests.
func Rebind(d Dialect, query string) string { return d.rebind(query) }

// PrefixEnd exposes the prefix range bound to the tests.
var PrefixEnd = prefixEnd

// NextStripe and CountStripes expose the count rows' striping to the tests.
var NextStripe = nextStripe

const CountStripes = countStripes

// ChildrenStatements returns the two statements Pages.List runs for a
// window of parent's children, with their arguments, as List builds them:
// the window, then the total.
func ChildrenStatements(siteID, parent string, limit, offset int64) (list string, listArgs []any, count string, countArgs []any) {
	where, args, _, _ := pageWhere(siteID, store.PageFilter{ByParent: true, Parent: parent})
	return childrenWindow(where), append(append([]any{siteID}, args...), limit, offset), `SELECT COUNT(*) FROM pages` + where, args
}
