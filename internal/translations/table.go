package translations

import (
	"context"
	"fmt"
	"strings"

	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/store"
)

// Table is every translation of a site at one moment, for lookups while
// rendering. It is shared and never changed.
type Table struct {
	values map[string]map[string]string
}

// Translate returns key in locale (falling back to def, the default
// locale), with the placeholders of vars filled in (Interpolate); a key
// without a value in either locale is fallback, filled in the same way.
func (t *Table) Translate(key, locale, def, fallback string, vars map[string]string) string {
	var values map[string]string
	if t != nil {
		values = t.values[key]
	}
	v, ok := Value(values, locale, def)
	if !ok {
		v = fallback
	}
	return Interpolate(v, vars)
}

// Len is the number of keys in the table.
func (t *Table) Len() int { return len(t.values) }

func (s *Service) cache() *records.Cache[*Table] {
	if s.tables == nil {
		s.tables = &records.Cache[*Table]{Store: s.Store, Fresh: s.Fresh, Kind: store.RecordTranslation, Max: maxKeys,
			Build: func(recs []*store.Record) (*Table, error) {
				t := &Table{values: make(map[string]map[string]string, len(recs))}
				for _, r := range recs {
					tr, err := decode(r)
					if err != nil {
						return nil, err
					}
					t.values[r.Key] = tr.Values
				}
				return t, nil
			}}
	}
	return s.tables
}

// Table returns the site's translations, and the stamp they were read at
// (a render that used them is current while the stamp holds).
func (s *Service) Table(ctx context.Context, site *store.Site) (*Table, store.Stamp, error) {
	return s.cache().Get(ctx, site.ID)
}

// TableIn is Table reading, when it must read, in tx (the public site
// reads what a render shows in one transaction).
func (s *Service) TableIn(ctx context.Context, tx store.Tx, site *store.Site) (*Table, store.Stamp, error) {
	return s.cache().GetIn(ctx, tx, site.ID)
}

// Interpolate fills the placeholders of text: %{name} and {{name}} (spaces
// allowed inside the braces) become vars[name]; placeholders vars does not
// name stay as they are.
func Interpolate(text string, vars map[string]string) string {
	if len(vars) == 0 || !strings.ContainsAny(text, "%{") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		var open, close string
		switch {
		case strings.HasPrefix(text[i:], "%{"):
			open, close = "%{", "}"
		case strings.HasPrefix(text[i:], "{{"):
			open, close = "{{", "}}"
		default:
			b.WriteByte(text[i])
			i++
			continue
		}
		end := strings.Index(text[i+len(open):], close)
		if end < 0 {
			b.WriteString(text[i:])
			break
		}
		name := strings.TrimSpace(text[i+len(open) : i+len(open)+end])
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(text[i : i+len(open)+end+len(close)])
		}
		i += len(open) + end + len(close)
	}
	return b.String()
}

// Vars turns the arguments of a translate filter into placeholder values:
// one object (its keys), or name, value pairs.
func Vars(args []any) (map[string]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	if len(args) == 1 {
		m, ok := args[0].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("translate takes an object or name, value pairs after the key")
		}
		for k, v := range m {
			out[k] = text(v)
		}
		return out, nil
	}
	if len(args)%2 != 0 {
		return nil, fmt.Errorf("translate takes name, value pairs after the key: %d arguments is odd", len(args))
	}
	for i := 0; i < len(args); i += 2 {
		name, ok := args[i].(string)
		if !ok {
			return nil, fmt.Errorf("translate: argument %d names a placeholder and must be a string", i+1)
		}
		out[name] = text(args[i+1])
	}
	return out, nil
}

func text(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}
