package entries

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/events"
	"github.com/tessera-cms/tessera/internal/files"
	"github.com/tessera-cms/tessera/internal/fresh"
	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/store"
)

// Service reads and writes channels and their entries.
type Service struct {
	Store store.Store
	// Locker serializes writes to one entry, and to a channel with unique
	// fields; nil writes without locks (tests of one process).
	Locker lock.Locker
	// Files stores the files entry writes bring and signs the URLs of
	// private ones; nil refuses file values.
	Files *files.Service
	// SiteURL returns a site's public base URL without a trailing slash.
	SiteURL func(*store.Site) string
	// Events announces entry creates, updates and deletes; nil announces
	// nothing.
	Events *events.Bus
	// Fresh, when set, lets an entry read that was checked against the
	// store since the last write anywhere be answered from memory, with no
	// transaction (see package fresh); nil checks every read.
	Fresh *fresh.Source

	cache renderCache
	// reads answers repeated default reads while Fresh's mark holds, by
	// what the request named.
	reads fresh.Memo[entryReadKey, rendered]
	lists fresh.Memo[listKey, *listed]
	// seeks are places in each channel's entry list that deep list
	// windows start from (see seekWindow), valid while Fresh's mark holds.
	seeks     fresh.Places[string, store.EntryCursor]
	channels  decodedChannels
	locations sync.Map // timezone name -> *time.Location
}

// WriteOptions are the query options of an entry write.
type WriteOptions struct {
	Locale string // content_locale
	Caller files.Caller
	// ClientVersion reads the written entry's files in the full shape.
	ClientVersion bool
	// IfMatch is an If-Match header ("" when none was sent): an update
	// applies only to the entry with that ETag.
	IfMatch string
}

// Query narrows and orders an entry list.
type Query struct {
	Where  []Cond
	Search string
	Locale string // content_locale: the locale searched ("" = any)
	Sort   []SortKey
}

// privateURLLifetime is how long the signed URL of a private file read
// from an entry stays valid.
const privateURLLifetime = time.Hour

// maxWriteAttempts bounds the retries of an entry write that lost a
// compare-and-swap race: the write merges only the fields it names, so
// applying it again to the newer entry is what the caller asked for.
const maxWriteAttempts = 3

func (s *Service) location(site *store.Site) *time.Location {
	if v, ok := s.locations.Load(site.Timezone); ok {
		return v.(*time.Location)
	}
	loc, err := time.LoadLocation(site.Timezone)
	if err != nil || site.Timezone == "" {
		loc = time.UTC
	}
	s.locations.Store(site.Timezone, loc)
	return loc
}

func (s *Service) baseURL(site *store.Site) string {
	if s.SiteURL == nil {
		return ""
	}
	return s.SiteURL(site)
}

// decodeBody decodes a JSON object body.
func decodeBody(body []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object.")
	}
	return m, nil
}
