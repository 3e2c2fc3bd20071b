package entries_test

import (
	"encoding/json"
	"testing"

	"github.com/tessera-cms/tessera/internal/entries"
)

// TestDocClone: a before hook's change is applied to a clone of the
// proposal, which must leave the proposal as it was when the change fails.
func TestDocClone(t *testing.T) {
	tests := []struct {
		name string
		doc  entries.Doc
	}{
		{"Empty", entries.Doc{}},
		{"Values", entries.Doc{Values: map[string]json.RawMessage{"a": json.RawMessage(`1`)}}},
		{"Translations", entries.Doc{Values: map[string]json.RawMessage{"a": json.RawMessage(`"x"`)},
			Translations: map[string]map[string]json.RawMessage{"nl": {"a": json.RawMessage(`"y"`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := json.Marshal(tt.doc)
			c := tt.doc.Clone()
			if got, _ := json.Marshal(c); string(got) != string(before) {
				t.Errorf("clone: got %s, want %s", got, before)
			}
			if c.Values == nil {
				c.Values = map[string]json.RawMessage{}
			}
			c.Values["a"], c.Values["b"] = json.RawMessage(`2`), json.RawMessage(`3`)
			if m := c.Translations["nl"]; m != nil {
				m["a"] = json.RawMessage(`"z"`)
			}
			c.Translations["de"] = map[string]json.RawMessage{"a": json.RawMessage(`"w"`)}
			if got, _ := json.Marshal(tt.doc); string(got) != string(before) {
				t.Errorf("changing the clone changed the original: got %s, want %s", got, before)
			}
		})
	}
}
