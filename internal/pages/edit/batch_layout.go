package edit

// The order of a canvas's blocks: where an insert or a move puts one, and
// the positions every operation leaves.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/jsonw"
	"github.com/tessera-cms/tessera/internal/pages/doc"
)

// findAnchor reads an after value against a canvas's enabled blocks: found
// with the anchor's index, first for null, or neither with the anchor as
// text for the warning.
func findAnchor(enabled []*doc.Repeatable, raw json.RawMessage) (i int, found, first bool, anchor string) {
	switch jsonw.Kind(raw) {
	case 'n':
		return 0, false, true, ""
	case '"':
		anchor = jsonString(raw)
	default:
		return 0, false, false, string(bytes.TrimSpace(raw))
	}
	if cms.IsID(anchor) {
		id := strings.ToLower(anchor)
		for i, r := range enabled {
			if r.ID == id {
				return i, true, false, anchor
			}
		}
	}
	return 0, false, false, anchor
}

func anchorWarning(anchor string) string {
	return "Anchor '" + anchor + "' not found, appending to end"
}

// splitBlocks returns a canvas's enabled blocks in position order, and its
// disabled ones.
func splitBlocks(c *doc.Item) (enabled, disabled []*doc.Repeatable) {
	all := slices.Clone(c.Repeatables)
	doc.SortRepeatables(all)
	for _, r := range all {
		if r.Disabled {
			disabled = append(disabled, r)
		} else {
			enabled = append(enabled, r)
		}
	}
	return enabled, disabled
}

// layout makes enabled then disabled the canvas's blocks, numbered from 1;
// blocks whose position changes get updated_at now. It reports whether the
// order or any position changed.
func layout(c *doc.Item, enabled, disabled []*doc.Repeatable, now time.Time) bool {
	all := append(enabled, disabled...)
	changed := len(all) != len(c.Repeatables)
	for i, r := range all {
		if i < len(c.Repeatables) && c.Repeatables[i] != r {
			changed = true
		}
		if r.Position != i+1 {
			r.Position = i + 1
			r.UpdatedAt = now
			changed = true
		}
	}
	if len(all) == 0 {
		all = nil
	}
	c.Repeatables = all
	return changed
}
