package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/apps"
	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/cluster"
	"github.com/tessera-cms/tessera/internal/lock"
	"github.com/tessera-cms/tessera/internal/redistest"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestScaleOut runs three `tessera serve` on one PostgreSQL schema, Redis
// and S3 bucket behind a round-robin proxy and checks what scaling out must
// keep: conditional writes from every process to one page lose no update,
// and when one process is killed (SIGKILL) under load the others keep
// serving, every acknowledged write is found, and the page lock the dead
// process held frees itself within its lease. It logs its figures, and
// writes them to $TESSERA_ARTIFACTS/scale-out.txt when that is set (CI
// prints them).
//
// It skips when PostgreSQL or Redis is unreachable (fails with
// TESSERA_REQUIRE_POSTGRES=1 or TESSERA_REQUIRE_REDIS=1).
func TestScaleOut(t *testing.T) {
	dsn := storetest.PostgresDSN(t)
	prefix := redistest.Prefix()
	rdb := redistest.Client(t, prefix)
	c := cluster.Start(t, cluster.Config{DatabaseURL: dsn, RedisURL: redistest.URL(), RedisPrefix: prefix})
	env := apitest.Attach(t, apitest.Remote{URL: c.URL, DatabaseURL: dsn, RedisURL: redistest.URL(), RedisPrefix: prefix,
		BlobURL: c.BlobURL})
	h := &harness{t: t, c: c, token: env.Tokens["site"], client: &http.Client{Timeout: 60 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64}}, lease: lock.DefaultTTL}
	if d, err := time.ParseDuration(os.Getenv("TESSERA_LOCK_LEASE")); err == nil {
		h.lease = d
	}
	var out strings.Builder
	report := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		t.Log(line)
		out.WriteString(line + "\n")
	}
	report("scale-out: %d tessera serve processes, PostgreSQL, Redis, an S3 bucket (in-process fake), a round-robin proxy", len(c.Procs))

	t.Run("IfMatchNoLostUpdate", func(t *testing.T) { h.ifMatch(t, report) })
	t.Run("Revocation", func(t *testing.T) { h.revocation(t, env, dsn, report) })
	if t.Failed() {
		return
	}
	t.Run("KillMidLoad", func(t *testing.T) { h.killMidLoad(t, env, rdb, prefix+"lock:page:"+env.Site.ID+":", report) })

	var per []string
	for i, p := range c.Procs {
		state := "alive"
		if p.Killed() {
			state = "killed"
		}
		per = append(per, fmt.Sprintf("process %d (%s): %d", i, state, p.Served.Load()))
	}
	report("requests served through the proxy: %d (%s)", c.Served(), strings.Join(per, ", "))
	if dir := os.Getenv("TESSERA_ARTIFACTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "scale-out.txt"), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type harness struct {
	t      *testing.T
	c      *cluster.Cluster
	token  string
	client *http.Client
	// lease is the processes' lock lease: the default, or
	// TESSERA_LOCK_LEASE, which they read too (to compare leases).
	lease time.Duration
}

// do sends one API request to base (the proxy, or one process) with the
// site token and returns the status, the ETag and the body.
func (h *harness) do(base, method, path string, body any, header map[string]string) (int, string, []byte, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, "", nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+"/api"+path, r)
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := h.client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("ETag"), raw, err
}

// createPage creates a page on the "page" template through the proxy and
// returns its id.
func (h *harness) createPage(t *testing.T, slug string) string {
	t.Helper()
	status, _, raw, err := h.do(h.c.URL, "POST", "/pages", map[string]any{"title": "0", "slug": slug, "template": "page"}, nil)
	if err != nil || status != 201 {
		t.Fatalf("create page %s: %d %v %s", slug, status, err, raw)
	}
	var doc struct{ ID string }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.ID
}

