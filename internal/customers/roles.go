package customers

// Customer roles: named roles whose holders are the customers with the
// name in their roles. The role records live beside the customers (kind
// store.RecordRole) and are kept here, by the package that owns the
// customer record, because a role's rename, deletion and membership all
// rewrite customers, in the same transaction.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

// maxRoleHolders bounds the customer ids a role's read lists.
const maxRoleHolders = 10000

// roleDoc is a role's stored document; its name is the record's key.
type roleDoc struct {
	Description string `json:"description,omitempty"`
}

type role struct {
	rec *store.Record
	roleDoc
}

func decodeRole(r *store.Record) (*role, error) {
	ro := &role{rec: r}
	if err := json.Unmarshal(r.Doc, &ro.roleDoc); err != nil {
		return nil, fmt.Errorf("customers: decode role %s: %w", r.ID, err)
	}
	return ro, nil
}

// roleView is a role's read shape: the original client's Role. Roles do
// not nest here: children and parents are always empty.
type roleView struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Customers   []string `json:"customers"`
	Children    []string `json:"children"`
	Parents     []string `json:"parents"`
	CreatedAt   string   `json:"created_at"`
	UpdatedAt   string   `json:"updated_at"`
}

func (ro *role) view(tx store.Tx) (roleView, error) {
	holders, err := holdersOf(tx, ro.rec.SiteID, ro.rec.Key)
	if err != nil {
		return roleView{}, err
	}
	return roleView{ID: ro.rec.ID, Name: ro.rec.Key, Description: ro.Description, Customers: holders,
		Children: []string{}, Parents: []string{}, CreatedAt: cms.FormatTime(ro.rec.CreatedAt), UpdatedAt: cms.FormatTime(ro.rec.UpdatedAt)}, nil
}

// holdersOf returns the ids of the site's customers holding the role, by
// customer number.
func holdersOf(tx store.Tx, siteID, name string) ([]string, error) {
	list, _, err := tx.Customers().List(siteID, store.CustomerQuery{Role: name}, store.ListOptions{Limit: maxRoleHolders})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.ID
	}
	return out, nil
}

// roleWrite is a parsed role body.
type roleWrite struct {
	name, description *string
	customers         []string
	hasCustomers      bool
}

var roleReadOnly = []string{"id", "url", "created_at", "updated_at", "_acl", "_owner"}

func parseRole(body []byte) (*roleWrite, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object: a role {name, description, customers}.")
	}
	w := &roleWrite{}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		switch k {
		case "name", "description":
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, cms.FieldError(k, "must be a string.")
			}
			s = strings.TrimSpace(s)
			if k == "name" {
				w.name = &s
			} else {
				w.description = &s
			}
		case "customers":
			if string(v) != "null" {
				if err := json.Unmarshal(v, &w.customers); err != nil {
					return nil, cms.FieldError("customers", "must be an array of customer ids (or emails).")
				}
			}
			w.hasCustomers = true
		case "children", "parents":
			var list []string
			if err := json.Unmarshal(v, &list); err != nil || len(list) > 0 {
				return nil, cms.FieldError(k, "must be empty: roles do not nest on this server.")
			}
		default:
			if !slices.Contains(roleReadOnly, k) {
				return nil, cms.FieldError(k, "is not a field of a role (name, description, customers).")
			}
		}
	}
	if w.name != nil {
		if err := checkRoleName(*w.name); err != nil {
			return nil, err
		}
	}
	if w.description != nil && len(*w.description) > 4096 {
		return nil, cms.FieldError("description", "is longer than 4096 bytes.")
	}
	return w, nil
}

