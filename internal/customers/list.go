package customers

import (
	"context"
	"slices"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/entries"
	"github.com/tessera-cms/tessera/internal/store"
)

// Query narrows and orders a customer list: where= conditions and sort=
// keys as entries parse them, on the customer fields with columns (email,
// name, firstname, lastname, slug, language, status, number, id; and for
// sort created_at, updated_at, last_activity_at), and search= over names
// and email.
type Query struct {
	Search string
	Where  []entries.Cond
	Sort   []entries.SortKey
}

var (
	whereKeys = []string{store.CustomerEmail, store.CustomerName, store.CustomerFirstname, store.CustomerLastname,
		store.CustomerSlug, store.CustomerLanguage, store.CustomerStatus, store.CustomerNumber, store.CustomerID}
	sortKeys = append(slices.Clip(whereKeys), store.CustomerCreatedAt, store.CustomerUpdatedAt, store.CustomerLastActivityAt)
)

// storeQuery checks q's keys ("_slug" is "slug", as entries write it) and
// translates it. Errors: a bad request naming the key.
func storeQuery(q Query) (store.CustomerQuery, error) {
	out := store.CustomerQuery{Search: strings.ToLower(strings.TrimSpace(q.Search))}
	for _, c := range q.Where {
		if len(c.Any) > 0 {
			return out, cms.Errorf(cms.EBadRequest, "Invalid where: customers cannot be filtered with OR")
		}
		k := strings.TrimPrefix(c.Key, "_")
		if !slices.Contains(whereKeys, k) {
			return out, cms.Errorf(cms.EBadRequest, "Invalid where: customers are filtered by %s, not %q", strings.Join(whereKeys, ", "), c.Key)
		}
		v := c.Value
		switch k {
		case store.CustomerEmail:
			v = emailKey(v)
		case store.CustomerID:
			v = strings.ToLower(v)
		}
		out.Where = append(out.Where, store.CustomerCond{Column: k, Value: v})
	}
	for _, sk := range q.Sort {
		k := strings.TrimPrefix(sk.Key, "_")
		if !slices.Contains(sortKeys, k) {
			return out, cms.Errorf(cms.EBadRequest, "Invalid sort: customers are sorted by %s, not %q", strings.Join(sortKeys, ", "), sk.Key)
		}
		out.Sort = append(out.Sort, store.CustomerSort{Column: k, Desc: sk.Desc})
	}
	return out, nil
}

// List returns a window of the site's customers matching q (by number
// unless sorted), and their total.
func (s *Service) List(ctx context.Context, site *store.Site, q Query, opt store.ListOptions) ([][]byte, int, error) {
	sq, err := storeQuery(q)
	if err != nil {
		return nil, 0, err
	}
	var out [][]byte
	var total int
	err = s.Store.View(ctx, func(tx store.Tx) error {
		recs, n, err := tx.Customers().List(site.ID, sq, opt)
		if err != nil {
			return err
		}
		total = n
		fs, _, err := s.fieldSet(tx, site)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			c, err := decodeCustomer(rec)
			if err != nil {
				return err
			}
			out = append(out, s.renderWith(fs, site, c, ""))
		}
		return nil
	})
	return out, total, err
}

// Count returns how many of the site's customers match q.
func (s *Service) Count(ctx context.Context, site *store.Site, q Query) (int, error) {
	sq, err := storeQuery(q)
	if err != nil {
		return 0, err
	}
	sq.Sort = nil
	var n int
	err = s.Store.View(ctx, func(tx store.Tx) (err error) {
		_, n, err = tx.Customers().List(site.ID, sq, store.ListOptions{Limit: 1})
		return err
	})
	return n, err
}
