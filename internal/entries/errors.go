package entries

import (
	"github.com/tessera-cms/tessera/internal/cms"
)

// Error codes of entry writes beyond cms's.
const (
	// EReferenceNotFound: a reference names no record of its target.
	EReferenceNotFound = "reference_not_found"
)

// errField is a 422 validation_failed naming the offending field (also as
// the body's "field" key, so clients can highlight it).
func errField(field, problem string) *cms.Error { return cms.FieldError(field, problem) }

// errRefNotFound is the 422 of a reference to a missing record.
func errRefNotFound(field, class, ref string) *cms.Error {
	return (&cms.Error{Code: EReferenceNotFound,
		Message: field + " references no " + class + " entry " + ref}).WithField("field", field)
}

// errOp is the spec's 400 for an unknown __op on a multi reference field:
// a bare message, as the spec gives it.
func errOp(field string) *cms.Error {
	return &cms.Error{Code: cms.EBareBadRequest,
		Message: "Invalid type for '" + field + ".__op': expected one of AddReference, AddRelation, RemoveReference, RemoveRelation, Batch"}
}
