// Package entries implements channels (collections of entries with custom
// fields, defined per site) and their entries: the custom-field wire
// formats of the spec (files, references, galleries, selects, time of day,
// localized fields), validation, where/sort/search queries, and the
// service that stores them.
//
// Entry values are stored by field id, not by name, so renaming a field
// keeps its values; a value whose stored form no longer fits the field's
// type (the type was changed) reads as empty and is replaced by the next
// write of that field.
package entries

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// Field types (docs/api.md, "Channels").
const (
	TypeString        = "string"
	TypeText          = "text"
	TypeEmail         = "email"
	TypeBoolean       = "boolean"
	TypeInteger       = "integer"
	TypeFloat         = "float"
	TypeDate          = "date"
	TypeDateTime      = "date_time"
	TypeTime          = "time"
	TypeSelect        = "select"
	TypeMultiSelect   = "multi_select"
	TypeBelongsTo     = "belongs_to"
	TypeBelongsToMany = "belongs_to_many"
	TypeCustomer      = "customer"
	TypeFile          = "file"
	TypeGallery       = "gallery"
	TypeJSON          = "json"
	TypeGeo           = "geo"
)

// Types lists every field type, in the order docs/api.md ("Channels") gives them.
var Types = []string{TypeString, TypeText, TypeEmail, TypeBoolean, TypeInteger, TypeFloat, TypeDate,
	TypeDateTime, TypeTime, TypeSelect, TypeMultiSelect, TypeBelongsTo, TypeBelongsToMany, TypeCustomer,
	TypeFile, TypeGallery, TypeJSON, TypeGeo}

// CustomersClass is the className of references to customers.
const CustomersClass = "customers"

// Channel is a channel definition: its document as stored (store.Channel
// holds id, slug and timestamps in columns; they are copied in on load).
type Channel struct {
	ID             string   `json:"-"`
	Slug           string   `json:"-"`
	Name           string   `json:"name"`
	Description    string   `json:"description,omitempty"`
	Fields         []*Field `json:"fields"`
	LabelField     string   `json:"label_field,omitempty"`
	TitleField     string   `json:"title_field,omitempty"`
	OrderBy        string   `json:"order_by,omitempty"`
	OrderDirection string   `json:"order_direction,omitempty"`
	// Roles, when set, are the customer roles one of which a visitor of
	// the public site (or cloud code run for a customer) needs to read
	// the channel's entries.
	Roles []string `json:"roles,omitempty"`
	// Removed are the fields a PATCH dropped, by id, as they were: their
	// values stay stored, and re-adding one by id converts them.
	Removed   map[string]*Field `json:"removed_fields,omitempty"`
	CreatedAt time.Time         `json:"-"`
	UpdatedAt time.Time         `json:"-"`
}

// Field is a custom field of a channel. Name is the key entries use on
// the wire; ID is the key values are stored under.
type Field struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Label     string `json:"label,omitempty"`
	Type      string `json:"type"`
	Required  bool   `json:"required,omitempty"`
	Unique    bool   `json:"unique,omitempty"`
	Localized bool   `json:"localized,omitempty"`
	Hint      string `json:"hint,omitempty"`
	// Reference is the slug of the target channel of a belongs_to or
	// belongs_to_many field ("customers" for a customer field);
	// ReferenceID the target channel's id, which survives slug changes.
	Reference      string          `json:"reference,omitempty"`
	ReferenceID    string          `json:"reference_id,omitempty"`
	SelectOptions  []*SelectOption `json:"select_options,omitempty"`
	PrivateStorage bool            `json:"private_storage,omitempty"`
}

// SelectOption is one choice of a select or multi_select field.
type SelectOption struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Position int    `json:"position"`
	Slug     string `json:"slug"`
}

