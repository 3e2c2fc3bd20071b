package pages

import (
	"slices"

	"github.com/tessera-cms/tessera/internal/cms"
)

// Error codes the page engine returns besides those package cms names. The
// engine sets the HTTP status on every *cms.Error it returns, so the HTTP
// layer need not know these codes.
const (
	EMissingSlug        = "missing_slug"
	EInvalidPosition    = "invalid_position"
	EInvalidReferenceID = "invalid_reference_id"
	EReferenceNotFound  = "reference_not_found"
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
