package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
)

// t0 is the fixed clock's start in Run: it has sub-millisecond digits, so
// the cases see that Tx.Now truncates them.
var t0 = time.Date(2026, 9, 10, 14, 31, 12, 408_123_456, time.UTC)

// Run is the conformance suite: every store passes it. Each case opens a
// fresh store from b with a fixed clock starting at 2026-09-10T14:31:12.408123456Z.
func Run(t *testing.T, b Backend) {
	// Open once up front, so an unavailable backend skips (or fails) this
	// test once rather than each of its cases.
	b.Open(t, nil)
	for _, c := range []struct {
		name string
		fn   func(*testing.T, *env)
	}{
		{"Sites/CreateAndGet", testSitesCreateAndGet},
		{"Sites/NotFound", testSitesNotFound},
		{"Sites/Update", testSitesUpdate},
		{"Sites/UpdateStale", testSitesUpdateStale},
		{"Sites/UpdateNotFound", testSitesUpdateNotFound},
		{"Sites/ConflictShortID", testSitesConflictShortID},
		{"Sites/ConflictDomain", testSitesConflictDomain},
		{"Sites/List", testSitesList},
		{"Sites/ListForUser", testSitesListForUser},
		{"Sites/Delete", testSitesDelete},
		{"Sites/Stamp", testSitesStamp},
		{"Users/CreateAndGet", testUsersCreateAndGet},
		{"Users/ConflictEmail", testUsersConflictEmail},
		{"Users/Membership", testUsersMembership},
		{"Users/ListMembers", testUsersListMembers},
		{"Users/RemoveMembership", testUsersRemoveMembership},
		{"Users/Password", testUsersPassword},
		{"Tokens/CreateGetDelete", testTokensCreateGetDelete},
		{"Tokens/ConflictHash", testTokensConflictHash},
		{"Tokens/List", testTokensList},
		{"Tokens/SignIns", testTokensSignIns},
		{"Tokens/Extend", testTokensExtend},
		{"Tokens/DeleteOtherSignIns", testTokensDeleteOtherSignIns},
		{"Users/CountAndMemberships", testUsersCountAndMemberships},
		{"Users/ClaimFirstRun", testUsersClaimFirstRun},
		{"UserTokens", testUserTokens},
		{"Themes/PutAndGet", testThemesPutAndGet},
		{"Themes/PutReplaces", testThemesPutReplaces},
		{"Themes/Delete", testThemesDelete},
		{"Themes/SiteScoping", testThemesSiteScoping},
		{"Themes/Stamp", testThemesStamp},
		{"Themes/Binary", testThemesBinary},
		{"Apps/All", testApps},
		{"Apps/LogRetention", testAppLogRetention},
		{"AppQueue/Claim", testAppQueue},
		{"AppQueue/Spent", testAppQueueSpent},
		{"AppQueue/FairOrder", testAppQueueFairOrder},
		{"AppQueue/ConcurrentClaims", testAppQueueConcurrentClaims},
		{"AppQueue/Schedules", testAppSchedules},
		{"Tx/Enclosing", testEnclosing},
		{"Pages/CreateAndGet", testPagesCreateAndGet},
		{"Pages/Stamp", testPagesStamp},
		{"Pages/Homepage", testPagesHomepage},
		{"Pages/Update", testPagesUpdate},
		{"Pages/UpdateStale", testPagesUpdateStale},
		{"Pages/UpdateNotFound", testPagesUpdateNotFound},
		{"Pages/DocRoundTrip", testPagesDocRoundTrip},
		{"Pages/Children", testPagesChildren},
		{"Pages/MaxChildPosition", testPagesMaxChildPosition},
		{"Pages/Descendants", testPagesDescendants},
		{"Pages/ListHomepage", testPagesListHomepage},
		{"Pages/Count", testPagesCount},
		{"Pages/Seek", testPagesSeek},
		{"Pages/List", testPagesList},
		{"Pages/ListFilters", testPagesListFilters},
		{"Pages/ListByParent", testPagesListByParent},
		{"Pages/SetPaths", testPagesSetPaths},
		{"Pages/SetPathsConflict", testPagesSetPathsConflict},
		{"Pages/Delete", testPagesDelete},
		{"Pages/SiteScoping", testPagesSiteScoping},
		{"Pages/UnstorablePaths", testPagesUnstorablePaths},
		{"Pages/DeleteCascades", testPagesDeleteCascades},
		{"Drafts/PutGetDelete", testDraftsPutGetDelete},
		{"Drafts/PutReplaces", testDraftsPutReplaces},
		{"Drafts/ContentRoundTrip", testDraftsContentRoundTrip},
		{"Drafts/PutMissingPage", testDraftsPutMissingPage},
		{"Drafts/SiteScoping", testDraftsSiteScoping},
		{"Drafts/ConcurrentPut", testDraftsConcurrentPut},
		{"Versions/CreateAndGet", testVersionsCreateAndGet},
		{"Versions/SnapshotRoundTrip", testVersionsSnapshotRoundTrip},
		{"Versions/List", testVersionsList},
		{"Versions/Prune", testVersionsPrune},
		{"Versions/PruneTies", testVersionsPruneTies},
		{"Versions/SiteScoping", testVersionsSiteScoping},
		{"Versions/Chain", testVersionsChain},
		{"Versions/PruneKeepsBases", testVersionsPruneKeepsBases},
		{"Uploads/CreateGetDelete", testUploadsCreateGetDelete},
		{"Uploads/List", testUploadsList},
		{"Uploads/SiteScoping", testUploadsSiteScoping},
		{"Uploads/Expired", testUploadsExpired},
		{"Uploads/Find", testUploadsFind},
		{"Uploads/Replace", testUploadsReplace},
		{"Holding", testHolding},
		{"Channels/CRUD", testChannelsCRUD},
		{"Channels/Conflict", testChannelsConflict},
		{"Channels/List", testChannelsList},
		{"Channels/SiteScoping", testChannelsSiteScoping},
		{"Entries/ChannelStamp", testEntriesChannelStamp},
		{"Entries/CRUD", testEntriesCRUD},
		{"Entries/Count", testEntriesCount},
		{"Entries/Seek", testEntriesSeek},
		{"Entries/DeleteCascades", testEntriesDeleteCascades},
		{"Entries/ListWhereAndSearch", testEntriesListWhereAndSearch},
		{"Entries/ListSort", testEntriesListSort},
		{"Entries/ReferencedBy", testEntriesReferencedBy},
		{"Entries/SiteScoping", testEntriesSiteScoping},
		{"Customers/CRUD", testCustomersCRUD},
		{"Customers/SiteScoping", testCustomersSiteScoping},
		{"Customers/ConcurrentNumbers", testCustomersConcurrentNumbers},
		{"Customers/Sessions", testCustomerSessions},
		{"Customers/Tokens", testCustomerTokens},
		{"Customers/Fields", testCustomerFields},
		{"Customers/ListQuery", testCustomersListQuery},
		{"Customers/Roles", testCustomersRoles},
		{"Records/CRUD", testRecordsCRUD},
		{"Records/Conflict", testRecordsConflict},
		{"Records/List", testRecordsList},
		{"Records/Stamp", testRecordsStamp},
		{"Records/SiteDelete", testRecordsSiteDelete},
		{"SiteEvents/AppendAndRead", testSiteEventsAppendAndRead},
		{"SiteEvents/Rollback", testSiteEventsRollback},
		{"SiteEvents/Concurrent", testSiteEventsConcurrent},
		{"SiteEvents/Prune", testSiteEventsPrune},
		{"SiteEvents/SiteDelete", testSiteEventsSiteDelete},
		{"Webhooks/CRUD", testWebhooksCRUD},
		{"Webhooks/Claim", testWebhooksClaim},
		{"Webhooks/Deliveries", testWebhooksDeliveries},
		{"Tx/RollbackOnError", testTxRollbackOnError},
		{"Tx/RollbackOnPanic", testTxRollbackOnPanic},
		{"Tx/CommitCheck", testTxCommitCheck},
		{"Tx/Now", testTxNow},
		{"Tx/Context", testTxContext},
		{"Tx/ViewIsReadOnly", testTxViewIsReadOnly},
		{"ConcurrentWriters", testConcurrentWriters},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			clock := cms.NewFixedClock(t0)
			c.fn(t, &env{st: b.Open(t, clock), clock: clock})
		})
	}
}

