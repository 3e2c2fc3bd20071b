package pages

// Unspill exposes unspill to the external tests.
var Unspill = unspill