// ifMatch has writers on every process increment a counter in one page's
// title with read, then PUT with If-Match. Each 200 must be an increment
// nobody else made (no two writers acknowledged for the same value), and
// the final title must be the number of 200s: a lost update would leave it
// short.
func (h *harness) ifMatch(t *testing.T, report func(string, ...any)) {
	id := h.createPage(t, "counter")
	const writers, each = 9, 6
	var mu sync.Mutex
	acked := map[int]int{} // value -> times acknowledged
	var attempts, conflicts412, conflicts409 atomic.Int64
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for done, tries := 0, 0; done < each; tries++ {
				if tries > 2000 {
					t.Errorf("writer %d: %d increments after %d tries", w, done, tries)
					return
				}
				status, etag, raw, err := h.do(h.c.URL, "GET", "/pages/"+id, nil, nil)
				if err != nil || status != 200 {
					t.Errorf("read: %d %v %.200s", status, err, raw)
					return
				}
				var doc struct{ Title string }
				_ = json.Unmarshal(raw, &doc)
				n, err := strconv.Atoi(doc.Title)
				if err != nil {
					t.Errorf("title %q is not a number", doc.Title)
					return
				}
				attempts.Add(1)
				status, _, raw, err = h.do(h.c.URL, "PUT", "/pages/"+id, map[string]any{"title": strconv.Itoa(n + 1)},
					map[string]string{"If-Match": etag})
				switch {
				case err != nil:
					t.Errorf("conditional PUT: %v", err)
					return
				case status == 200:
					mu.Lock()
					acked[n+1]++
					mu.Unlock()
					done++
				case status == 412 && bytes.Contains(raw, []byte(`"precondition_failed"`)):
					conflicts412.Add(1)
				case status == 409 && bytes.Contains(raw, []byte(`"concurrent_modification"`)):
					conflicts409.Add(1)
				default:
					t.Errorf("conditional PUT: got %d %.200s, want 200, 412 precondition_failed or 409 concurrent_modification", status, raw)
					return
				}
			}
		})
	}
	wg.Wait()
	total, duplicates := 0, 0
	for _, times := range acked {
		total += times
		duplicates += times - 1
	}
	// Read it back on every process, each of which may have it cached.
	final := -1
	for i, p := range h.c.Procs {
		status, _, raw, err := h.do("http://"+p.Addr, "GET", "/pages/"+id, nil, nil)
		var doc struct{ Title string }
		_ = json.Unmarshal(raw, &doc)
		n, _ := strconv.Atoi(doc.Title)
		if err != nil || status != 200 || n != total {
			t.Errorf("process %d reads the counter as %q (%d %v), want %d: every acknowledged increment", i, doc.Title, status, err, total)
		}
		final = n
	}
	lost := total - final
	if lost < 0 {
		lost = 0
	}
	lost += duplicates
	report("If-Match writes to one page from %d writers across the processes: %d attempts, %d acknowledged (200), %d refused 412, %d refused 409, counter %d, lost updates %d",
		writers, attempts.Load(), total, conflicts412.Load(), conflicts409.Load(), final, lost)
	if lost != 0 {
		t.Errorf("lost updates: %d, want 0", lost)
	}
}

