package pages

// Versions: archiving a save, and the documents of the versions this
// process archived last.

import (
	"sync"

	"github.com/tessera-cms/tessera/internal/pages/history"
	"github.com/tessera-cms/tessera/internal/store"
)

// nextVersion returns how to store data, a page's JSON, as the page's next
// version: its snapshot, the version it is stored against (none: on its
// own) and the length of its chain. It is a delta against the page's newest version
// while that version's chain is shorter than history.ChainMax and the delta
// is shorter than the document compressed on its own. The newest
// version's document comes from docs when this process archived it, and
// is read back from its chain otherwise.
func nextVersion(tx store.Tx, docs *versionDocs, siteID, pageID string, data []byte) (snapshot []byte, baseID string, depth int, err error) {
	latest, err := tx.Versions().Latest(siteID, pageID)
	if err != nil {
		return nil, "", 0, err
	}
	var base []byte
	n := 0
	if latest != "" {
		var ok bool
		if base, n, ok = docs.get(latest); !ok {
			chain, err := tx.Versions().Chain(siteID, pageID, latest)
			if err != nil {
				return nil, "", 0, err
			}
			// A full chain is not decoded: the new version starts its own.
			if n = len(chain); n < history.ChainMax {
				if base, err = history.ChainDoc(chain); err != nil {
					// The newest version does not read (a damaged row): the
					// new one starts a chain of its own rather than fail.
					n = 0
				}
			}
		}
	}
	snapshot, onBase, depth := history.Next(base, n, data)
	if !onBase {
		return snapshot, "", depth, nil
	}
	return snapshot, latest, depth, nil
}

// versionDocs keeps the documents of the versions this process archived
// last, by version id, with the length of their chains: the next save of
// the same page stores a delta against that document without reading and
// replaying the chain. A version never changes once stored, so an entry
// can be wrong only for an id that no committed version has (its
// transaction rolled back), and such an id is never asked for: ids come
// from Versions.Latest. It holds at most versionDocsMax bytes and starts
// over when full.
type versionDocs struct {
	mu    sync.Mutex
	docs  map[string]versionDoc
	bytes int
}

type versionDoc struct {
	doc   []byte
	depth int
}

const versionDocsMax = 16 << 20

func (c *versionDocs) get(id string) (doc []byte, depth int, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[id]
	return d.doc, d.depth, ok
}

// put keeps doc, which the caller no longer changes.
func (c *versionDocs) put(id string, doc []byte, depth int) {
	if len(doc) > versionDocsMax/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.docs == nil || c.bytes+len(doc) > versionDocsMax {
		c.docs, c.bytes = map[string]versionDoc{}, 0
	}
	c.docs[id] = versionDoc{doc, depth}
	c.bytes += len(doc)
}
