package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/auth"
)

// testServer runs "tessera serve" on data until the test ends and returns
// its API base URL.
func testServer(t *testing.T, data string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "--addr", addr, "--data", data}, io.Discard, io.Discard) }()
	t.Cleanup(func() { cancel(); <-done })
	for i := 0; i < 400; i++ {
		if res, err := http.Get("http://" + addr + "/healthz"); err == nil {
			res.Body.Close()
			return "http://" + addr
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatal("the server did not start")
	return ""
}

func call(base, token, method, path, body string, out any) (int, error) {
	req, _ := http.NewRequest(method, base+"/api"+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Service-Site", "demo")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil {
		_ = json.Unmarshal(b, out)
	}
	return res.StatusCode, nil
}

// TestBackupUnderLoad backs a server up while writers create entries and
// uploads, restores the backup into an empty data directory, and checks
// that the restored server answers every write acknowledged before the
// backup began, file bytes included.
func TestBackupUnderLoad(t *testing.T) {
	data := t.TempDir()
	token := runJSON(t, "demo", "--data", data)["token"].(string)
	base := testServer(t, data)

	type upload struct {
		id   string
		data []byte
	}
	var mu sync.Mutex
	var entries []string
	var uploads []upload
	// started is set before the backup begins: a write acknowledged while
	// it is unset committed before the snapshot and must be restored.
	var started atomic.Bool
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				v := fmt.Sprintf("w%d-%d", w, n)
				if n%2 == 0 {
					var e struct{ ID string }
					if code, err := call(base, token, "POST", "/channels/articles/entries", `{"title":"`+v+`"}`, &e); err == nil && code == 201 && !started.Load() {
						mu.Lock()
						entries = append(entries, e.ID)
						mu.Unlock()
					}
				} else {
					b := []byte(v + " bytes\n")
					var u struct{ ID string }
					body := `{"source":{"__type":"File","filename":"` + v + `.txt","attachment":"` + base64.StdEncoding.EncodeToString(b) + `"}}`
					if code, err := call(base, token, "POST", "/uploads", body, &u); err == nil && code == 201 && !started.Load() {
						mu.Lock()
						uploads = append(uploads, upload{u.ID, b})
						mu.Unlock()
					}
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	started.Store(true)
	dest := t.TempDir() + "/backup"
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"backup", dest, "--data", data}, &out, &errOut); err != nil {
		t.Fatalf("backup: %v %s", err, errOut.String())
	}
	close(stop)
	wg.Wait()

	restored := t.TempDir()
	if err := run(context.Background(), []string{"restore", dest, "--data", restored}, &out, &errOut); err != nil {
		t.Fatalf("restore: %v %s", err, errOut.String())
	}
	if err := run(context.Background(), []string{"restore", dest, "--data", restored}, io.Discard, io.Discard); err == nil {
		t.Error("restore into a data directory that is not empty: got no error")
	}
	base2 := testServer(t, restored)
	if len(entries) == 0 || len(uploads) == 0 {
		t.Fatalf("no writes before the backup (%d entries, %d uploads)", len(entries), len(uploads))
	}
	for _, id := range entries {
		if code, err := call(base2, token, "GET", "/channels/articles/entries/"+id, "", nil); err != nil || code != 200 {
			t.Errorf("restored entry %s: %d %v", id, code, err)
		}
	}
	for _, u := range uploads {
		var got struct{ URL string }
		if code, err := call(base2, token, "GET", "/uploads/"+u.id, "", &got); err != nil || code != 200 {
			t.Errorf("restored upload %s: %d %v", u.id, code, err)
			continue
		}
		_, path, _ := strings.Cut(got.URL, "/files/")
		res, err := http.Get(base2 + "/files/" + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !bytes.Equal(b, u.data) {
			t.Errorf("restored upload %s: bytes %q, want %q", u.id, b, u.data)
		}
	}
	t.Logf("%d entries and %d uploads acknowledged before the backup, all restored", len(entries), len(uploads))
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	for _, arg := range []string{"version", "--version"} {
		out.Reset()
		if err := run(context.Background(), []string{arg}, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "tessera ") {
			t.Errorf("tessera %s: %q, %v", arg, out.String(), err)
		}
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"demo", "--help"}, {"serve", "-h"}, {"site", "create", "--help"},
		{"token", "create", "--help"}, {"theme", "push", "--help"}, {"migrate", "--help"}, {"backup", "--help"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err != nil {
			t.Errorf("tessera %s: %v", strings.Join(args, " "), err)
		}
	}
}

// TestServeDemoBindsFirst: with the port taken, serve --demo fails before
// it makes a demo or prints a token.
func TestServeDemoBindsFirst(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	data := t.TempDir()
	var out bytes.Buffer
	err = run(context.Background(), []string{"serve", "--demo", "--addr", ln.Addr().String(), "--data", data}, &out, io.Discard)
	if err == nil || strings.Contains(out.String(), "token") {
		t.Fatalf("serve on a busy port: err %v, printed %q; want an error and no token", err, out.String())
	}
	// The store has no demo: a later run on a free port makes it.
	v := runJSON(t, "site", "list", "--data", data)
	if sites, _ := v["sites"].([]any); len(sites) != 0 {
		t.Errorf("sites after the failed serve: %v", v)
	}
}

// TestTokenListAndRevoke: tokens can be listed (never their secrets) and
// revoked, per site; a revoked token no longer opens the API.
func TestTokenListAndRevoke(t *testing.T) {
	data := t.TempDir()
	demoToken := runJSON(t, "demo", "--data", data)["token"].(string)
	siteToken := runJSON(t, "token", "create", "--site", "demo", "--site-token", "--label", "ci", "--data", data)["token"].(string)
	runJSON(t, "site", "create", "--name", "Other", "--short-id", "other", "--data", data)
	runJSON(t, "token", "create", "--site", "other", "--site-token", "--data", data)
	list := runJSON(t, "token", "list", "--site", "demo", "--data", data)["tokens"].([]any)
	if len(list) != 2 {
		t.Fatalf("demo's tokens: %v, want its admin's and its site token", list)
	}
	raw, _ := json.Marshal(list)
	if strings.Contains(string(raw), demoToken) || strings.Contains(string(raw), siteToken) {
		t.Fatal("token list shows a secret")
	}
	var siteID string
	for _, x := range list {
		if m := x.(map[string]any); m["kind"] == "site" {
			siteID = m["id"].(string)
		}
	}
	otherList := runJSON(t, "token", "list", "--site", "other", "--data", data)["tokens"].([]any)
	otherID := otherList[0].(map[string]any)["id"].(string)
	if err := run(context.Background(), []string{"token", "revoke", otherID, "--site", "demo", "--data", data}, io.Discard, io.Discard); err == nil {
		t.Error("revoking another site's token through demo: got no error")
	}
	runJSON(t, "token", "revoke", siteID, "--site", "demo", "--data", data)
	base := testServer(t, data)
	if code, _ := call(base, siteToken, "GET", "/pages/count", "", nil); code != 401 {
		t.Errorf("revoked token: got %d, want 401", code)
	}
	if code, _ := call(base, demoToken, "GET", "/pages/count", "", nil); code != 200 {
		t.Errorf("the other token: got %d, want 200", code)
	}
}

func TestMigrateReports(t *testing.T) {
	data := t.TempDir()
	first := runJSON(t, "migrate", "--data", data)
	if applied, _ := first["applied"].([]any); len(applied) < 7 || applied[0] != "0001_init.sql" {
		t.Errorf("first migrate: %v, want every migration applied", first)
	}
	if again := runJSON(t, "migrate", "--data", data); again["applied"] != nil {
		t.Errorf("second migrate: %v, want nothing applied", again)
	}
}

func TestSiteUpdate(t *testing.T) {
	data := t.TempDir()
	runJSON(t, "site", "create", "--name", "Blog", "--short-id", "blog", "--locales", "en", "--data", data)
	v := runJSON(t, "site", "update", "blog", "--domains", "Blog.Example.com,www.blog.example.com", "--locales", "en,nl",
		"--confirm-customers", "--data", data)
	if fmt.Sprint(v["domains"]) != "[blog.example.com www.blog.example.com]" || fmt.Sprint(v["locales"]) != "[en nl]" ||
		v["customer_confirmation"] != true || v["name"] != "Blog" || v["drafts_enabled"] != true {
		t.Errorf("after update: %v", v)
	}
	v = runJSON(t, "site", "update", "blog", "--name", "The Blog", "--data", data)
	if v["name"] != "The Blog" || fmt.Sprint(v["locales"]) != "[en nl]" {
		t.Errorf("an update of the name changed more: %v", v)
	}
	for _, bad := range [][]string{{"--locales", "nl,en"}, {"--timezone", "Mars/Base"}, {"--domains", "not a domain"}, {"--name", " "}} {
		if err := run(context.Background(), append([]string{"site", "update", "blog", "--data", data}, bad...), io.Discard, io.Discard); err == nil {
			t.Errorf("site update %v: got no error", bad)
		}
	}
	runJSON(t, "site", "create", "--name", "Other", "--short-id", "other", "--domains", "other.example.com", "--data", data)
	if err := run(context.Background(), []string{"site", "update", "blog", "--domains", "other.example.com", "--data", data}, io.Discard, io.Discard); err == nil {
		t.Error("taking another site's domain: got no error")
	}
}

func TestSiteDelete(t *testing.T) {
	data := t.TempDir()
	token := runJSON(t, "demo", "--data", data)["token"].(string)
	runJSON(t, "site", "create", "--name", "Other", "--short-id", "other", "--data", data)
	base := testServer(t, data)
	var u struct{ URL string }
	body := `{"source":{"__type":"File","filename":"a.txt","attachment":"` + base64.StdEncoding.EncodeToString([]byte("hi")) + `"}}`
	if code, err := call(base, token, "POST", "/uploads", body, &u); err != nil || code != 201 {
		t.Fatalf("upload: %d %v", code, err)
	}
	if err := run(context.Background(), []string{"site", "delete", "demo", "--data", data}, io.Discard, io.Discard); err == nil {
		t.Fatal("site delete without --yes: got no error")
	}
	v := runJSON(t, "site", "delete", "demo", "--yes", "--data", data)
	if n, _ := v["files"].(float64); n < 1 {
		t.Errorf("site delete: %v, want its files deleted", v)
	}
	// The demo token is its admin's user token: the user stays, the site
	// is gone (403, as for a site that never existed). The command is
	// another process than the server: the server's cache of principals
	// learns of it within its bound (auth.DefaultCacheTTL), not at once.
	deadline := time.Now().Add(auth.DefaultCacheTTL + 2*time.Second)
	for {
		code, _ := call(base, token, "GET", "/pages/count", "", nil)
		if code == 403 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the deleted site through its admin's token: still %d after the cache's bound, want 403", code)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, path, _ := strings.Cut(u.URL, "/files/")
	if res, err := http.Get(base + "/files/" + path); err != nil || res.StatusCode != 404 {
		t.Errorf("the deleted site's file: %v %v", res.StatusCode, err)
	}
	sites := runJSON(t, "site", "list", "--data", data)["sites"].([]any)
	if len(sites) != 1 || sites[0].(map[string]any)["short_id"] != "other" {
		t.Errorf("sites after delete: %v", sites)
	}
}

func TestUserGrantAndList(t *testing.T) {
	data := t.TempDir()
	runJSON(t, "demo", "--data", data)
	runJSON(t, "user", "grant", "Ed@Example.com", "--site", "demo", "--data", data)
	runJSON(t, "user", "create", "ada@example.com", "--site", "demo", "--role", "admin", "--name", "Ada", "--data", data)
	runJSON(t, "user", "grant", "ed@example.com", "--site", "demo", "--role", "admin", "--data", data) // a new role
	users := runJSON(t, "user", "list", "--site", "demo", "--data", data)["users"].([]any)
	roles := map[string]string{}
	for _, u := range users {
		m := u.(map[string]any)
		roles[m["email"].(string)] = m["role"].(string)
	}
	if roles["ed@example.com"] != "admin" || roles["ada@example.com"] != "admin" || len(roles) != 3 {
		t.Errorf("members: %v", roles)
	}
	for _, bad := range [][]string{{"user", "grant", "not-an-email", "--site", "demo"}, {"user", "grant", "x@example.com", "--site", "demo", "--role", "owner"},
		{"user", "grant", "x@example.com", "--site", "nosuch"}} {
		if err := run(context.Background(), append(bad, "--data", data), io.Discard, io.Discard); err == nil {
			t.Errorf("tessera %v: got no error", bad)
		}
	}
}

func TestMigrateStatus(t *testing.T) {
	data := t.TempDir()
	before := runJSON(t, "migrate", "status", "--data", data)
	if n, _ := before["pending"].(float64); n < 7 {
		t.Errorf("status of a new store: %v, want every migration pending", before)
	}
	runJSON(t, "migrate", "--data", data)
	after := runJSON(t, "migrate", "status", "--data", data)
	if n, _ := after["pending"].(float64); n != 0 {
		t.Errorf("status after migrate: %v, want none pending", after)
	}
}

// TestConfigurationDocumented holds the README's configuration table and
// serve's flags together: every flag of serve is a row with its
// environment variable and its default, and every row names a flag serve
// has.
func TestConfigurationDocumented(t *testing.T) {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "TESSERA_") {
			t.Setenv(name, "") // the defaults, not this environment's
			os.Unsetenv(name)
		}
	}
	var usage bytes.Buffer
	flagOutput = &usage
	defer func() { flagOutput = os.Stderr }()
	if err := run(context.Background(), []string{"serve", "--help"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	flags := map[string]string{}    // flag -> its variable, from the usage text
	defaults := map[string]string{} // flag -> its default, where it has one
	var last string
	for _, line := range strings.Split(usage.String(), "\n") {
		// A flag's line: "  --name PLACEHOLDER   what it is [TESSERA_X] (default D)".
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(line, "  --") {
			last = strings.TrimPrefix(f[0], "--")
			flags[last] = ""
		} else {
			last = ""
		}
		if i := strings.LastIndex(line, "[TESSERA_"); i >= 0 && last != "" {
			flags[last] = strings.TrimSuffix(strings.Fields(line[i+1:])[0], "]")
		}
		if i := strings.Index(line, "(default "); i >= 0 && last != "" {
			def := strings.TrimSuffix(line[i+len("(default "):], ")")
			if u, err := strconv.Unquote(def); err == nil {
				def = u
			}
			defaults[last] = def
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	section = section[strings.Index(section, "## Configuration"):]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	rows := map[string]string{}
	rowDefaults := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) > 3 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`--") {
			name := strings.Trim(strings.TrimSpace(cells[1]), "`-")
			rows[name] = strings.Trim(strings.SplitN(strings.TrimSpace(cells[2]), "=", 2)[0], "`")
			rowDefaults[name] = strings.TrimSpace(cells[3])
		}
	}
	if len(flags) < 10 {
		t.Fatalf("read %d flags from serve --help: %q", len(flags), usage.String())
	}
	for name, env := range flags {
		if name == "json" {
			continue // an output flag of every command, not configuration
		}
		if got, ok := rows[name]; !ok {
			t.Errorf("serve flag --%s is not in the README's configuration table", name)
		} else if env != "" && got != env {
			t.Errorf("--%s: README says %s, the flag reads %s", name, got, env)
		}
		if def, ok := defaults[name]; ok && !sameDefault(rowDefaults[name], def) {
			t.Errorf("--%s: README gives the default %s, the flag's is %q", name, rowDefaults[name], def)
		}
	}
	for name := range rows {
		if _, ok := flags[name]; !ok {
			t.Errorf("the README documents --%s, which serve does not have", name)
		}
	}
}

// sameDefault reports whether a README cell ("`5s`") gives the flag's
// default ("5s"; durations compare as durations: "720h" is "720h0m0s").
func sameDefault(cell, def string) bool {
	cell = strings.Trim(cell, "`")
	if cell == def {
		return true
	}
	a, errA := time.ParseDuration(cell)
	b, errB := time.ParseDuration(def)
	return errA == nil && errB == nil && a == b
}
