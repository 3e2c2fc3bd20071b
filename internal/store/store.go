// Package store defines the storage interface every backend implements.
//
// Stores only save and load: business rules live in the service packages.
// Every method runs inside a transaction opened by Store.View or
// Store.Update, and every site-owned record is read and written through its
// site id so that one site's query can never return another site's rows.
//
// Errors: methods return *cms.Error values with code cms.ENotFound for a
// missing record, cms.EConflict for a unique-key violation, and ErrStale
// (code cms.EConcurrentMod) when a compare-and-swap found the record changed.
package store

import (
	"context"
	"time"

	"github.com/tessera-cms/tessera/internal/cms"
)

// ErrStale is returned by compare-and-swap writes that matched no row: the
// record was written by somebody else since it was read.
var ErrStale = &cms.Error{Code: cms.EConcurrentMod, Message: "The record was modified by another request."}

// Store opens transactions. Implementations are safe for concurrent use.
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction, committed when fn returns
	// nil and rolled back otherwise. A commit is durable when Update returns.
	// When fn returns, Update runs ctx's commit check (WithCommitCheck); an
	// error from it rolls the transaction back and is what Update returns.
	Update(ctx context.Context, fn func(Tx) error) error
	// Close releases the store's connections.
	Close() error
}

type commitCheckKey struct{}

// WithCommitCheck returns a context carrying check, which every read-write
// transaction opened with it runs when its function returns, whether that
// function succeeded or not. An error from check replaces the function's
// outcome: the transaction rolls back and Update returns check's error. A
// request uses it to refuse any write made on an assumption the request
// later finds false (see files.AllSpillsUsed).
func WithCommitCheck(ctx context.Context, check func() error) context.Context {
	return context.WithValue(ctx, commitCheckKey{}, check)
}

// CommitCheck runs the check of WithCommitCheck that ctx carries, if any.
// Store implementations call it before they commit.
func CommitCheck(ctx context.Context) error {
	if check, ok := ctx.Value(commitCheckKey{}).(func() error); ok {
		return check()
	}
	return nil
}

// WriteCounter is a store that counts the read-write transactions run
// through it in this process: tests and benchmarks count a request's write
// transactions with it. (Caches learn of writes from package changes,
// which also says what each one touched.)
type WriteCounter interface {
	// Writes is the number of Update calls that returned so far: it moves
	// after a write committed (or failed) and before its caller goes on.
	Writes() uint64
}

// WriteProber is a store that can tell whether it takes writes without
// changing anything: a health check's probe. ProbeWrite runs a write that
// matches nothing in a transaction it rolls back; it fails when the
// database is read-only (a read-only file, a standby) or the writer cannot
// be had before ctx ends. It does not count as a write (WriteCounter).
type WriteProber interface {
	ProbeWrite(ctx context.Context) error
}

type enclosingKey struct{}

// WithEnclosing returns a context carrying tx: a View opened with it runs
// its function in tx itself rather than in a transaction of its own. A
// write passes it to the hooks it runs inside its transaction, so that a
// hook that reads needs no second connection while the write holds one: N
// concurrent writes on a pool of N connections would otherwise wait on
// each other forever. fn must not keep tx past its return.
func WithEnclosing(ctx context.Context, tx Tx) context.Context {
	return context.WithValue(ctx, enclosingKey{}, tx)
}

// Enclosing returns the transaction WithEnclosing put in ctx, or nil.
func Enclosing(ctx context.Context) Tx {
	tx, _ := ctx.Value(enclosingKey{}).(Tx)
	return tx
}

// Tx is one transaction. It must not be used after its function returns.
type Tx interface {
	// Context is the context the transaction was opened with.
	Context() context.Context
	// Now is the one timestamp of this transaction (UTC, millisecond precision),
	// taken from the store's clock when the transaction began.
	Now() time.Time

	Sites() Sites
	Users() Users
	Tokens() Tokens
	UserTokens() UserTokens
	Themes() Themes
	Pages() Pages
	Drafts() Drafts
	Versions() Versions
	Uploads() Uploads
	Channels() Channels
	Entries() Entries
	Customers() Customers
	CustomerSessions() CustomerSessions
	CustomerTokens() CustomerTokens
	CustomerFields() CustomerFields
	Apps() Apps
	AppQueue() AppQueue
	Records() Records
	SiteEvents() SiteEvents
	Webhooks() Webhooks
	OAuth() OAuth
}

