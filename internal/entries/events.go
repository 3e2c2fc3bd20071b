package entries

// The entry events of the sites' event logs (package sitevents), recorded
// in the transaction of each write: a create or update through the API or
// cloud code, an entry rewritten because a field of its channel changed
// type or a record it referenced was deleted, a delete (one by one, by
// emptying the channel, or with its channel).

import (
	"github.com/tessera-cms/tessera/internal/sitevents"
	"github.com/tessera-cms/tessera/internal/store"
)

func announce(tx store.Tx, site *store.Site, typ string, ch *Channel, e *Entry) error {
	return sitevents.AppendEntry(tx, site.ID, typ, e.ID, ch.Slug, e.Slug)
}

// announceWrite records entry.created (create) or entry.updated.
func announceWrite(tx store.Tx, site *store.Site, create bool, ch *Channel, e *Entry) error {
	typ := sitevents.EntryUpdated
	if create {
		typ = sitevents.EntryCreated
	}
	return announce(tx, site, typ, ch, e)
}
