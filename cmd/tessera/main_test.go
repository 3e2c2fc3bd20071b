package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/services"
)

// runJSON runs a command line with --json and decodes its output.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), append(args, "--json"), &out, &errOut); err != nil {
		t.Fatalf("tessera %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("tessera %s: output is not one JSON object: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return v
}

func TestAdminCommands(t *testing.T) {
	data := t.TempDir()

	t.Run("Demo", func(t *testing.T) {
		v := runJSON(t, "demo", "--data", data)
		for _, k := range []string{"base_url", "site_id", "short_id", "token"} {
			if s, _ := v[k].(string); s == "" {
				t.Errorf("demo --json: got %v, want a non-empty %q", v, k)
			}
		}
		if v["short_id"] != "demo" || v["base_url"] != "http://127.0.0.1:8080/api" {
			t.Errorf("demo --json: got %v", v)
		}
		// The printed admin password signs in to the editor.
		c := config{data: data}
		st, err := c.openStore(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		svc := services.New(st, services.Options{})
		password, _ := v["admin_password"].(string)
		if _, err := svc.Auth.SignIn(t.Context(), auth.SignInRequest{Email: v["admin_email"].(string), Password: password}); err != nil {
			t.Errorf("demo admin %v with the printed password: %v", v["admin_email"], err)
		}
	})
	t.Run("DemoTwiceConflicts", func(t *testing.T) {
		err := run(context.Background(), []string{"demo", "--data", data}, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "conflict") {
			t.Errorf("second demo: got %v, want a conflict error", err)
		}
	})
	t.Run("SiteCreate", func(t *testing.T) {
		v := runJSON(t, "site", "create", "--data", data, "--name", "My Blog!", "--locales", "en,fr", "--timezone", "Europe/Paris")
		if v["short_id"] != "my-blog" || v["default_locale"] != "en" {
			t.Errorf("site create: got %v, want short_id my-blog, default_locale en", v)
		}
	})
	t.Run("SiteCreateBadLocale", func(t *testing.T) {
		err := run(context.Background(), []string{"site", "create", "--data", data, "--name", "X", "--locales", "english"}, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "english") {
			t.Errorf("got %v, want an error naming the bad locale", err)
		}
	})
	t.Run("SiteList", func(t *testing.T) {
		v := runJSON(t, "site", "list", "--data", data)
		if list, _ := v["sites"].([]any); len(list) != 2 {
			t.Errorf("site list: got %v, want 2 sites", v)
		}
	})
	t.Run("TokenCreate", func(t *testing.T) {
		v := runJSON(t, "token", "create", "--data", data, "--site", "my-blog", "--user", "Ann@Example.com", "--role", "editor")
		if tok, _ := v["token"].(string); !strings.HasPrefix(tok, "tsr_") {
			t.Errorf("token create: got %v", v)
		}
		v = runJSON(t, "token", "create", "--data", data, "--site", "my-blog", "--site-token")
		if tok, _ := v["token"].(string); tok == "" {
			t.Errorf("token create --site-token: got %v", v)
		}
	})
	t.Run("TokenCreateKeepsRole", func(t *testing.T) {
		// Ann is an editor of my-blog (above): a token for her without
		// --role keeps her an editor, and says so.
		v := runJSON(t, "token", "create", "--data", data, "--site", "my-blog", "--user", "ann@example.com")
		if v["role"] != "editor" || v["role_kept"] != true {
			t.Errorf("token create without --role for an editor: got %v, want role editor, kept", v)
		}
		var out bytes.Buffer
		if err := run(context.Background(), []string{"token", "create", "--data", data, "--site", "my-blog", "--user", "ann@example.com"}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "stays editor of my-blog") {
			t.Errorf("token create output: got %q, want it to say the role is kept", out.String())
		}
		v = runJSON(t, "user", "list", "--data", data, "--site", "my-blog")
		for _, u := range v["users"].([]any) {
			if m := u.(map[string]any); m["email"] == "ann@example.com" && m["role"] != "editor" {
				t.Errorf("after token create without --role: ann is %v, want editor", m["role"])
			}
		}
		// A new member without --role is an admin, as before; --role changes a member's role.
		if v := runJSON(t, "token", "create", "--data", data, "--site", "my-blog", "--user", "new@example.com"); v["role"] != "admin" || v["role_kept"] != false {
			t.Errorf("token create for a new member: got %v, want admin, not kept", v)
		}
		if v := runJSON(t, "token", "create", "--data", data, "--site", "my-blog", "--user", "ann@example.com", "--role", "admin"); v["role"] != "admin" || v["role_kept"] != false {
			t.Errorf("token create --role admin: got %v", v)
		}
	})
	t.Run("TokenCreateNeedsOneKind", func(t *testing.T) {
		err := run(context.Background(), []string{"token", "create", "--data", data, "--site", "my-blog", "--user", "a@b.c", "--site-token"}, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil {
			t.Errorf("token for a user and the site at once: got no error")
		}
	})
	t.Run("ThemePush", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "starter")
		writeFile(t, filepath.Join(dir, "templates", "page.liquid"), "{% editable_field 'Title' %}{% endeditable_field %}")
		writeFile(t, filepath.Join(dir, "assets", "app.css"), "body{}")
		v := runJSON(t, "theme", "push", dir, "--data", data, "--site", "my-blog")
		if v["theme"] != "starter" || v["files"] != float64(2) {
			t.Errorf("theme push: got %v", v)
		}
	})
	t.Run("ThemePushBrokenStoresNothing", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "starter")
		writeFile(t, filepath.Join(dir, "templates", "page.liquid"), "{% editable_field 'Title' %}{% endeditable_field %}")
		writeFile(t, filepath.Join(dir, "templates", "broken.liquid"), "line one\n{% editable_canvas 'Body' %}")
		err := run(context.Background(), []string{"theme", "push", dir, "--data", data, "--site", "my-blog", "--theme", "other"}, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "templates/broken") {
			t.Fatalf("push of a broken theme: got %v, want an error naming templates/broken", err)
		}
	})
	t.Run("Migrate", func(t *testing.T) {
		if v := runJSON(t, "migrate", "--data", data); v["migrated"] != true {
			t.Errorf("migrate: got %v", v)
		}
	})
	t.Run("UnknownCommand", func(t *testing.T) {
		if err := run(context.Background(), []string{"frobnicate"}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
			t.Errorf("unknown command: got no error")
		}
	})
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer safe to read while the server writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServe starts the server with --demo on an empty data directory, uses
// the printed token, and stops it as SIGTERM would.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--addr", addr, "--data", t.TempDir()}, &out, &errOut)
	}()

	var token string
	for i := 0; i < 200 && token == ""; i++ {
		for _, line := range strings.Split(out.String(), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "token" {
				token = f[1]
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	if token == "" {
		cancel()
		t.Fatalf("no token printed; stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	var res *http.Response
	for i := 0; i < 200; i++ { // the listener may open just after the token is printed
		req, _ := http.NewRequest("GET", "http://"+addr+"/api/sites/demo/settings", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if res, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var settings map[string]any
	_ = json.NewDecoder(res.Body).Decode(&settings)
	res.Body.Close()
	if res.StatusCode != 200 || settings["default_locale"] != "en" {
		t.Errorf("settings: got %d %v, want 200 with default_locale en", res.StatusCode, settings)
	}
	// The demo pages are a tree in two locales.
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/pages?fields=fullpath,parent_path", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Service-Site", "demo")
	if res, err = http.DefaultClient.Do(req); err != nil {
		cancel()
		t.Fatal(err)
	}
	var list []map[string]any
	_ = json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	var paths []string
	for _, p := range list {
		paths = append(paths, fmt.Sprint(p["fullpath"]))
	}
	if got, want := strings.Join(paths, " "), "/home /about /about/team /blog /members /contact /press /vip"; got != want {
		t.Errorf("demo pages in tree order: got %q, want %q", got, want)
	}
	// The demo articles, newest first (the channel's order), referenced
	// from the home page.
	req, _ = http.NewRequest("GET", "http://"+addr+"/api/channels/articles/entries", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Service-Site", "demo")
	if res, err = http.DefaultClient.Do(req); err != nil {
		cancel()
		t.Fatal(err)
	}
	var articles []map[string]any
	_ = json.NewDecoder(res.Body).Decode(&articles)
	res.Body.Close()
	if len(articles) != 4 || articles[0]["slug"] != "a-contact-form-in-twenty-lines" ||
		articles[3]["translations"].(map[string]any)["nl"].(map[string]any)["title"] != "Hallo, Tessera" {
		t.Errorf("demo articles: got %v, want 4, newest first, with Dutch titles", articles)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after shutdown: got %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
}