// ListOptions selects one window of a list. Limit <= 0 means no limit.
type ListOptions struct {
	Offset int
	Limit  int
}

// NearerEnd reports whether the window of o among total rows lies nearer
// the end than the start: a store reads such a window in the reversed
// order, and a caller needs no remembered place to start it from. No
// limit is never nearer the end.
func (o ListOptions) NearerEnd(total int) bool {
	return o.Limit > 0 && 2*max(o.Offset, 0)+o.Limit > total
}

// Stamp sums up a set of records for cache validation: how many there are
// and the latest updated_at among them. Every write sets a record's
// updated_at past its previous one and past the time of the last write, so
// a create or update raises Latest and a delete lowers Count.
type Stamp struct {
	Count  int
	Latest time.Time
}

// Site is a website served by Tessera.
type Site struct {
	ID            string
	ShortID       string
	Name          string
	DefaultLocale string
	Locales       []string // the default locale first
	Timezone      string
	Domains       []string
	DraftsEnabled bool
	// CustomerConfirmation makes new customers confirm their email (a
	// mailed token) before they can log in.
	CustomerConfirmation bool
	// PreviewSecret signs preview tokens; rotating it revokes them all.
	PreviewSecret []byte
	// Theme is the name of the site's active theme.
	Theme     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Sites stores sites. Site lookups are global: they are how a request finds
// its site in the first place.
type Sites interface {
	// Create stores a new site. EConflict if the id, short id or a domain is taken.
	Create(s *Site) error
	// Get returns the site with the given id. ENotFound.
	Get(id string) (*Site, error)
	// GetByShortID returns the site with the given short id. ENotFound.
	GetByShortID(shortID string) (*Site, error)
	// GetByDomain returns the site serving the given host name. ENotFound.
	GetByDomain(domain string) (*Site, error)
	// Stamp returns a site's updated_at without loading it, for cache
	// validation. ENotFound.
	Stamp(id string) (time.Time, error)
	// Update replaces the stored site if its updated_at still equals
	// prevUpdatedAt. ErrStale, ENotFound, EConflict (short id or domain taken).
	Update(s *Site, prevUpdatedAt time.Time) error
	// List returns sites ordered by creation, and the total count.
	List(opt ListOptions) ([]*Site, int, error)
	// ListForUser returns the sites the user is a member of, and their count.
	ListForUser(userID string, opt ListOptions) ([]*Site, int, error)
	// Delete removes the site and every record of it (pages, drafts,
	// versions, themes, uploads, channels, entries, customers, tokens,
	// memberships). ENotFound.
	Delete(id string) error
}

// Kinds of theme files.
const (
	KindLayouts   = "layouts"
	KindTemplates = "templates"
	KindSnippets  = "snippets"
	KindAssets    = "assets"
)

// ThemeFile is one file of a site's theme.
type ThemeFile struct {
	ID     string
	SiteID string
	Theme  string
	Kind   string // one of the Kind constants
	Name   string
	// Code is the file's content; for a Binary file (an image, a font) its
	// bytes, which the store keeps in a form text columns can hold.
	Code      string
	Binary    bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Themes stores theme files, always scoped to one site.
type Themes interface {
	// ListThemes returns the names of the site's themes, sorted.
	ListThemes(siteID string) ([]string, error)
	// ListFiles returns the files of one theme ordered by kind and name;
	// kind "" lists every kind.
	ListFiles(siteID, theme, kind string) ([]*ThemeFile, error)
	// GetFile returns one file. ENotFound.
	GetFile(siteID, theme, kind, name string) (*ThemeFile, error)
	// GetFileByID returns one file by id. ENotFound.
	GetFileByID(siteID, id string) (*ThemeFile, error)
	// PutFile creates or replaces the file (site, theme, kind, name). On
	// replace the stored id and created_at are kept and written back into f.
	PutFile(f *ThemeFile) error
	// DeleteFile removes one file. ENotFound.
	DeleteFile(siteID, theme, kind, name string) error
	// Stamp sums up the files of one theme for cache validation: any
	// write or delete of one of them changes it.
	Stamp(siteID, theme string) (Stamp, error)
}

// PageRecord is a stored page: the columns pages are looked up and ordered
// by, and the page document (JSON, owned by package pages) that is the
// authority for everything else.
type PageRecord struct {
	ID        string
	SiteID    string
	ParentID  string // "" for a top-level page
	Position  int
	Published bool
	Homepage  bool
	Template  string
	// SortKey orders pages in tree order (parents before children, siblings
	// by position); the service computes it, the store only sorts by it.
	SortKey string
	// Search is the text a page search looks in (PageFilter.Search): the
	// service writes it (its titles and fullpaths, lower case), the store
	// only matches in it.
	Search    string
	CreatedAt time.Time
	UpdatedAt time.Time
	Doc       []byte
}

// PageFilter narrows a page list. Fullpaths are without the leading slash
// and looked up in Locale.
type PageFilter struct {
	// Template, when not "", keeps the pages on that template.
	Template string
	// Homepage keeps only pages flagged as the homepage (a site has at
	// most one; a writer that sets the flag looks for the others here).
	Homepage       bool
	Locale         string
	Fullpath       string // exact match, when not ""
	FullpathPrefix string // the fullpath starts with this, when not ""
	// After, when not zero, keeps the pages after it in list order: a
	// seek point (see Seek) a deep window starts from, instead of
	// stepping over every page before it. It does not narrow the total.
	After PageCursor
	// ByParent keeps the direct children of Parent ("" for the top-level
	// pages) and lists them by position, then id, from the index of
	// children: a page of a parent's children costs the same however many
	// it has. After must then be zero.
	ByParent bool
	Parent   string
	// Search, when not "", keeps the pages whose Search text holds it
	// (the caller lowers its case as the service lowered the text's).
	Search string
}

// PageCursor is a place in the page list order: a page's sort key and id.
type PageCursor struct {
	SortKey string
	ID      string
}

// Pages stores pages and the (site, locale, fullpath) table that resolves
// translated paths to page ids. Every method is scoped to one site.
type Pages interface {
	// Create stores a new page. EConflict if the id exists.
	Create(p *PageRecord) error
	// Holding returns up to limit of the site's pages whose live document
	// holds any of texts (each at least 8 bytes), by id.
	Holding(siteID string, texts []string, limit int) ([]Holder, error)
	// EachDoc calls fn with every page of the site whose live document
	// holds text (at least 8 bytes), by id: a full scan of the site's pages.
	EachDoc(siteID, text string, fn func(d HeldDoc) error) error
	// Get returns one page with its document. ENotFound.
	Get(siteID, id string) (*PageRecord, error)
	// Stamp returns a page's updated_at without loading its document, for
	// cache validation. ENotFound.
	Stamp(siteID, id string) (time.Time, error)
	// Homepage returns the site's homepage. ENotFound when it has none.
	Homepage(siteID string) (*PageRecord, error)
	// Update replaces the stored page if its updated_at still equals
	// prevUpdatedAt. ErrStale, ENotFound.
	Update(p *PageRecord, prevUpdatedAt time.Time) error
	// Delete removes the pages with the given ids, and their paths.
	Delete(siteID string, ids []string) error
	// Children returns the direct children of a page ("" for top-level
	// pages), ordered by position then id.
	Children(siteID, parentID string) ([]*PageRecord, error)
	// ChildCounts returns how many direct children each of the pages ids
	// has, read from the index of children; a page without children (or
	// that is not the site's) is absent from the map.
	ChildCounts(siteID string, ids []string) (map[string]int, error)
	// MaxChildPosition returns the highest position among the direct
	// children of a page ("" for top-level pages), read from an index
	// whatever the number of children; ok is false when it has none.
	MaxChildPosition(siteID, parentID string) (pos int, ok bool, err error)
	// Descendants returns the ids of the pages below page id (its
	// children, their children, and so on), in no particular order,
	// without loading them.
	Descendants(siteID, id string) ([]string, error)
	// List returns the site's pages matching f, in SortKey order, and the
	// number that match. Unfiltered, the number is Count's.
	List(siteID string, f PageFilter, opt ListOptions) ([]*PageRecord, int, error)
	// Seek returns the place of the n-th page (n >= 1) after from (zero:
	// the start) in list order, reading the sort index only; ok is false
	// when fewer than n pages follow.
	Seek(siteID string, from PageCursor, n int) (at PageCursor, ok bool, err error)
	// Count returns the number of the site's pages: exact, and read from a
	// count the store keeps with every Create and Delete, so its cost does
	// not grow with the number of pages.
	Count(siteID string) (int, error)
	// IDByPath returns the id of the page whose fullpath in locale is
	// fullpath. ENotFound.
	IDByPath(siteID, locale, fullpath string) (string, error)
	// SetPaths replaces the page's fullpaths, one per locale. EConflict when
	// another page of the site has one of them in the same locale.
	SetPaths(siteID, pageID string, paths map[string]string) error
}

// Draft is the unpublished state of a page: a content snapshot (JSON, owned
// by package pages) and the live updated_at it was based on.
type Draft struct {
	ID        string
	SiteID    string
	PageID    string
	BasedOn   time.Time
	Content   []byte
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Drafts stores at most one draft per page. A page's draft is removed with
// the page.
type Drafts interface {
	// Get returns the page's draft. ENotFound.
	Get(siteID, pageID string) (*Draft, error)
	// Put creates the page's draft or replaces it (keeping the stored id and
	// created_at, written back into d). ENotFound when the page does not exist.
	Put(d *Draft) error
	// Delete removes the page's draft. ENotFound.
	Delete(siteID, pageID string) error
}

// Version is an archived snapshot of a page.
type Version struct {
	ID           string
	SiteID       string
	PageID       string
	SourceAction string // live_save, draft_publish, restore_publish
	CreatedAt    time.Time
	// Snapshot is stored and read back byte for byte; the store does not
	// interpret it.
	Snapshot []byte
	// BaseID names the version of the same page that Snapshot is stored
	// against (a delta); empty when Snapshot stands on its own. The store
	// keeps a version's base, and the base's base, for as long as the
	// version itself.
	BaseID string
}

// Versions stores page versions. A page's versions are removed with the page.
//
// A version that Prune removes but that a remaining version is stored
// against (through its BaseID, directly or by way of other bases) stays
// in the store, out of Get and List, and is reached only through Chain;
// it is deleted once nothing remaining builds on it.
type Versions interface {
	// Create stores a version. ENotFound when the page does not exist, or
	// when BaseID is set and is not one of the page's versions.
	Create(v *Version) error
	// Get returns one version of a page. ENotFound.
	Get(siteID, pageID, id string) (*Version, error)
	// Chain returns a version of a page with its snapshot, then its base,
	// its base's base, and so on to the first without a base: what it
	// takes to read the version's snapshot. ENotFound when id is not one
	// of the page's versions.
	Chain(siteID, pageID, id string) ([]*Version, error)
	// Latest returns the id of the page's newest version (as List orders
	// them), reading no snapshot; "" when the page has none.
	Latest(siteID, pageID string) (string, error)
	// List returns a page's versions newest first (created_at, then id,
	// descending), without their snapshots, and their total.
	List(siteID, pageID string, opt ListOptions) ([]*Version, int, error)
	// Prune removes the page's versions that are neither among its newest
	// keep nor created at or after since, and returns how many it removed.
	Prune(siteID, pageID string, keep int, since time.Time) (int, error)
}

// Upload is a file stored on its own, to be copied into records by FileRef.
// A tmp upload expires at ExpiresAt (zero for a lasting upload).
type Upload struct {
	ID          string
	SiteID      string
	Key         string // the blob key
	Filename    string
	ContentType string
	Size        int64
	Checksum    string
	Width       int
	Height      int
	Tmp         bool
	ExpiresAt   time.Time
	CreatedAt   time.Time
}

// UploadFilter narrows a list of uploads. Name is a part of the file name
// (any case; "" admits every name); Kind is "image" (an image/ content
// type), "other" (any other) or "" (both).
type UploadFilter struct {
	Name string
	Kind string
}

// Holder is a record whose document holds some bytes: its id and, for an
// entry, its channel.
type Holder struct {
	ID        string
	ChannelID string
}

// HeldDoc is a record's document as EachDoc passes it: its id, two
// columns that name it (an entry's channel id and slug, a customer's
// email) and its document, which is only valid during the call.
type HeldDoc struct {
	ID    string
	Extra [2]string
	Doc   []byte
}

// Uploads stores upload records, always scoped to one site. The blobs they
// name are the caller's to store and delete.
type Uploads interface {
	// Create stores a new upload. EConflict if the id exists.
	Create(u *Upload) error
	// Get returns one upload. ENotFound.
	Get(siteID, id string) (*Upload, error)
	// List returns the site's uploads newest first (created_at, then id,
	// descending), and their total.
	List(siteID string, opt ListOptions) ([]*Upload, int, error)
	// Find returns the site's uploads that f admits, newest first, and
	// their total.
	Find(siteID string, f UploadFilter, opt ListOptions) ([]*Upload, int, error)
	// Replace stores new file metadata (key, filename, content type,
	// size, checksum, width, height) for an upload. ENotFound.
	Replace(u *Upload) error
	// Delete removes one upload. ENotFound.
	Delete(siteID, id string) error
	// Expired returns up to limit temporary uploads, of any site, that
	// expired at or before t, oldest first: the sweeper's work list.
	Expired(t time.Time, limit int) ([]*Upload, error)
}

// Channel is a stored channel: its site-unique slug, and its document (JSON,
// owned by package channels: name, custom fields, …).
type Channel struct {
	ID        string
	SiteID    string
	Slug      string
	Doc       []byte
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Channels stores channels, always scoped to one site.
type Channels interface {
	// Create stores a new channel. EConflict if the id exists or the slug is
	// taken in the site.
	Create(c *Channel) error
	// Get returns one channel. ENotFound.
	Get(siteID, id string) (*Channel, error)
	// GetBySlug returns the site's channel with the given slug. ENotFound.
	GetBySlug(siteID, slug string) (*Channel, error)
	// Update replaces the stored channel if its updated_at still equals
	// prevUpdatedAt. ErrStale, ENotFound, EConflict (slug taken).
	Update(c *Channel, prevUpdatedAt time.Time) error
	// Delete removes a channel and its entries. ENotFound.
	Delete(siteID, id string) error
	// List returns the site's channels ordered by slug, and their total.
	List(siteID string, opt ListOptions) ([]*Channel, int, error)
}

// EntryValue is one indexed value of an entry's field, for where= and
// sort=: its text, and its number when the value is one. A field may have
// several values (multiple choices).
type EntryValue struct {
	Field string
	Text  string
	Num   *float64
}

// EntryRef is a reference from an entry's field to another record, for
// reverse look-ups.
type EntryRef struct {
	Field    string
	TargetID string
}

// Entry is a stored entry of a channel: the columns entries are looked up
// and ordered by, its document (JSON, owned by package entries), and what is
// derived from the document for queries: Values, Refs and the searchable
// text per locale.
type Entry struct {
	ID        string
	SiteID    string
	ChannelID string
	Slug      string
	Doc       []byte
	Values    []EntryValue
	Refs      []EntryRef
	Search    map[string]string // locale -> searchable text
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Names of the entry columns an EntryCond or EntrySort can name instead of
// a value field.
const (
	EntrySlug      = "_slug"
	EntryID        = "_id" // conditions only
	EntryCreatedAt = "_created_at"
	EntryUpdatedAt = "_updated_at"
)

// EntryCond matches entries by a value of Field (Field EntrySlug or
// EntryID: by their slug or id). Op says how; the zero Op matches a value
// whose text equals Value. A condition with Any matches the entries that
// any of those conditions matches (its other fields are unused; they have
// no Any of their own).
type EntryCond struct {
	Field string
	Value string
	Op    string
	// Values are the texts of OpIn and OpNotIn.
	Values []string
	// Numeric compares the values' numbers (OpGreater…), not their texts.
	Numeric bool
	Any     []EntryCond
}

// Condition operators beyond equality.
const (
	OpNotEqual     = "ne"       // no value's text equals Value
	OpGreater      = "gt"       // a value above Value
	OpGreaterEqual = "gte"      // a value at or above Value
	OpLess         = "lt"       // a value below Value
	OpLessEqual    = "lte"      // a value at or below Value
	OpIn           = "in"       // a value among Values
	OpNotIn        = "nin"      // no value among Values
	OpExists       = "exists"   // some value
	OpNotExists    = "nexists"  // no value
	OpContains     = "contains" // a value containing Value, in any case
	OpPrefix       = "prefix"   // a value starting with Value
)

// EntrySort orders entries by a value field (its number when it has one,
// else its text; entries without a value last) or by EntrySlug,
// EntryCreatedAt or EntryUpdatedAt.
type EntrySort struct {
	Field string
	Desc  bool
	// Numeric reports whether the field's values are numbers (each has
	// one, and its text is the number's): the store then orders by the
	// number alone. A sortable field holds at most one value per entry,
	// so a list sorted by one field walks that field's values in order
	// instead of sorting every entry.
	Numeric bool
	// Text reports whether no value of the field has a number (strings,
	// dates, options): the store then orders by the text alone. Neither
	// flag: values may have either.
	Text bool
}

// EntryQuery narrows and orders an entry list. Every condition must hold.
// Search matches entries whose text, in Locale ("" = any locale), contains
// every word of Search as a whole word, case-insensitively.
type EntryQuery struct {
	Where  []EntryCond
	Search string
	Locale string
	Sort   []EntrySort
	// After, when not zero, keeps the entries after it in the default
	// order (created_at, then id; Sort must be empty): a seek point (see
	// Seek) a deep window starts from, instead of stepping over every
	// entry before it. It does not narrow the total.
	After EntryCursor
}

// EntryCursor is a place in the default entry order: an entry's
// created_at and id.
type EntryCursor struct {
	CreatedAt time.Time
	ID        string
}

// Entries stores entries, always scoped to one site. An entry's values,
// references and search text are replaced with it and removed with it.
type Entries interface {
	// Create stores a new entry. EConflict if the id exists or the slug is
	// taken in the channel; ENotFound if the channel is not the site's.
	Create(e *Entry) error
	// Get returns one entry, without its Values, Refs and Search. ENotFound.
	Get(siteID, id string) (*Entry, error)
	// Stamp returns an entry's updated_at without loading its document,
	// for cache validation. ENotFound.
	Stamp(siteID, id string) (time.Time, error)
	// ChannelStamp sums up the entries of one channel for cache
	// validation: any create, update or delete of one of them changes it.
	ChannelStamp(siteID, channelID string) (Stamp, error)
	// GetMany returns the site's entries among ids, in no particular
	// order, without their Values, Refs and Search; missing ones are left
	// out.
	GetMany(siteID string, ids []string) ([]*Entry, error)
	// Update replaces the stored entry (slug, document, updated_at, values,
	// references and search text) if its updated_at still equals
	// prevUpdatedAt. ErrStale, ENotFound, EConflict (slug taken).
	Update(e *Entry, prevUpdatedAt time.Time) error
	// Delete removes one entry. ENotFound.
	Delete(siteID, id string) error
	// List returns the channel's entries ("" = every channel of the site)
	// matching q, in q's order then by id (by default created_at, then id),
	// without their Values, Refs and Search, and the number that match.
	// With no condition and no search, the number is Count's.
	List(siteID, channelID string, q EntryQuery, opt ListOptions) ([]*Entry, int, error)
	// Seek returns the place of the n-th entry (n >= 1) of the channel
	// after from (zero: the start) in the default order, reading an index
	// only; ok is false when fewer than n entries follow.
	Seek(siteID, channelID string, from EntryCursor, n int) (at EntryCursor, ok bool, err error)
	// Count returns the number of the channel's entries ("" = every
	// channel of the site): exact, and read from counts the store keeps
	// with every Create and Delete, so its cost does not grow with the
	// number of entries.
	Count(siteID, channelID string) (int, error)
	// ReferencedBy returns the ids, sorted, of the site's entries that
	// reference targetID.
	ReferencedBy(siteID, targetID string) ([]string, error)
	// Holding returns up to limit of the site's entries whose document
	// holds any of texts (each at least 8 bytes), by id.
	Holding(siteID string, texts []string, limit int) ([]Holder, error)
	// EachDoc calls fn with every entry of the site whose document holds
	// text (at least 8 bytes), by id, with its channel id and slug as Extra:
	// a full scan of the site's entries.
	EachDoc(siteID, text string, fn func(d HeldDoc) error) error
	// Hold locks one entry's row until the transaction ends, exclusively
	// or shared, and returns its channel id. A writer holds the targets of
	// the references it writes shared, a deletion holds its entry
	// exclusively before it looks for referrers, so that no reference is
	// written to an entry being deleted unseen. Stores that run one writer
	// at a time take no row locks. ENotFound.
	Hold(siteID, id string, exclusive bool) (channelID string, err error)
}
