package pages

// Deep windows of the page list. A window at offset N skips N pages, and
// a database skips them one index entry at a time: page 4,000 of a
// 100,000-page site cost a hundred times page 1. The service remembers,
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

// seekWindow returns f and win with a window of the unfiltered list at
// offset seekStep or more started from the nearest remembered place
// rather than the start. mark and markAt are the Source's mark taken
// before tx began, current whether it may be used. Any other list is
// returned unchanged.
func (s *Service) seekWindow(tx store.Tx, site *store.Site, f store.PageFilter, win store.ListOptions,
	mark fresh.Mark, markAt time.Time, current bool) (store.PageFilter, store.ListOptions, error) {
	if f != (store.PageFilter{Locale: f.Locale}) {
		return f, win, nil
	}
	from, rest, err := s.seeks.Window(s.Fresh, site.ID, mark, markAt, current, win.Offset, seekStep,
		func(from store.PageCursor, n int) (store.PageCursor, bool, error) {
			return tx.Pages().Seek(site.ID, from, n)
		})
	if err != nil {
		return f, win, err
	}
	f.After, win.Offset = from, rest
	return f, win, nil
}
