package entries

// The merge of a channel's field list (and a select field's options) with
// a write: by id or name, with _destroy, or replacing the list.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
)

// applyFields builds a channel's new field list from a written one. A
// written field is matched to an existing one by id, else by name, and
// keeps its id (and so its stored values); a well-formed id that is no
// current field's re-creates a removed field with it.
//
// With merge, fields the list does not name stay as they are, where they
// are; a written field changes only the attributes it sends, new fields go
// last, and {"id" or "name", "_destroy": true} removes a field (one that
// is not there is already removed). A written id that names no current
// field while its name does (a field list read from another site) updates
// the field of that name. Without merge, the list is the new field list:
// fields not listed are removed, as are those listed with _destroy.
func applyFields(c *Channel, list []any, merge bool, now time.Time, lookup ChannelLookup) ([]*Field, error) {
	var out []*Field
	if merge {
		out = slices.Clone(c.Fields)
	}
	listed := map[string]bool{}
	for i, raw := range list {
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, errField(fmt.Sprintf("customizations[%d]", i), "must be an object")
		}
		where := fmt.Sprintf("customizations[%d]", i)
		destroy, err := destroyFlag(m, where)
		if err != nil {
			return nil, err
		}
		name, _ := m["name"].(string)
		var cur *Field
		newID := ""
		if id, ok := m["id"].(string); ok && id != "" {
			cur = c.FieldByID(id)
			if cur == nil && merge && name != "" {
				cur = c.Field(name)
			}
			if cur == nil && !destroy {
				if !cms.IsID(id) {
					return nil, errField(where+".id", fmt.Sprintf("names no field of this channel: %s", id))
				}
				newID = id
			}
		} else if name != "" {
			cur = c.Field(name)
		}
		if destroy {
			if cur != nil {
				if listed[cur.ID] {
					return nil, errField(where+".id", "lists a field twice")
				}
				listed[cur.ID] = true
				out = slices.DeleteFunc(out, func(f *Field) bool { return f.ID == cur.ID })
			}
			continue
		}
		f := &Field{}
		if cur != nil {
			*f = *cur
			f.SelectOptions = slices.Clone(cur.SelectOptions)
		} else if newID != "" {
			f.ID = newID
		} else {
			f.ID = cms.NewID(now)
		}
		if listed[f.ID] {
			return nil, errField(where+".id", "lists a field twice")
		}
		listed[f.ID] = true
		if err := applyField(c, f, m, merge, where, now, lookup); err != nil {
			return nil, err
		}
		if k := slices.IndexFunc(out, func(o *Field) bool { return o.ID == f.ID }); k >= 0 {
			out[k] = f
		} else {
			out = append(out, f)
		}
	}
	names := map[string]bool{}
	for _, f := range out {
		if names[f.Name] {
			return nil, errField("customizations", fmt.Sprintf("has two fields named %q", f.Name))
		}
		names[f.Name] = true
	}
	return out, nil
}

// destroyFlag reads the _destroy key of a written field or option: true,
// "true", "1" or 1 mark it for removal (the forms form-encoding clients
// send), false, "false", "0", 0, null and no key do not.
func destroyFlag(m map[string]any, where string) (bool, error) {
	switch v := m["_destroy"].(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	case float64:
		if v == 0 || v == 1 {
			return v == 1, nil
		}
	case string:
		switch v {
		case "true", "1":
			return true, nil
		case "false", "0", "":
			return false, nil
		}
	}
	return false, errField(where+"._destroy", "must be true or false")
}

// followFields keeps the title, label and order fields of a channel
// pointing at their fields after a change of its field list that the body
// does not name them in: a renamed field is followed, and one removed
// falls back to the default (see checkChannel), so that renaming or
// removing a field never needs the channel's other settings sent along. A
// body that names a missing field itself is refused by checkChannel.
func followFields(c *Channel, prev []*Field, body map[string]any) {
	follow := func(name string) string {
		if name == "" || c.Field(name) != nil {
			return name
		}
		for _, p := range prev {
			if p.Name == name {
				if f := c.FieldByID(p.ID); f != nil {
					return f.Name
				}
			}
		}
		return ""
	}
	if _, ok := body["title_field"]; !ok {
		c.TitleField = follow(c.TitleField)
	}
	if _, ok := body["label_field"]; !ok {
		c.LabelField = follow(c.LabelField)
	}
	if _, ok := body["order_by"]; !ok {
		switch c.OrderBy {
		case "", "created_at", "updated_at", "slug", "_created_at", "_updated_at", "_slug":
		default:
			if c.OrderBy = follow(c.OrderBy); c.OrderBy == "" {
				c.OrderDirection = ""
			}
		}
	}
}

