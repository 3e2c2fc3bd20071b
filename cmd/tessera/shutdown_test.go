package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
)

// TestServeShutdownWaitsForJobs: a cloud-code job still running when the
// server is told to stop finishes, and its outcome is stored, before the
// server closes its store and returns.
func TestServeShutdownWaitsForJobs(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--demo", "--addr", addr, "--data", data}, &out, &errOut) }()

	var token string
	for i := 0; i < 400 && token == ""; i++ {
		for _, line := range strings.Split(out.String(), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "token" {
				token = f[1]
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	if token == "" {
		t.Fatalf("no token printed; stderr:\n%s", errOut.String())
	}
	call := func(path string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		var res *http.Response
		for range 200 { // the listener may open just after the token is printed
			req, _ := http.NewRequest("POST", "http://"+addr+"/api"+path, bytes.NewReader(b))
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("X-Service-Site", "demo")
			req.Header.Set("Content-Type", "application/json")
			if res, err = http.DefaultClient.Do(req); err == nil {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var got map[string]any
		_ = json.NewDecoder(res.Body).Decode(&got)
		if res.StatusCode >= 300 {
			t.Fatalf("POST %s: %d %v", path, res.StatusCode, got)
		}
		return got
	}
	call("/apps", map[string]any{"name": "Slow"})
	// A job that keeps its worker busy for a second and a half: stopping
	// the server does not interrupt an invocation under way.
	call("/apps/slow/code", map[string]any{"name": "main.js",
		"code": "Service.Cloud.job('slow', () => { const t = Date.now(); while (Date.now() - t < 1500) {} })"})
	jid, _ := call("/jobs/slow", map[string]any{})["jid"].(string)

	// A second connection to the database watches the job until it is
	// claimed, and reads its outcome once the server has returned.
	st, err := sqlite.Open(context.Background(), filepath.Join(data, "tessera.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	job := func() *store.AppJob {
		t.Helper()
		var j *store.AppJob
		if err := st.View(context.Background(), func(tx store.Tx) error {
			site, err := tx.Sites().GetByShortID("demo")
			if err != nil {
				return err
			}
			j, err = tx.AppQueue().GetJob(site.ID, jid)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return j
	}
	deadline := time.Now().Add(20 * time.Second)
	for job().LeaseUntil.IsZero() {
		if time.Now().After(deadline) {
			t.Fatal("the job was not claimed within 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v\n%s", err, errOut.String())
		}
	case <-time.After(40 * time.Second):
		t.Fatal("serve did not return within 40s of being stopped")
	}
	if j := job(); j.State != store.JobDone || !j.LeaseUntil.IsZero() {
		t.Errorf("the job running at shutdown: state %q, lease until %v, error %q; want done, its outcome stored before the store closed",
			j.State, j.LeaseUntil, j.LastError)
	}
}
