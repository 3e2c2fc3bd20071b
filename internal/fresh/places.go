package fresh

import "time"

// Places remembers, per list (key K), the places (C, a cursor in the
// list's order) of its step-th, 2×step-th, … records, found while a mark
// holds, so that a deep window of the list can start from the nearest one
// instead of skipping every record before it: a database skips an offset
// one index entry at a time. Places found at one mark are used only at
// that mark (no write landed since) and within the Source's bound, like
// any value of a Memo.
type Places[K comparable, C comparable] struct {
	memo Memo[K, *placeList[C]]
}

type placeList[C any] struct{ at []C }

// Size estimates a cursor at 128 bytes: a sort key and an id.
func (p *placeList[C]) Size() int { return 64 + 128*len(p.at) }

// Window returns where a window at offset of list key starts: the place
// of the nearest remembered record at or before offset (found now with
// seek if need be) and the offset that is left from it, at most step-1;
// or the zero C and offset itself when the window is shallower than step,
// when the list has no such record, or when current is false. seek
// returns the place of the n-th record after from (zero: the start) and
// whether there is one. mark and markAt are src's mark, taken before the
// transaction seek reads in began.
func (p *Places[K, C]) Window(src *Source, key K, mark Mark, markAt time.Time, current bool, offset, step int,
	seek func(from C, n int) (C, bool, error)) (from C, rest int, err error) {
	steps := offset / step
	if !current || steps == 0 {
		return from, offset, nil
	}
	var have []C
	if l, ok := p.memo.Get(src, key, mark, markAt); ok {
		have = l.at
	}
	known := len(have)
	for len(have) < steps {
		var last C
		if len(have) > 0 {
			last = have[len(have)-1]
		}
		at, ok, err := seek(last, step)
		if err != nil {
			return from, offset, err
		}
		if !ok {
			break // the window is past the end
		}
		have = append(have, at)
	}
	if len(have) > known {
		// A new slice: a reader of the old one may still be using it.
		p.memo.Put(key, &placeList[C]{at: have}, mark, markAt)
	}
	used := min(steps, len(have))
	if used == 0 {
		return from, offset, nil
	}
	return have[used-1], offset - used*step, nil
}