// applyField applies one written custom-field definition to f; merge says
// how its select options are written (see applyOptions).
func applyField(c *Channel, f *Field, m map[string]any, merge bool, where string, now time.Time, lookup ChannelLookup) error {
	for k := range m {
		switch k {
		case "id", "name", "label", "type", "required", "unique", "localized", "hint", "reference",
			"select_options", "private_storage", "position", "_destroy":
		default:
			return errField(where+"."+k, "is not a custom-field attribute")
		}
	}
	str := func(k string, dst *string) error {
		v, ok := m[k]
		if !ok {
			return nil
		}
		s, ok := v.(string)
		if !ok && v != nil {
			return errField(where+"."+k, "must be a string")
		}
		*dst = s
		return nil
	}
	boolean := func(k string, dst *bool) error {
		v, ok := m[k]
		if !ok {
			return nil
		}
		b, ok := v.(bool)
		if !ok && v != nil {
			return errField(where+"."+k, "must be true or false")
		}
		*dst = b
		return nil
	}
	if err := str("name", &f.Name); err != nil {
		return err
	}
	if !fieldNameRE.MatchString(f.Name) || slices.Contains(reserved, f.Name) {
		return errField(where+".name", fmt.Sprintf("%q is not a usable field name (lower-case letters, digits and '_', starting with a letter; not a reserved key)", f.Name))
	}
	for _, k := range []string{"label", "hint"} {
		dst := &f.Label
		if k == "hint" {
			dst = &f.Hint
		}
		if err := str(k, dst); err != nil {
			return err
		}
	}
	if f.Label == "" {
		f.Label = f.Name
	}
	if err := str("type", &f.Type); err != nil {
		return err
	}
	if !slices.Contains(Types, f.Type) {
		return errField(where+".type", fmt.Sprintf("must be one of %s", strings.Join(Types, ", ")))
	}
	for k, dst := range map[string]*bool{"required": &f.Required, "unique": &f.Unique, "localized": &f.Localized,
		"private_storage": &f.PrivateStorage} {
		if err := boolean(k, dst); err != nil {
			return err
		}
	}
	if f.Unique && !uniqueable(f) {
		return errField(where+".unique", fmt.Sprintf("a %s field cannot be unique", f.Type))
	}
	if f.Localized && !localizable(f) {
		return errField(where+".localized", fmt.Sprintf("a %s field cannot be localized", f.Type))
	}
	if f.PrivateStorage && f.Type != TypeFile && f.Type != TypeGallery {
		return errField(where+".private_storage", fmt.Sprintf("a %s field has no files to store privately", f.Type))
	}
	if err := str("reference", &f.Reference); err != nil {
		return err
	}
	switch f.Type {
	case TypeBelongsTo, TypeBelongsToMany:
		if f.Reference == "" {
			return errField(where+".reference", "is required: the slug of the target channel")
		}
		if f.Reference == c.Slug {
			f.ReferenceID = c.ID
			break
		}
		target, err := lookup(f.Reference)
		if cms.IsCode(err, cms.ENotFound) {
			return errField(where+".reference", fmt.Sprintf("names no channel %q", f.Reference))
		} else if err != nil {
			return err
		}
		f.ReferenceID = target.ID
	case TypeCustomer:
		f.Reference, f.ReferenceID = CustomersClass, ""
	default:
		f.Reference, f.ReferenceID = "", ""
	}
	if v, ok := m["select_options"]; ok {
		list, ok := v.([]any)
		if !ok && v != nil {
			return errField(where+".select_options", "must be an array of {name}")
		}
		opts, err := applyOptions(f, list, merge, where, now)
		if err != nil {
			return err
		}
		f.SelectOptions = opts
	}
	if f.Type != TypeSelect && f.Type != TypeMultiSelect {
		f.SelectOptions = nil
	}
	return nil
}