// env is one case's store and the clock it was opened with.
type env struct {
	st    store.Store
	clock *cms.FixedClock
}

func (e *env) update(t *testing.T, fn func(store.Tx) error) {
	t.Helper()
	if err := e.st.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func (e *env) view(t *testing.T, fn func(store.Tx) error) {
	t.Helper()
	if err := e.st.View(context.Background(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// tryUpdate runs fn in an Update and returns its error.
func (e *env) tryUpdate(fn func(store.Tx) error) error {
	return e.st.Update(context.Background(), fn)
}

// createSite stores a site with the given short id and domains.
func (e *env) createSite(t *testing.T, shortID string, domains ...string) *store.Site {
	t.Helper()
	var s *store.Site
	e.update(t, func(tx store.Tx) error {
		s = newSite(tx.Now(), shortID, domains...)
		return tx.Sites().Create(s)
	})
	return s
}

func newSite(now time.Time, shortID string, domains ...string) *store.Site {
	return &store.Site{
		ID:            cms.NewID(now),
		ShortID:       shortID,
		Name:          "Site " + shortID,
		DefaultLocale: "en",
		Locales:       []string{"en", "nl"},
		Timezone:      "Europe/Brussels",
		Domains:       domains,
		DraftsEnabled: true,
		PreviewSecret: []byte{0, 1, 2, 0xff},
		Theme:         "default",
		CreatedAt:     now,
		UpdatedAt:     now,
	}
}

func (e *env) createUser(t *testing.T, email string) *store.User {
	t.Helper()
	var u *store.User
	e.update(t, func(tx store.Tx) error {
		u = &store.User{ID: cms.NewID(tx.Now()), Email: email, Name: "Ann", CreatedAt: tx.Now(), UpdatedAt: tx.Now()}
		return tx.Users().Create(u)
	})
	return u
}

func newFile(now time.Time, siteID, theme, kind, name string) *store.ThemeFile {
	return &store.ThemeFile{
		ID: cms.NewID(now), SiteID: siteID, Theme: theme, Kind: kind, Name: name,
		Code: "code of " + name, CreatedAt: now, UpdatedAt: now,
	}
}

// diffOpts compares records as stored: a nil and an empty slice are the
// same, and times compare with time.Time.Equal (cmp's default for types
// with an Equal method).
var diffOpts = cmp.Options{cmpopts.EquateEmpty()}

func checkDiff(t *testing.T, what string, got, want any) {
	t.Helper()
	if d := cmp.Diff(want, got, diffOpts); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

// checkCode fails unless err carries the given cms error code.
func checkCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if !cms.IsCode(err, code) {
		t.Errorf("%s: got error %v (code %q), want code %q", what, err, cms.ErrorCode(err), code)
	}
}

func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, v := range items {
		out[i] = id(v)
	}
	return out
}

func siteID(s *store.Site) string { return s.ID }

// createAll stores records in one transaction with create, which returns
// the label that names a record in a failure message.
func createAll[T any](t *testing.T, e *env, what string, records []T, create func(store.Tx, T) (string, error)) {
	t.Helper()
	e.update(t, func(tx store.Tx) error {
		for _, r := range records {
			if label, err := create(tx, r); err != nil {
				return fmt.Errorf("create %s %s: %w", what, label, err)
			}
		}
		return nil
	})
}
