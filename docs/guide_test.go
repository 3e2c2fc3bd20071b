// Package docs holds the project's documentation; its test follows the
// getting-started guide literally.
package docs

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// TestGettingStarted does what a reader new to Tessera does: the README's
// quick start (as TestReadme), then, in the same data directory, every
// shell block of getting-started.md, in order, in one bash, from the
// repository's root: a block that fails (every check in it is a command)
// fails the test. So the guide must work on the store the quick start
// left (the demo made, its token shown once and gone, its about page and
// a Products channel changed). The server listens on a free port instead
// of 8080 and keeps its data in a temporary directory; the root is a
// stand-in (see cloneDir), so what the guide builds and writes there
// stays out of the repository.
func TestGettingStarted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, tool := range []string{"bash", "curl", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	guide, err := os.ReadFile("getting-started.md")
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	for _, m := range shBlock.FindAllSubmatch(guide, -1) {
		script.Write(m[1])
	}
	if script.Len() == 0 {
		t.Fatal("the guide has no shell blocks")
	}
	data := filepath.Join(t.TempDir(), "tessera-data")
	quickStart(t, data)
	if t.Failed() {
		t.FailNow()
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	body := strings.ReplaceAll(script.String(), "127.0.0.1:8080", addr)

	root, err := cloneDir(t)
	if err != nil {
		t.Fatal(err)
	}
	// Not pipefail: "curl … | grep -q" stops reading at the first match,
	// and curl's broken pipe is no failure of the guide (a failing curl
	// still fails the grep, which gets no output).
	cmd := exec.Command("bash", "-c", "set -eu -x\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"+body)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "TESSERA_DATA="+data, "TESSERA_ADDR="+addr)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		log, _ := os.ReadFile(filepath.Join(root, "tessera.log"))
		t.Fatalf("the guide failed: %v\n%s\nserver log:\n%s", err, out.String(), log)
	}
}

// cloneDir returns a temporary directory that looks like the repository's
// root to the guide: a symbolic link to each of the root's entries, but
// none of the files the guide makes (the binary, its log, what it pulls
// and saves), which land in the temporary directory instead.
func cloneDir(t *testing.T) (string, error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	dir := t.TempDir()
	for _, e := range entries {
		switch e.Name() {
		case "tessera", "tessera.log", "tessera-data", "entry.json", "demo-theme":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return "", err
		}
	}
	return dir, nil
}
