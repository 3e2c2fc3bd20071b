package apitest_test

import (
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/cluster"
	"github.com/tessera-cms/tessera/internal/redistest"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestCluster runs conformance tests through a round-robin proxy in front
// of three `tessera serve` processes on one PostgreSQL schema, one Redis and
// one S3 bucket, so that consecutive requests of a scenario land on
// different processes: every write must be seen by the next read wherever
// it lands. Each test gets a deployment of its own (the scenarios expect
// one demo site).
//
// The tests here are a representative subset of those that need nothing
// of the server's process: auth, sites, themes, page and entry reads and
// writes, conditional writes, the write lock, batches, drafts, files in the
// bucket, customers and their login limit, concurrent writers. The others
// move the server's clock (customer sessions, previews, versions'
// retention), expect the fixed clock's timestamps, change its limits (apps)
// or read the mail it sent.
func TestCluster(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"Auth", TestAuth},
		{"Sites", TestSites},
		{"Themes", TestThemes},
		{"Errors", TestErrors},
		{"IsolationEveryRoute", TestIsolationEveryRoute},
		{"PageCreate", TestPageCreate},
		{"PageList", TestPageList},
		{"PageDelete", TestPageDelete},
		{"PageFullpathCascade", TestPageFullpathCascade},
		{"PageDocument", TestPageDocument},
		{"PageETag", TestPageETag},
		{"PageLocales", TestPageLocales},
		{"PageCompactAndFields", TestPageCompactAndFields},
		{"PageWriteKeys", TestPageWriteKeys},
		{"PagePutMerge", TestPagePutMerge},
		{"PageConditionalWrites", TestPageConditionalWrites},
		{"PageWriteLock", TestPageWriteLock},
		{"PageConcurrentPuts", TestPageConcurrentPuts},
		{"PagePublish", TestPagePublish},
		{"BatchSetFieldAndText", TestBatchSetFieldAndText},
		{"BatchAtomic", TestBatchAtomic},
		{"BatchConditional", TestBatchConditional},
		{"BatchLockTimeout", TestBatchLockTimeout},
		{"DraftLifecycle", TestDraftLifecycle},
		{"DraftLockTimeout", TestDraftLockTimeout},
		{"EntriesChannelsCRUD", TestEntriesChannelsCRUD},
		{"EntriesChannelsEntryBasics", TestEntriesChannelsEntryBasics},
		{"EntryListPaging", TestEntryListPaging},
		{"EntryFieldsFile", TestEntryFieldsFile},
		{"EntryFieldsRoundTrip", TestEntryFieldsRoundTrip},
		{"EntriesConcurrentMerges", TestEntriesConcurrentMerges},
		{"EntriesConcurrentUnique", TestEntriesConcurrentUnique},
		{"Customers", TestCustomers},
		{"CustomersConcurrentCreate", TestCustomersConcurrentCreate},
		// Ten failed logins spread over three processes use up the limit.
		{"CustomerLoginRateLimit", TestCustomerLoginRateLimit},
		{"EntriesConcurrentReferenceAndDelete", TestEntriesConcurrentReferenceAndDelete},
		// An app's new callback, stored through one process, runs on the
		// next write through any other.
		{"CallbacksFollowTheirApps", TestCallbacksFollowTheirApps},
		{"ThemeTools", TestThemeTools},
		// A browser session made on one process is used on the others.
		{"EditorSession", TestEditorSession},
		{"EditorPageTree", TestEditorPageTree},
	} {
		// Each scenario has a deployment of its own (processes, schema,
		// Redis prefix, S3 bucket), and they mostly wait on each other:
		// they run at once within go test's -parallel.
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t)
		})
	}
}

// inCluster reports whether t runs under TestCluster, where eachBackend
// gives it a deployment instead of a server per store.
func inCluster(t *testing.T) bool { return strings.HasPrefix(t.Name(), "TestCluster/") }

// clusterEnv starts a deployment for t and returns an Env on it. It skips t
// (or fails it, with TESSERA_REQUIRE_POSTGRES=1 or TESSERA_REQUIRE_REDIS=1)
// when PostgreSQL or Redis is unreachable.
func clusterEnv(t *testing.T) *apitest.Env {
	t.Helper()
	dsn := storetest.PostgresDSN(t)
	prefix := redistest.Prefix()
	redistest.Client(t, prefix)
	// The lock timeout is the one apitest.New gives its server.
	c := cluster.Start(t, cluster.Config{DatabaseURL: dsn, RedisURL: redistest.URL(), RedisPrefix: prefix,
		Args: []string{"--lock-timeout", "2s"}})
	return apitest.Attach(t, apitest.Remote{URL: c.URL, DatabaseURL: dsn, RedisURL: redistest.URL(), RedisPrefix: prefix,
		BlobURL: c.BlobURL})
}