func checkRoleName(n string) error {
	switch {
	case n == "":
		return cms.FieldError("name", "is required.")
	case len(n) > cms.MaxRoleBytes:
		return cms.FieldError("name", fmt.Sprintf("is longer than %d bytes.", cms.MaxRoleBytes))
	case strings.ContainsFunc(n, unicode.IsControl):
		return cms.FieldError("name", "cannot hold control characters.")
	case records.Reserved(n):
		return cms.FieldError("name", "cannot be \""+n+"\": GET /roles/"+n+" is another route.")
	}
	return nil
}

func findRole(tx store.Tx, siteID, ref string) (*role, error) {
	r, err := records.Find(tx, siteID, store.RecordRole, ref)
	if err != nil {
		return nil, err
	}
	return decodeRole(r)
}

// ListRoles returns one window of the site's roles, by name, and their
// total.
func (s *Service) ListRoles(ctx context.Context, site *store.Site, opt store.ListOptions) ([]any, int, error) {
	out := []any{}
	total := 0
	err := s.Store.View(ctx, func(tx store.Tx) error {
		recs, n, err := tx.Records().List(site.ID, store.RecordRole, store.RecordFilter{}, opt)
		if err != nil {
			return err
		}
		total = n
		for _, r := range recs {
			ro, err := decodeRole(r)
			if err != nil {
				return err
			}
			v, err := ro.view(tx)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	return out, total, err
}

// CountRoles returns the number of the site's roles.
func (s *Service) CountRoles(ctx context.Context, site *store.Site) (int, error) {
	return records.Count(ctx, s.Store, site.ID, store.RecordRole)
}

// GetRole returns the role ref names (id or name) and its ETag.
func (s *Service) GetRole(ctx context.Context, site *store.Site, ref string) (any, string, error) {
	var out any
	var tag string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		ro, err := findRole(tx, site.ID, ref)
		if err != nil {
			return err
		}
		out, err = ro.view(tx)
		tag = records.ETag(ro.rec)
		return err
	})
	return out, tag, err
}

// CreateRole stores a new role {name, description, customers}: the
// customers named (by id or email) get it.
func (s *Service) CreateRole(ctx context.Context, site *store.Site, body []byte) (any, string, error) {
	w, err := parseRole(body)
	if err != nil {
		return nil, "", err
	}
	if w.name == nil {
		return nil, "", cms.FieldError("name", "is required.")
	}
	var out any
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		now := tx.Now()
		ro := &role{rec: &store.Record{ID: cms.NewID(now), SiteID: site.ID, Kind: store.RecordRole, Key: *w.name, CreatedAt: now, UpdatedAt: now}}
		if w.description != nil {
			ro.Description = *w.description
		}
		var err error
		if ro.rec.Doc, err = json.Marshal(ro.roleDoc); err != nil {
			return err
		}
		if err := tx.Records().Create(ro.rec); err != nil {
			return roleTaken(err, ro.rec.Key)
		}
		if w.hasCustomers {
			if err := setHolders(tx, site, ro.rec.Key, w.customers); err != nil {
				return err
			}
		}
		out, err = ro.view(tx)
		tag = records.ETag(ro.rec)
		return err
	})
	return out, tag, err
}

func roleTaken(err error, name string) error {
	if cms.IsCode(err, cms.EConflict) {
		return cms.FieldError("name", "is taken: the site has a role "+name+".")
	}
	return err
}

// UpdateRole changes the role ref names: the keys sent. A new name moves
// every holder to it; customers, when sent, are the holders from now on.
func (s *Service) UpdateRole(ctx context.Context, site *store.Site, ref string, body []byte, ifMatch string) (any, string, error) {
	w, err := parseRole(body)
	if err != nil {
		return nil, "", err
	}
	var out any
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		ro, err := findRole(tx, site.ID, ref)
		if err != nil {
			return err
		}
		if err := records.CheckIfMatch(ifMatch, ro.rec); err != nil {
			return err
		}
		next := *ro.rec
		old := ro.rec.Key
		if w.name != nil {
			next.Key = *w.name
		}
		if w.description != nil {
			ro.Description = *w.description
		}
		if next.Doc, err = json.Marshal(ro.roleDoc); err != nil {
			return err
		}
		next.UpdatedAt = cms.NextUpdatedAt(ro.rec.UpdatedAt, tx.Now())
		if err := tx.Records().Update(&next, ro.rec.UpdatedAt); err != nil {
			return roleTaken(err, next.Key)
		}
		ro.rec = &next
		if next.Key != old {
			if err := renameHeld(tx, site, old, next.Key); err != nil {
				return err
			}
		}
		if w.hasCustomers {
			if err := setHolders(tx, site, next.Key, w.customers); err != nil {
				return err
			}
		}
		out, err = ro.view(tx)
		tag = records.ETag(ro.rec)
		return err
	})
	return out, tag, err
}

