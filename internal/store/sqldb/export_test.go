package sqldb

// Rebind exposes placeholder rewriting to the tests.
func Rebind(d Dialect, query string) string { return d.rebind(query) }

// PrefixEnd exposes the prefix range bound to the tests.
var PrefixEnd = prefixEnd

// NextStripe and CountStripes expose the count rows' striping to the tests.
var NextStripe = nextStripe

const CountStripes = countStripes