// applyOptions builds a select field's option list from a written one. An
// option is matched to an existing one by id, else by slug, else by name,
// and keeps its id (stored values are option ids). With merge, options the
// list does not name stay, {"id" (or "slug" or "name"), "_destroy": true}
// removes one, and new options go last unless they give a position;
// without, the list is the new option list. Positions are renumbered
// 0…n-1: an option given an explicit position goes before one that
// already had it.
func applyOptions(f *Field, list []any, merge bool, fieldWhere string, now time.Time) ([]*SelectOption, error) {
	type placed struct {
		o        *SelectOption
		pos      int
		explicit bool
	}
	var out []placed
	if merge {
		for _, o := range f.SelectOptions {
			c := *o
			out = append(out, placed{o: &c, pos: o.Position})
		}
	}
	find := func(match func(*SelectOption) bool) int {
		return slices.IndexFunc(out, func(p placed) bool { return match(p.o) })
	}
	current := func(match func(*SelectOption) bool) *SelectOption {
		if k := slices.IndexFunc(f.SelectOptions, match); k >= 0 {
			c := *f.SelectOptions[k]
			return &c
		}
		return nil
	}
	listed := map[string]bool{}
	for i, raw := range list {
		where := fmt.Sprintf("%s.select_options[%d]", fieldWhere, i)
		var m map[string]any
		switch v := raw.(type) {
		case string:
			m = map[string]any{"name": v}
		case map[string]any:
			m = v
		default:
			return nil, errField(where, "must be {name} or a name")
		}
		destroy, err := destroyFlag(m, where)
		if err != nil {
			return nil, err
		}
		name, _ := m["name"].(string)
		slug, _ := m["slug"].(string)
		var o *SelectOption
		if id, ok := m["id"].(string); ok && id != "" {
			if o = current(func(c *SelectOption) bool { return c.ID == id }); o == nil && !destroy {
				return nil, errField(where+".id", fmt.Sprintf("names no option of this field: %s", id))
			}
		}
		if o == nil && slug != "" {
			o = current(func(c *SelectOption) bool { return c.Slug == slug })
		}
		if o == nil && name != "" {
			o = current(func(c *SelectOption) bool { return c.Name == name })
		}
		if destroy {
			if o != nil {
				if listed[o.ID] {
					return nil, errField(where, "lists an option twice")
				}
				listed[o.ID] = true
				if k := find(func(c *SelectOption) bool { return c.ID == o.ID }); k >= 0 {
					out = slices.Delete(out, k, k+1)
				}
			}
			continue
		}
		isNew := o == nil
		if isNew {
			o = &SelectOption{}
		}
		if name != "" {
			o.Name = name
		}
		if o.Name == "" {
			return nil, errField(where+".name", "is required")
		}
		o.Slug = cms.Slugify(o.Name)
		if slug != "" {
			o.Slug = slug
		}
		p := placed{o: o, pos: i}
		if merge {
			p.pos = o.Position
			if isNew {
				p.pos = len(f.SelectOptions) + i
			}
		}
		if v, ok := m["position"].(float64); ok && v >= 0 && v == float64(int(v)) {
			p.pos, p.explicit = int(v), true
		}
		if isNew {
			o.ID = optionID(o.Slug, now, func(id string) bool {
				return current(func(c *SelectOption) bool { return c.ID == id }) != nil ||
					find(func(c *SelectOption) bool { return c.ID == id }) >= 0
			})
		}
		if listed[o.ID] {
			return nil, errField(where, "lists an option twice")
		}
		listed[o.ID] = true
		if k := find(func(c *SelectOption) bool { return c.ID == o.ID }); k >= 0 {
			out[k] = p
		} else {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b placed) int {
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		switch {
		case a.explicit && !b.explicit:
			return -1
		case b.explicit && !a.explicit:
			return 1
		}
		return 0
	})
	opts := make([]*SelectOption, len(out))
	for i, p := range out {
		p.o.Position = i
		opts[i] = p.o
	}
	return opts, nil
}

// optionID is the id of a new select option with the given slug: the
// slug's derived id (see derivedOptionID), or when the field already uses
// that (two options with one slug) a fresh one.
func optionID(slug string, now time.Time, taken func(string) bool) string {
	id := derivedOptionID(slug)
	for taken(id) {
		id = cms.NewID(now)
	}
	return id
}

// derivedOptionID is the id a select option with the given slug is
// created with: derived from the slug alone, so that the same option gets
// the same id on every site, and a copy of entries between sites (whose
// select values read as option ids) finds its options.
func derivedOptionID(slug string) string {
	sum := sha256.Sum256([]byte("tessera select option\x00" + slug))
	return hex.EncodeToString(sum[:12])
}
