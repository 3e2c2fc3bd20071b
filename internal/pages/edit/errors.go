package edit

import (
	"slices"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Error codes of PUT and the batch besides those package cms names (and
// doc.EPathNotFound). httpapi answers every one of them 422, its status for
// the codes its table does not list.
const (
	EMissingSlug        = "missing_slug"
	EInvalidPosition    = "invalid_position"
	EInvalidReferenceID = "invalid_reference_id"
	EReferenceNotFound  = "reference_not_found"
)

// Batch-level codes (besides cms.EInvalid, cms.EPreconditionRequired,
// cms.EPreconditionFailed, cms.EValidationFailed, cms.EConcurrentMod and
// cms.EServiceUnavailable).
const (
	EEmptyBatch      = "empty_batch"
	EBatchTooLarge   = "batch_too_large"
	EAtomicFailure   = "atomic_failure"
	EOperationFailed = "operation_failed" // draft batch: any op failed
)

// Per-operation codes (besides the PUT codes above, doc.EPathNotFound, cms.ENotFound,
// cms.EUnauthorized, cms.EValidationFailed and the theme codes).
const (
	EUnknownOperation       = "unknown_operation"
	EMissingValue           = "missing_value"
	EInvalidTarget          = "invalid_target"
	EInvalidField           = "invalid_field"
	EInvalidContainerValue  = "invalid_container_value"
	EInvalidContainerParent = "invalid_container_parent"
	EInvalidBoolean         = "invalid_boolean"
	EInvalidOperation       = "invalid_operation"
	EInvalidSwitchValue     = "invalid_switch_value"
	EInvalidSelectValue     = "invalid_select_value"
	EInvalidReferenceFormat = "invalid_reference_format"
	ESetFailed              = "set_failed"
	EInvalidSlug            = "invalid_slug"
	EInvalidInsertPath      = "invalid_insert_path"
	ENotACanvas             = "not_a_canvas"
	EInsertFailed           = "insert_failed"
	EInvalidDeleteTarget    = "invalid_delete_target"
	EDeleteFailed           = "delete_failed"
	EInvalidMoveTarget      = "invalid_move_target"
	EMoveFailed             = "move_failed"
)

// errInvalid is a 422 validation_failed naming the offending key in its message.
func errInvalid(format string, args ...any) *cms.Error {
	return cms.Errorf(cms.EValidationFailed, format, args...)
}

func err422(code, format string, args ...any) *cms.Error {
	return cms.Errorf(code, format, args...)
}

// errEditablesNotInTheme is the spec's editable_not_in_theme; canvas and
// block are set when the editables sit inside a repeatable (block is the
// repeatable's block slug).
func errEditablesNotInTheme(slugs []string, canvas, block string) *cms.Error {
	slugs = slices.Clone(slugs)
	slices.Sort(slugs)
	data := map[string]any{"editables": slugs}
	msg := "Editables not defined by the template: "
	if canvas != "" {
		data["canvas"] = canvas
		data["repeatable"] = block
		msg = "Editables not defined by block " + block + " of canvas " + canvas + ": "
	}
	return err422(cms.EEditableNotInTheme, "%s%s", msg, joinQuoted(slugs)).WithData(data)
}

func errRepeatablesNotInTheme(canvas string, slugs []string) *cms.Error {
	return err422(cms.ERepeatableNotInTheme, "Blocks not defined by canvas %s: %s", canvas, joinQuoted(slugs)).
		WithData(map[string]any{"canvas": canvas, "slugs": slices.Clone(slugs)})
}

func joinQuoted(s []string) string {
	b := make([]byte, 0, 16*len(s))
	for i, v := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '\'')
		b = append(b, v...)
		b = append(b, '\'')
	}
	return string(b)
}
