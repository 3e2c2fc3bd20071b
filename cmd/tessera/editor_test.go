package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestServePrintsEditor: serve prints the editor's URL and, while the
// store has no user, where the first run makes the first admin; with
// --editor-url, that URL.
func TestServePrintsEditor(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"Default", nil, []string{"Editor: http://" + addr + "/admin/\n",
			"First run: no user yet; make the first admin at http://" + addr + "/admin/#/setup (open it on this machine)."}},
		{"EditorURL", []string{"--editor-url", "https://cms.example.com", "--setup-token", "a-long-enough-setup-token"},
			[]string{"Editor: https://cms.example.com/admin/\n", "https://cms.example.com/admin/#/setup (with the setup token of --setup-token)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var out, errOut syncBuffer
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append([]string{"serve", "--addr", addr, "--data", t.TempDir()}, c.args...), &out, &errOut)
			}()
			for i := 0; i < 200 && !strings.Contains(out.String(), "First run"); i++ {
				time.Sleep(25 * time.Millisecond)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("serve: %v\n%s", err, errOut.String())
			}
			for _, want := range c.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
	for _, args := range [][]string{{"--setup-token", "short"}, {"--editor-url", "ftp://x"}} {
		err := run(context.Background(), append([]string{"serve", "--addr", addr, "--data", t.TempDir()}, args...), &syncBuffer{}, &syncBuffer{})
		if err == nil {
			t.Errorf("serve %v: no error", args)
		}
	}
}
