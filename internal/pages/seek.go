package pages

// Deep windows of the page list. A window at offset N skips N pages, and
// a database skips them one index entry at a time: page 4,000 of a
// 100,000-page site costs a hundred times page 1. The service remembers,
// per site, the place of every seekStep-th page of the unfiltered list,
// found while no write has landed anywhere (package fresh), and starts a
// deep window from the nearest one: it then skips fewer than seekStep.

import (
	"time"

	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/store"
)

// seekStep is the distance between two remembered places: the most a
// window skips once they are known.
var seekStep = 500

// seekPoints are the places of pages seekStep, 2×seekStep, … of a site's
// list, as far as they were needed.
type seekPoints struct{ at []store.PageCursor }

func (p *seekPoints) Size() int {
	n := 64
	for _, c := range p.at {
		n += len(c.SortKey) + len(c.ID) + 32
	}
	return n
}

// seekWindow returns f and win with a window of the unfiltered list at
// offset seekStep or more started from the nearest remembered place
// (found now if need be) rather than the start. mark and markAt are the
// Source's mark taken before tx began, current whether it may be used.
// Any other list is returned unchanged.
func (s *Service) seekWindow(tx store.Tx, site *store.Site, f store.PageFilter, win store.ListOptions,
	mark fresh.Mark, markAt time.Time, current bool) (store.PageFilter, store.ListOptions, error) {
	steps := win.Offset / seekStep
	if !current || steps == 0 || f != (store.PageFilter{Locale: f.Locale}) {
		return f, win, nil
	}
	var have []store.PageCursor
	if pts, ok := s.seeks.Get(s.Fresh, site.ID, mark, markAt); ok {
		have = pts.at
	}
	known := len(have)
	for len(have) < steps {
		var from store.PageCursor
		if len(have) > 0 {
			from = have[len(have)-1]
		}
		at, ok, err := tx.Pages().Seek(site.ID, from, seekStep)
		if err != nil {
			return f, win, err
		}
		if !ok {
			break // the window is past the end
		}
		have = append(have, at)
	}
	if len(have) > known {
		s.seeks.Put(site.ID, &seekPoints{at: have}, mark, markAt)
	}
	used := min(steps, len(have))
	if used == 0 {
		return f, win, nil
	}
	f.After = have[used-1]
	win.Offset -= used * seekStep
	return f, win, nil
}