// DeleteRole removes the role ref names, and its name from every holder.
func (s *Service) DeleteRole(ctx context.Context, site *store.Site, ref, ifMatch string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		ro, err := findRole(tx, site.ID, ref)
		if err != nil {
			return err
		}
		if err := records.CheckIfMatch(ifMatch, ro.rec); err != nil {
			return err
		}
		if err := tx.Records().Delete(site.ID, store.RecordRole, ro.rec.ID); err != nil {
			return err
		}
		return renameHeld(tx, site, ro.rec.Key, "")
	})
}

// renameHeld replaces the role name old by name in every holder's roles
// ("" removes it).
func renameHeld(tx store.Tx, site *store.Site, old, name string) error {
	ids, err := holdersOf(tx, site.ID, old)
	if err != nil {
		return err
	}
	for _, id := range ids {
		err := changeRoles(tx, site, id, func(roles []string) []string {
			out := make([]string, 0, len(roles))
			for _, r := range roles {
				switch {
				case r != old:
					out = append(out, r)
				case name != "" && !slices.Contains(roles, name):
					out = append(out, name)
				}
			}
			return out
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// setHolders makes the customers refs names (ids or emails) the role's
// holders: they get it, every other holder loses it. A ref that names no
// customer of the site refuses the write.
func setHolders(tx store.Tx, site *store.Site, name string, refs []string) error {
	want := map[string]bool{}
	for i, ref := range refs {
		c, err := find(tx, site, strings.TrimSpace(ref))
		if cms.IsCode(err, cms.ENotFound) {
			return (&cms.Error{Code: "reference_not_found", Message: fmt.Sprintf("customers[%d]: no customer %s on this site.", i, ref)}).
				WithField("field", fmt.Sprintf("customers[%d]", i))
		} else if err != nil {
			return err
		}
		want[c.rec.ID] = true
	}
	have, err := holdersOf(tx, site.ID, name)
	if err != nil {
		return err
	}
	for _, id := range have {
		if want[id] {
			delete(want, id)
			continue
		}
		if err := changeRoles(tx, site, id, func(roles []string) []string {
			return slices.DeleteFunc(slices.Clone(roles), func(r string) bool { return r == name })
		}); err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(want)) {
		if err := changeRoles(tx, site, id, func(roles []string) []string { return append(slices.Clone(roles), name) }); err != nil {
			return err
		}
	}
	return nil
}

// changeRoles rewrites one customer's roles with fn, in tx.
func changeRoles(tx store.Tx, site *store.Site, id string, fn func([]string) []string) error {
	rec, err := tx.Customers().Get(site.ID, id)
	if err != nil {
		return err
	}
	c, err := decodeCustomer(rec)
	if err != nil {
		return err
	}
	prev := rec.UpdatedAt
	c.Roles = fn(c.Roles)
	c.rec.UpdatedAt = cms.NextUpdatedAt(prev, tx.Now())
	if err := c.encode(); err != nil {
		return err
	}
	if err := tx.Customers().Update(c.rec, prev); err != nil {
		return err
	}
	return sitevents.AppendCustomer(tx, site.ID, sitevents.CustomerUpdated, id)
}