// Field returns the channel's field named name, or nil.
func (c *Channel) Field(name string) *Field {
	for _, f := range c.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FieldByID returns the channel's field with the given id, or nil.
func (c *Channel) FieldByID(id string) *Field {
	for _, f := range c.Fields {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// Option returns the select option a written value names: its id, else
// its slug, else its name, else the id its slug derives; nil when none
// matches.
func (f *Field) Option(v string) *SelectOption {
	for _, o := range f.SelectOptions {
		if o.ID == v {
			return o
		}
	}
	for _, o := range f.SelectOptions {
		if o.Slug == v {
			return o
		}
	}
	for _, o := range f.SelectOptions {
		if o.Name == v {
			return o
		}
	}
	// An id derived from a slug names that slug's option also when this
	// site's option has another id (created before ids were derived).
	if cms.IsID(v) {
		for _, o := range f.SelectOptions {
			if derivedOptionID(o.Slug) == strings.ToLower(v) {
				return o
			}
		}
	}
	return nil
}

// IsReference reports whether the field's values are ids of other records.
func (f *Field) IsReference() bool {
	return f.Type == TypeBelongsTo || f.Type == TypeBelongsToMany || f.Type == TypeCustomer
}

// ClassName is the className of the field's references.
func (f *Field) ClassName() string {
	if f.Type == TypeCustomer {
		return CustomersClass
	}
	return f.Reference
}

// decodeChannel loads a stored channel.
func decodeChannel(rec *store.Channel) (*Channel, error) {
	var c Channel
	if err := json.Unmarshal(rec.Doc, &c); err != nil {
		return nil, fmt.Errorf("entries: decode channel %s: %w", rec.ID, err)
	}
	c.ID, c.Slug, c.CreatedAt, c.UpdatedAt = rec.ID, rec.Slug, rec.CreatedAt, rec.UpdatedAt
	return &c, nil
}

// record returns the channel as a store record.
func (c *Channel) record(siteID string) (*store.Channel, error) {
	doc, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("entries: encode channel %s: %w", c.ID, err)
	}
	return &store.Channel{ID: c.ID, SiteID: siteID, Slug: c.Slug, Doc: doc, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}, nil
}

// reserved are entry keys that are not custom fields.
var reserved = []string{"id", "slug", "created_at", "updated_at", "translations", "content_locale", "_slug",
	"_id", "_created_at", "_updated_at", "channel", "channel_id"}

var (
	fieldNameRE   = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	channelSlugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
)

// ChannelLookup finds the site's channels while a channel definition is
// checked: references name their target channel by slug.
type ChannelLookup func(slug string) (*Channel, error)

// applyChannel applies a POST (create set) or PATCH body to c. lookup finds
// other channels of the site by slug (ENotFound when missing). A written
// field list replaces c's fields when replace is set (or on create) and is
// merged into them otherwise (see applyFields). Errors are 422
// validation_failed naming the key.
func applyChannel(c *Channel, body map[string]any, create, replace bool, now time.Time, lookup ChannelLookup) error {
	for k := range body {
		switch k {
		case "name", "slug", "description", "customizations", "fields", "label_field", "title_field",
			"order_by", "order_direction", "roles", "id", "created_at", "updated_at", "url", "entries_url":
		default:
			return errField(k, "is not a channel attribute")
		}
	}
	if v, ok := body["name"]; ok {
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return errField("name", "must be a non-empty string")
		}
		c.Name = strings.TrimSpace(s)
	} else if create {
		return errField("name", "is required")
	}
	if v, ok := body["slug"]; ok && v != nil {
		s, ok := v.(string)
		if !ok || !channelSlugRE.MatchString(s) || s == reservedSlug {
			return errField("slug", "must be lower-case letters, digits, '-' and '_' (at most 64), and not \"count\"")
		}
		c.Slug = s
	} else if create {
		c.Slug = cms.Slugify(c.Name)
		if len(c.Slug) > 64 {
			c.Slug = strings.Trim(c.Slug[:64], "-")
		}
		if !channelSlugRE.MatchString(c.Slug) {
			return errField("slug", "is required when the name gives no slug")
		}
		if c.Slug == reservedSlug {
			c.Slug += "-2"
		}
	}
	if v, ok := body["description"]; ok {
		s, ok := v.(string)
		if !ok && v != nil {
			return errField("description", "must be a string")
		}
		c.Description = s
	}
	raw, ok := body["customizations"]
	if !ok {
		raw, ok = body["fields"]
	}
	if ok {
		list, ok := raw.([]any)
		if !ok {
			return errField("customizations", "must be an array of custom fields")
		}
		fields, err := applyFields(c, list, !create && !replace, now, lookup)
		if err != nil {
			return err
		}
		prev := c.Fields
		c.Fields = fields
		followFields(c, prev, body)
	}
	for _, k := range []string{"label_field", "title_field"} {
		v, ok := body[k]
		if !ok {
			continue
		}
		s, ok := v.(string)
		if !ok && v != nil {
			return errField(k, "must be a field name")
		}
		if k == "label_field" {
			c.LabelField = s
		} else {
			c.TitleField = s
		}
	}
	if v, ok := body["order_by"]; ok {
		s, ok := v.(string)
		if !ok && v != nil {
			return errField("order_by", "must be a field name, created_at, updated_at or slug")
		}
		c.OrderBy = s
	}
	if v, ok := body["roles"]; ok {
		var list []string
		if v != nil {
			raw, ok := v.([]any)
			if !ok {
				return errField("roles", "must be an array of customer role names")
			}
			for _, e := range raw {
				s, ok := e.(string)
				if !ok {
					return errField("roles", "must be an array of customer role names")
				}
				list = append(list, s)
			}
		}
		roles, err := cms.RoleNames(list)
		if err != nil {
			return errField("roles", err.Error())
		}
		c.Roles = roles
	}
	if v, ok := body["order_direction"]; ok {
		s, _ := v.(string)
		s = strings.ToLower(s)
		if v != nil && s != "asc" && s != "desc" {
			return errField("order_direction", "must be asc or desc")
		}
		c.OrderDirection = s
	}
	return checkChannel(c)
}

// checkChannel checks the references between a channel's attributes and
// its fields, and fills the defaults: title_field is the first string
// field, label_field the title field.
func checkChannel(c *Channel) error {
	textual := func(f *Field) bool {
		return f != nil && (f.Type == TypeString || f.Type == TypeText || f.Type == TypeEmail)
	}
	if c.TitleField != "" && c.Field(c.TitleField) == nil {
		return errField("title_field", fmt.Sprintf("names no field %q", c.TitleField))
	}
	if c.TitleField == "" {
		for _, f := range c.Fields {
			if f.Type == TypeString {
				c.TitleField = f.Name
				break
			}
		}
	} else if f := c.Field(c.TitleField); f != nil && !textual(f) {
		return errField("title_field", "must name a string, text or email field")
	}
	if c.LabelField != "" && c.Field(c.LabelField) == nil {
		return errField("label_field", fmt.Sprintf("names no field %q", c.LabelField))
	}
	if c.LabelField == "" {
		c.LabelField = c.TitleField
	}
	switch c.OrderBy {
	case "", "created_at", "updated_at", "slug", "_created_at", "_updated_at", "_slug":
	default:
		f := c.Field(c.OrderBy)
		if f == nil {
			return errField("order_by", fmt.Sprintf("names no field %q", c.OrderBy))
		}
		if !sortable(f) {
			return errField("order_by", fmt.Sprintf("field %q of type %s cannot be sorted on", f.Name, f.Type))
		}
	}
	return nil
}

// uniqueable reports whether a field's values can be required unique
// (they are single comparable values).
func uniqueable(f *Field) bool {
	switch f.Type {
	case TypeString, TypeEmail, TypeInteger, TypeFloat, TypeDate, TypeDateTime, TypeSelect, TypeBelongsTo,
		TypeCustomer:
		return true
	}
	return false
}

// localizable reports whether a field can hold one value per locale.
func localizable(f *Field) bool {
	switch f.Type {
	case TypeString, TypeText, TypeEmail, TypeBoolean, TypeInteger, TypeFloat, TypeDate, TypeDateTime, TypeTime,
		TypeSelect, TypeMultiSelect, TypeFile, TypeGallery, TypeJSON:
		return true
	}
	return false
}

// sortable reports whether entries can be ordered by the field.
func sortable(f *Field) bool {
	switch f.Type {
	case TypeString, TypeEmail, TypeBoolean, TypeInteger, TypeFloat, TypeDate, TypeDateTime, TypeTime, TypeSelect,
		TypeBelongsTo, TypeCustomer:
		return true
	}
	return false
}
