package doc

import (
	"time"

	"github.com/tessera-cms/tessera/internal/themes"
)

// TemplateInfo is a template as the engine needs it: the theme file's id and
// updated_at (a theme push bumps it) and the parsed schema.
type TemplateInfo struct {
	ID        string
	UpdatedAt time.Time
	Schema    *themes.Template
}

// Name is the template's name.
func (t *TemplateInfo) Name() string {
	if t == nil || t.Schema == nil {
		return ""
	}
	return t.Schema.Name
}

// Editables are the template's top-level editables; none for a nil t or
// one without a schema.
func (t *TemplateInfo) Editables() []*themes.Editable {
	if t == nil || t.Schema == nil {
		return nil
	}
	return t.Schema.Editables
}
