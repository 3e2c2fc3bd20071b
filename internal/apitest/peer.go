package apitest

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/redistest"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/store"
)

// ShareRedis makes the Env's services share their changes through the
// test Redis under prefix, as `tessera serve --redis --redis-prefix prefix`
// does, and waits until they have subscribed. It skips tb when Redis is
// unreachable (fails it with TESSERA_REQUIRE_REDIS=1).
func (env *Env) ShareRedis(tb testing.TB, prefix string) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	env.svc.ShareRedis(ctx, redistest.Client(tb, prefix), prefix, func(err error) { tb.Errorf("announce a write: %v", err) })
	env.WaitCurrent(tb)
}

// WaitCurrent waits until the Env's services have applied every change
// announced so far (package changes): until then their caches read the
// store, as they must while an announcement is on its way.
func (env *Env) WaitCurrent(tb testing.TB) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !env.Changes.Current(context.Background()) {
		if time.Now().After(deadline) {
			tb.Fatal("the services did not catch up with the announced changes within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// Peer starts a second server on st, a store over the same database as
// env's, as another process of the deployment would be: services and
// caches of its own, the same file bytes, sites and tokens. Share both
// through Redis (ShareRedis) for the one to hear of the other's writes.
// The two do not share a write lock: a test must not write through both
// at once.
func (env *Env) Peer(tb testing.TB, st store.Store) *Env {
	tb.Helper()
	svc := services.New(st, services.Options{Locker: &lock.Local{Timeout: 2 * time.Second}, Blobs: env.Files,
		HashCost: bcrypt.MinCost, Mailer: env.Mail})
	peer := &Env{Store: st, Clock: env.Clock, Tokens: env.Tokens, Mail: env.Mail, Site: env.Site, OtherSite: env.OtherSite}
	peer.use(svc, env.Files)
	peer.Server.URLs = env.Server.URLs
	peer.Handler = peer.Server.Handler()
	hs := httptest.NewServer(peer.Handler)
	tb.Cleanup(hs.Close)
	peer.URL = hs.URL
	return peer
}