// revocation revokes two tokens that every process has cached: one through
// services that share the processes' Redis (as a revoke through the API of
// any process is), which must stop working on the next request everywhere,
// and one with `tessera token revoke`, a process of its own that announces
// nothing, which must stop working everywhere within the caches' bound.
func (h *harness) revocation(t *testing.T, env *apitest.Env, dsn string, report func(string, ...any)) {
	ctx := context.Background()
	var announced, silent string
	ids := map[string]string{}
	for _, email := range []string{"announced@example.com", "silent@example.com"} {
		tok, err := env.Auth.CreateToken(ctx, auth.TokenRequest{SiteID: env.Site.ID, Email: email, Role: store.RoleEditor})
		if err != nil {
			t.Fatal(err)
		}
		ids[email] = tok
	}
	announced, silent = ids["announced@example.com"], ids["silent@example.com"]
	infos, err := env.Auth.ListTokens(ctx, env.Site.ID)
	if err != nil {
		t.Fatal(err)
	}
	tokenID := map[string]string{}
	for _, ti := range infos {
		tokenID[ti.User] = ti.ID
	}
	status := func(p *cluster.Process, secret string) int {
		st, _, raw, err := h.do("http://"+p.Addr, "GET", "/themes", nil,
			map[string]string{"Authorization": "Bearer " + secret, "X-Service-Site": env.Site.ID})
		if err != nil {
			t.Fatalf("GET /themes on %s: %v", p.Addr, err)
		}
		if st != 200 && st != 401 {
			t.Fatalf("GET /themes on %s: %d %.200s", p.Addr, st, raw)
		}
		return st
	}
	for range 2 { // the second round is answered from the caches
		for _, p := range h.c.Procs {
			for _, secret := range []string{announced, silent} {
				if st := status(p, secret); st != 200 {
					t.Fatalf("a live token on %s: %d", p.Addr, st)
				}
			}
		}
	}

	if err := env.Auth.RevokeToken(ctx, env.Site.ID, tokenID["announced@example.com"]); err != nil {
		t.Fatal(err)
	}
	for i, p := range h.c.Procs {
		if st := status(p, announced); st != 401 {
			t.Errorf("process %d, right after an announced revoke: %d, want 401", i, st)
		}
	}

	out, err := exec.Command(cluster.Binary(t), "token", "revoke", tokenID["silent@example.com"], "--site", env.Site.ID,
		"--database", dsn).CombinedOutput()
	if err != nil {
		t.Fatalf("tessera token revoke: %v\n%s", err, out)
	}
	revoked := time.Now()
	var stopped time.Duration
	for pending := slices.Clone(h.c.Procs); len(pending) > 0; time.Sleep(10 * time.Millisecond) {
		pending = slices.DeleteFunc(pending, func(p *cluster.Process) bool { return status(p, silent) == 401 })
		stopped = time.Since(revoked)
		if len(pending) > 0 && stopped > 10*auth.DefaultCacheTTL {
			t.Fatalf("a token revoked with the command line still works on %d processes after %v", len(pending), stopped)
		}
	}
	report("revocation: a token revoked through a process's services stops on the next request of every process; "+
		"one revoked with `tessera token revoke` (announced to nobody) stopped on all %d within %v (bound %v)",
		len(h.c.Procs), stopped.Round(time.Millisecond), auth.DefaultCacheTTL)
}

// slowJob is cloud code with a job that runs for six seconds.
const slowJob = `Service.Cloud.job('slow', () => { const end = Date.now() + 6000; while (Date.now() < end) {} })`

