package render

import (
	"encoding/json"
	"fmt"
	"html"
	"reflect"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/translations"
)

// stateFilters are the filters that read the site's records through the
// render holding rc: translate (and its short name t).
func (rc *renderConfig) stateFilters() []filterDef {
	tr := reflect.ValueOf(rc.translate)
	return []filterDef{{"translate", tr}, {"t", tr}}
}

// translate is `{{ 'key' | t }}`: the site's translation of key in the
// render's locale, else in the default locale, else the key itself. After
// the key come the values of its placeholders (%{name} or {{name}}): one
// object, or name, value pairs (`| t: 'name', customer.name`). The values
// are escaped as HTML; the translation is written as it is.
func (rc *renderConfig) translate(key any, args ...any) (string, error) {
	st := rc.st
	k := text(key)
	vars, err := translations.Vars(args)
	if err != nil {
		return "", err
	}
	for n, v := range vars {
		vars[n] = html.EscapeString(v)
	}
	table := st.translations()
	return table.Translate(k, st.locale, st.site.DefaultLocale, k, vars), nil
}

func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// translations returns the site's translations for this render, read once,
// and marks the render as depending on them.
func (st *state) translations() *translations.Table {
	if st.tr != nil || st.svc.Translations == nil {
		return st.tr
	}
	t, stamp, err := st.svc.Translations.TableIn(st.ctx, st.tx, st.site)
	if err != nil {
		st.fail(err)
		return nil
	}
	st.tr = t
	st.deps.record(store.RecordTranslation, stamp)
	return t
}

func (d *deps) record(kind string, stamp store.Stamp) {
	d.mu.Lock()
	d.records[kind] = stamp
	d.mu.Unlock()
}

// recordsHold reports whether the kinds of records a cached render read
// still have the stamps they had.
func recordsHold(tx store.Tx, siteID string, d *deps) bool {
	for kind, want := range d.records {
		st, err := tx.Records().Stamp(siteID, kind)
		if err != nil || !sameStamp(st, want) {
			return false
		}
	}
	return true
}

// menusDrop is the `menus` variable: the site's menus by handle, read when
// a template first uses it, with the trail of the page being shown.
type menusDrop struct{ st *state }

func (d menusDrop) ToLiquid() any {
	st := d.st
	if st.menus != nil {
		return st.menus
	}
	if st.svc.Menus == nil {
		return map[string]any{}
	}
	out, deps, err := st.svc.Menus.LiquidIn(st.ctx, st.tx, st.site, st.locale, st.req.Path)
	if err != nil {
		st.fail(err)
		return map[string]any{}
	}
	st.menus = out
	st.deps.record(store.RecordMenu, deps.Stamp)
	for id, at := range deps.Pages {
		st.deps.page(id, at)
	}
	st.deps.mu.Lock()
	for id, at := range deps.Entries {
		st.deps.entries[id] = at
	}
	st.deps.mu.Unlock()
	return out
}

// RoleRequired is the answer to a logged-in customer without any of the
// roles a page (or what it shows) requires.
type RoleRequired struct{ Roles []string }

func (e *RoleRequired) Error() string {
	return "This page is for customers with the role " + strings.Join(e.Roles, " or ") + "."
}

// checkRoles lets a visit see what requires roles (none: everyone) when
// its customer holds one of them; an anonymous visitor is asked to log in.
func checkRoles(roles []string, req *Request) error {
	if len(roles) == 0 {
		return nil
	}
	if req.Customer == nil {
		return &LoginRequired{ReturnTo: req.Path}
	}
	if cms.HasRole(req.Customer.Roles, roles) {
		return nil
	}
	return &RoleRequired{Roles: roles}
}

// channelRoles reads the roles a channel's document requires.
func channelRoles(ch *store.Channel) []string {
	var d struct {
		Roles []string `json:"roles"`
	}
	if json.Unmarshal(ch.Doc, &d) != nil {
		return nil
	}
	return d.Roles
}
