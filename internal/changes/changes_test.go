package changes_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/changes"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// recorder keeps what a Feed delivers.
type recorder struct {
	mu  sync.Mutex
	got []changes.Change
}

func (r *recorder) add(c changes.Change) {
	r.mu.Lock()
	r.got = append(r.got, c)
	r.mu.Unlock()
}

// take returns what was delivered since the last take.
func (r *recorder) take() []changes.Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.got
	r.got = nil
	return got
}

// reads are the methods of each aggregate that write nothing: every other
// method must note what it touches. A method added to a store interface
// fails TestWrapNotesEveryWrite until it is noted (package changes) or
// listed here.
var reads = map[string][]string{
	"Sites":            {"Get", "GetByShortID", "GetByDomain", "Stamp", "List", "ListForUser"},
	"Users":            {"Get", "GetByEmail", "Membership", "Memberships", "ListMembers", "PasswordHash", "Count"},
	"UserTokens":       {},
	"Records":          {"Get", "GetByKey", "List", "Stamp"},
	"SiteEvents":       {"After", "Bounds"},
	"Tokens":           {"GetByHash", "List"},
	"Themes":           {"ListThemes", "ListFiles", "GetFile", "GetFileByID", "Stamp"},
	"Pages":            {"Get", "Stamp", "Homepage", "Children", "ChildCounts", "MaxChildPosition", "Descendants", "List", "Seek", "Count", "IDByPath", "Holding", "EachDoc"},
	"Drafts":           {"Get"},
	"Versions":         {"Get", "Chain", "Latest", "List"},
	"Uploads":          {"Get", "List", "Find", "Expired"},
	"Channels":         {"Get", "GetBySlug", "List"},
	"Entries":          {"Get", "Stamp", "ChannelStamp", "GetMany", "List", "Seek", "Count", "ReferencedBy", "Holding", "EachDoc", "Hold"},
	"Customers":        {"NextNumber", "GetBySlug", "Get", "GetByEmail", "List", "EachDoc"},
	"CustomerSessions": {"Get"},
	"CustomerTokens":   {},
	"CustomerFields":   {"Get"},
	"Apps":             {"Get", "List", "Files", "GetFile", "Logs", "LoggedApps", "LogCut"},
	// Claim notes the jobs it claimed: claiming none changes nothing.
	"AppQueue": {"GetJob", "Backlog", "DueSchedules", "Due", "Claim"},
	// Claim notes the webhooks it claimed: claiming none changes nothing.
	"Webhooks": {"Get", "List", "Active", "Claim", "Deliveries", "Delivery"},
	"OAuth":    {"Installation", "InstallationOf", "Installations", "RefreshByAccess"},
}

// TestWrapNotesEveryWrite calls every method of every aggregate of a
// wrapped store's transaction (with zero arguments, on a real store; what
// the store makes of them does not matter) and checks that each write is
// delivered as a change and each read is not.
func TestWrapNotesEveryWrite(t *testing.T) {
	raw := storetest.Backends(t)[0].Open(t, nil)
	feed := &changes.Feed{}
	var rec recorder
	feed.Subscribe(rec.add)
	st := feed.Wrap(raw)
	txType := reflect.TypeFor[store.Tx]()
	for i := range txType.NumMethod() {
		agg := txType.Method(i)
		if agg.Name == "Context" || agg.Name == "Now" {
			continue
		}
		readList, ok := reads[agg.Name]
		if !ok {
			t.Errorf("%s: an aggregate the test does not know: list its reads", agg.Name)
			continue
		}
		for j := range agg.Type.Out(0).NumMethod() {
			m := agg.Type.Out(0).Method(j)
			err := st.Update(context.Background(), func(tx store.Tx) error {
				a := reflect.ValueOf(tx).MethodByName(agg.Name).Call(nil)[0]
				args := make([]reflect.Value, m.Type.NumIn())
				for k := range args {
					in := m.Type.In(k)
					switch in.Kind() {
					case reflect.Pointer:
						args[k] = reflect.New(in.Elem()) // a record with zero fields
					case reflect.Slice:
						args[k] = reflect.MakeSlice(in, 1, 1)
					default:
						args[k] = reflect.Zero(in)
					}
				}
				func() {
					defer func() { _ = recover() }() // the store's answer to nonsense does not matter
					a.MethodByName(m.Name).Call(args)
				}()
				return nil
			})
			if err != nil {
				t.Fatalf("%s.%s: %v", agg.Name, m.Name, err)
			}
			got := rec.take()
			if slices.Contains(readList, m.Name) {
				if len(got) != 0 {
					t.Errorf("%s.%s is listed as a read but announced %+v", agg.Name, m.Name, got)
				}
			} else if len(got) == 0 || len(got[0].Keys) == 0 {
				t.Errorf("%s.%s: a write that announced nothing", agg.Name, m.Name)
			}
		}
	}
}

// A transaction's changes, one per site, are delivered before Update
// returns, numbered in order; a transaction that failed announces nothing.
func TestFeedDelivers(t *testing.T) {
	ctx := context.Background()
	raw := storetest.Backends(t)[0].Open(t, nil)
	feed := &changes.Feed{}
	var rec recorder
	cancel := feed.Subscribe(rec.add)
	st := feed.Wrap(raw)
	err := st.Update(ctx, func(tx store.Tx) error {
		for _, id := range []string{"p1", "p2", "p1"} {
			_ = tx.Pages().Update(&store.PageRecord{SiteID: "one", ID: id}, time.Time{})
		}
		_ = tx.Entries().Delete("two", "e1")
		_ = tx.Apps().AppendLog(&store.AppLog{SiteID: "one", AppID: "a1"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := rec.take()
	want := []changes.Change{
		{Seq: 1, Site: "one", Keys: []changes.Key{{Kind: changes.Page, ID: "p1"}, {Kind: changes.Page, ID: "p2"}, {Kind: changes.AppLog, ID: "a1"}}},
		{Seq: 2, Site: "two", Keys: []changes.Key{{Kind: changes.Entry, ID: "e1"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("delivered %+v, want %+v", got, want)
	}
	if !got[0].Touches(changes.Page, "p2") || got[0].Touches(changes.Entry, "e1") ||
		got[0].Kinds() != changes.Of(changes.Page, changes.AppLog) {
		t.Errorf("Touches or Kinds of %+v", got[0])
	}

	failed := errors.New("no")
	if err := st.Update(ctx, func(tx store.Tx) error {
		_ = tx.Pages().Update(&store.PageRecord{SiteID: "one", ID: "p1"}, time.Time{})
		return failed
	}); !errors.Is(err, failed) {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("a rolled-back transaction announced %+v", got)
	}
	cancel()
	_ = st.Update(ctx, func(tx store.Tx) error { return tx.Entries().Delete("one", "e2") })
	if got := rec.take(); len(got) != 0 {
		t.Errorf("delivered after cancel: %+v", got)
	}
	if !feed.Current(ctx) {
		t.Error("a Feed of one process is always current")
	}
}

func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for k := changes.Site; k <= changes.AppSchedule; k++ {
		name := k.String()
		if name == "" || name == "unknown" || seen[name] {
			t.Errorf("kind %d: name %q", k, name)
		}
		seen[name] = true
	}
}