// killMidLoad runs writers and readers through the proxy, and writers of
// one "hot" page straight to process 0, kills process 0 with SIGKILL while
// it holds the hot page's lock and runs a cloud job, and keeps the load on
// for longer than a lease. lockKeyPrefix is the Redis key of the site's
// page locks, less the page id.
func (h *harness) killMidLoad(t *testing.T, env *apitest.Env, rdb *redis.Client, lockKeyPrefix string, report func(string, ...any)) {
	ctx := context.Background()
	for _, step := range []struct {
		path string
		body any
		want int
	}{{"/apps", map[string]any{"name": "Slow"}, 201}, {"/apps/slow/code", map[string]any{"name": "jobs.js", "code": slowJob}, 200}} {
		if status, _, raw, err := h.do(h.c.URL, "POST", step.path, step.body, nil); err != nil || status != step.want {
			t.Fatalf("POST %s: %d %v %s", step.path, status, err, raw)
		}
	}
	job := func(jid string) *store.AppJob {
		var j *store.AppJob
		err := env.Store.View(ctx, func(tx store.Tx) (err error) {
			j, err = tx.AppQueue().GetJob(env.Site.ID, jid)
			return err
		})
		if err != nil {
			t.Fatalf("job %s: %v", jid, err)
		}
		return j
	}
	const pages, writers, readers, hotWriters = 6, 8, 4, 8
	ids := make([]string, pages)
	for i := range ids {
		ids[i] = h.createPage(t, fmt.Sprintf("load-%d", i))
	}
	hot := h.createPage(t, "hot")
	victim := h.c.Procs[0]

	var mu sync.Mutex
	acked := map[string]map[string]bool{} // page id -> titles of acknowledged blocks
	ack := func(page, title string) {
		mu.Lock()
		defer mu.Unlock()
		if acked[page] == nil {
			acked[page] = map[string]bool{}
		}
		acked[page][title] = true
	}
	var killedAt atomic.Int64 // unix nanoseconds once process 0 is dead
	var inFlightLost, afterKillFailures, conflicts, reads atomic.Int64
	var seq atomic.Int64
	// afterKill reports whether a request started at started (unix
	// nanoseconds) after process 0 was dead.
	afterKill := func(started int64) bool {
		k := killedAt.Load()
		return k != 0 && started > k
	}
	// appendBlock appends a block with a unique title to page through base,
	// and reports whether the write was acknowledged.
	appendBlock := func(base, page string, viaProxy bool) bool {
		title := fmt.Sprintf("b%d", seq.Add(1))
		started := time.Now().UnixNano()
		status, _, raw, err := h.do(base, "PUT", "/pages/"+page,
			map[string]any{"items": map[string]any{"Sections": []any{map[string]any{"slug": "text", "items": map[string]any{"Title": title}}}}}, nil)
		switch {
		case err == nil && status == 200:
			ack(page, title)
			return true
		case err == nil && status == 409 && bytes.Contains(raw, []byte(`"concurrent_modification"`)):
			conflicts.Add(1)
		case !viaProxy:
			// Straight to the killed process: the connection dies with it.
		case afterKill(started):
			afterKillFailures.Add(1)
			t.Errorf("write started after the kill: %d %v %.200s", status, err, raw)
		default:
			inFlightLost.Add(1) // in flight on the killed process: not acknowledged
		}
		return false
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	// until runs body(0), body(1), … in a goroutine of wg until stop closes.
	until := func(body func(i int)) {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body(i)
			}
		})
	}
	for w := range writers {
		until(func(i int) { appendBlock(h.c.URL, ids[(w+i)%pages], true) })
	}
	for r := range readers {
		until(func(i int) {
			started := time.Now().UnixNano()
			status, _, raw, err := h.do(h.c.URL, "GET", "/pages/"+ids[(r+i)%pages]+"?compact=1", nil, nil)
			if err == nil && status == 200 {
				reads.Add(1)
			} else if afterKill(started) {
				afterKillFailures.Add(1)
				t.Errorf("read started after the kill: %d %v %.200s", status, err, raw)
			}
		})
	}
	victimStop := make(chan struct{})
	var victimWG sync.WaitGroup
	for range hotWriters {
		victimWG.Go(func() {
			for {
				select {
				case <-victimStop:
					return
				default:
				}
				if !appendBlock("http://"+victim.Addr, hot, false) && victim.Killed() {
					return
				}
			}
		})
	}

	// Let the load run, have process 0 run a job (a process runs the jobs
	// it queues at once; the others look every second), then kill it at a
	// moment it holds the hot page's lock (only it writes that page).
	time.Sleep(2 * time.Second)
	status, _, raw, err := h.do("http://"+victim.Addr, "POST", "/jobs/slow", map[string]any{}, nil)
	if err != nil || status != 202 {
		t.Fatalf("POST /jobs/slow: %d %v %s", status, err, raw)
	}
	var queued struct{ Jid string }
	_ = json.Unmarshal(raw, &queued)
	for deadline := time.Now().Add(10 * time.Second); job(queued.Jid).LeaseUntil.IsZero(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the slow job was not claimed within 10s")
		}
	}
	hotKey := lockKeyPrefix + hot
	var held string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if v, err := rdb.Get(ctx, hotKey).Result(); err == nil {
			held = v
			break
		}
	}
	if held == "" {
		t.Fatal("process 0 never held the hot page's lock in 10s of writes to it")
	}
	if err := victim.Kill(); err != nil {
		t.Fatal(err)
	}
	kill := time.Now()
	killedAt.Store(kill.UnixNano())
	close(victimStop)
	victimWG.Wait()
	// Only process 0 wrote the hot page so far, so a lock on it now is one
	// the dead process left (not necessarily the one seen above: it may
	// have released that and taken the next).
	orphan := rdb.Get(ctx, hotKey).Val()
	orphaned := orphan != ""
	ttl := rdb.PTTL(ctx, hotKey).Val()

	// The hot page is now written through the proxy: the first write waits
	// for the dead process's lease.
	var hotRecovered time.Duration
	for deadline := kill.Add(6 * h.lease); ; {
		if appendBlock(h.c.URL, hot, true) {
			hotRecovered = time.Since(kill)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no write to the hot page succeeded within %v of the kill", 6*h.lease)
		}
	}
	var keyFreed time.Duration
	for deadline := kill.Add(6 * h.lease); ; time.Sleep(5 * time.Millisecond) {
		if v, err := rdb.Get(ctx, hotKey).Result(); errors.Is(err, redis.Nil) || v != orphan {
			keyFreed = time.Since(kill)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead process's lock on the hot page outlived %v", 6*h.lease)
		}
	}
	// Keep the load on for a lease after the recovery.
	time.Sleep(h.lease)
	close(stop)
	wg.Wait()
	served := map[int]int64{}
	for i, p := range h.c.Procs {
		served[i] = p.Served.Load()
	}

	// Every acknowledged write is found, read back through the survivors.
	var ackedN, found, extra int
	for page, titles := range acked {
		status, _, raw, err := h.do(h.c.URL, "GET", "/pages/"+page, nil, nil)
		if err != nil || status != 200 {
			t.Fatalf("read back %s: %d %v", page, status, err)
		}
		var doc struct {
			Items struct {
				Sections struct {
					Repeatables []struct {
						Items struct {
							Title struct{ Content string }
						}
					}
				}
			}
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, r := range doc.Items.Sections.Repeatables {
			have[r.Items.Title.Content] = true
		}
		for title := range titles {
			ackedN++
			if have[title] {
				found++
			} else {
				t.Errorf("page %s: acknowledged block %s is missing", page, title)
			}
		}
		extra += len(have) - len(titles)
	}
	// Every lock the test's writes took is gone once they stop: the dead
	// process's ones by their lease.
	var left []string
	for deadline := time.Now().Add(2 * h.lease); ; time.Sleep(50 * time.Millisecond) {
		left = rdb.Keys(ctx, lockKeyPrefix+"*").Val()
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("locks still held %v after the load stopped: %v", 2*h.lease, left)
	}
	// The job the dead process was running is claimed again once its claim
	// lapses, and runs to the end on a survivor.
	var jobDone time.Duration
	var j *store.AppJob
	for deadline := kill.Add(2*apps.JobLease + time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if j = job(queued.Jid); j.State != store.JobQueued {
			jobDone = time.Since(kill)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job of the killed process is still %s (%d claims) %v after the kill", j.State, j.Attempts, time.Since(kill))
		}
	}
	if j.State != store.JobDone {
		t.Errorf("the job of the killed process: %s (%s), want done", j.State, j.LastError)
	}

	report("kill -9 of process 0 under load (%d writers and %d readers through the proxy, %d writers straight to process 0): "+
		"writes acknowledged %d, writes found %d, lost updates %d; %d more blocks stored whose answers were lost with the process; "+
		"%d requests in flight on it failed, %d requests started after the kill failed; %d reads, %d lock timeouts (409)",
		writers, readers, hotWriters, ackedN, found, ackedN-found, extra, inFlightLost.Load(), afterKillFailures.Load(), reads.Load(), conflicts.Load())
	if orphaned {
		report("lock the killed process held (lease %v, %v left at the kill): freed after %v; first write to its page through the survivors after %v",
			h.lease, ttl.Round(time.Millisecond), keyFreed.Round(time.Millisecond), hotRecovered.Round(time.Millisecond))
	} else {
		report("the killed process released the hot page's lock as it died (no orphan to recover); first write to the page after %v",
			hotRecovered.Round(time.Millisecond))
	}
	report("cloud job running on the killed process (6 s of work, claim lease %v): done by a survivor %v after the kill, %d claims",
		apps.JobLease, jobDone.Round(time.Millisecond), j.Attempts)
	for i, n := range served {
		if i != 0 && n == 0 {
			t.Errorf("process %d served nothing", i)
		}
	}
}
