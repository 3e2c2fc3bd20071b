package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveFor runs serve with args on a free port until the test ends, and
// returns its address and what it printed once it answers /healthz.
func serveFor(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"serve", "--addr", addr}, args...), out, errOut) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v\n%s", err, errOut.String())
		}
	})
	for i := 0; i < 400; i++ {
		if res, err := http.Get("http://" + addr + "/healthz"); err == nil {
			res.Body.Close()
			return addr, out
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v\n%s", err, errOut.String())
		case <-time.After(25 * time.Millisecond):
		}
	}
	t.Fatalf("serve does not answer:\n%s\n%s", out.String(), errOut.String())
	return "", nil
}

// getPage fetches path from the server at addr as host, with an optional
// token.
func getPage(t *testing.T, addr, host, path, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
	req.Host = host
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestSiteCreateRenders: a site made with "site create" shows its home
// page at once, through its starter theme.
func TestSiteCreateRenders(t *testing.T) {
	data := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"site", "create", "--name", "Bakery <Ann>", "--short-id", "bakery", "--data", data}, &out, &out); err != nil {
		t.Fatalf("site create: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "tessera theme push DIR --site bakery") {
		t.Errorf("site create does not say how to replace the theme:\n%s", out.String())
	}
	addr, _ := serveFor(t, "--data", data)
	code, body := getPage(t, addr, "bakery.localhost", "/", "")
	if code != 200 {
		t.Fatalf("home page: %d\n%s", code, body)
	}
	for _, want := range []string{"<!doctype html>", "<title>Home · Bakery &lt;Ann&gt;</title>", "<h1>Home</h1>",
		"<p>Welcome to Bakery &lt;Ann&gt;."} {
		if !strings.Contains(body, want) {
			t.Errorf("home page lacks %q:\n%s", want, body)
		}
	}
}

// TestServeDemoAgain: serve --demo on a store that has the demo already
// makes nothing, and prints a command that gets a working token.
func TestServeDemoAgain(t *testing.T) {
	data := t.TempDir()
	runJSON(t, "demo", "--data", data)
	addr, out := serveFor(t, "--demo", "--data", data)
	var line string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "  tessera token create ") {
			line = strings.TrimSpace(l)
		}
	}
	if line == "" || !strings.Contains(out.String(), "http://"+addr+"/admin/") || !strings.Contains(out.String(), "tessera user passwd admin@example.com") {
		t.Fatalf("serve --demo on a store with the demo does not say how to get a token and sign in:\n%s", out.String())
	}
	args := append(strings.Fields(line)[1:], "--data", data)
	token, _ := runJSON(t, args...)["token"].(string)
	if token == "" {
		t.Fatalf("%s: no token", line)
	}
	if code, body := getPage(t, addr, "", "/api/sites/demo/settings", token); code != 200 {
		t.Errorf("the printed command's token: %d %s", code, body)
	}
}
