package docs

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadme follows the README's quick start literally, from a clone
// with nothing else: its first block (go run … serve --demo) runs as the
// first shell, the token it prints goes where the README says <token>,
// and the remaining blocks run in order in a second bash. Then the store
// must hold what they did: the page read, edited in a batch, its draft
// published, and an entry with a file. The server listens on a free port
// instead of 8080 and keeps its data in a temporary directory.
func TestReadme(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, tool := range []string{"bash", "curl", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	quickStart(t, filepath.Join(t.TempDir(), "tessera-data"))
}

// quickStart follows the README's quick start with its data in data, as
// TestReadme says, and stops the server as Ctrl-C would.
func quickStart(t *testing.T, data string) {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	i := strings.Index(section, "\n## Quick start\n")
	if i < 0 {
		t.Fatal(`the README has no "## Quick start"`)
	}
	section = section[i+1:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	var blocks []string
	for _, m := range shBlock.FindAllStringSubmatch(section, -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) < 2 || strings.TrimSpace(blocks[0]) != "go run ./cmd/tessera serve --demo" {
		t.Fatalf("the quick start does not start with the server and go on in a second shell: %q", blocks)
	}
	if !strings.Contains(strings.Join(blocks[1:], ""), "<token>") {
		t.Fatal("the quick start's second shell does not take the token")
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TESSERA_DATA="+data, "TESSERA_ADDR="+addr)

	// The first shell: the server, in a process group of its own so that
	// go run's child goes too.
	server := exec.Command("bash", "-c", blocks[0])
	server.Dir, server.Env = root, env
	server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var serverErr bytes.Buffer
	server.Stderr = &serverErr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = syscall.Kill(-server.Process.Pid, syscall.SIGINT)
			_ = server.Wait()
		}
	}
	defer stop()
	tokens := make(chan string, 1)
	var printed bytes.Buffer
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			printed.WriteString(sc.Text() + "\n")
			if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "token" {
				tokens <- f[1]
			}
		}
		close(tokens)
		_, _ = io.Copy(io.Discard, out)
	}()
	var token string
	select {
	case token = <-tokens:
	case <-time.After(5 * time.Minute):
	}
	if token == "" {
		t.Fatalf("the server printed no token:\n%s\n%s", printed.String(), serverErr.String())
	}

	// The second shell: every other block, in order, as written.
	script := strings.ReplaceAll(strings.Join(blocks[1:], ""), "<token>", token)
	script = strings.ReplaceAll(script, "127.0.0.1:8080", addr)
	var shell bytes.Buffer
	cmd := exec.Command("bash", "-c", "set -eu -o pipefail -x\n"+script)
	cmd.Dir, cmd.Env = t.TempDir(), env
	cmd.Stdout, cmd.Stderr = &shell, &shell
	if err := cmd.Run(); err != nil {
		t.Fatalf("the quick start failed: %v\n%s\nserver:\n%s", err, shell.String(), serverErr.String())
	}
	if !strings.Contains(shell.String(), `{"default_locale":"en","locales":["en","nl"]}`) {
		t.Errorf("the settings are not what the README shows:\n%s", shell.String())
	}

	get := func(path string) string {
		req, _ := http.NewRequest("GET", "http://"+addr+"/api"+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-Service-Site", "demo")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, b)
		}
		return string(b)
	}
	page := get("/pages/about")
	for _, want := range []string{`"title":"About us"`, "Edited in a batch."} {
		if !strings.Contains(page, want) {
			t.Errorf("the page after the quick start has no %s: %.500s", want, page)
		}
	}
	if v := get("/pages/about/versions"); !strings.Contains(v, `"source_action":"draft_publish"`) {
		t.Errorf("the draft was not published: %.500s", v)
	}
	if !strings.Contains(shell.String(), "<h1>About us</h1>") {
		t.Errorf("the website does not show the published title:\n%s", shell.String())
	}
	if e := get("/channels/products/entries"); !strings.Contains(e, `"filename":"lamp.png"`) {
		t.Errorf("the entry has no file: %.500s", e)
	}
	stop()
}
