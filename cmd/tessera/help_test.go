package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpEveryCommand walks the whole command tree: every command and
// subcommand answers -h and --help with its help, and exits 0.
func TestHelpEveryCommand(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.Name() == "help" {
				continue
			}
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(commands(context.Background(), io.Discard, io.Discard), nil)
	if len(paths) < 20 {
		t.Fatalf("found %d commands: %v", len(paths), paths)
	}
	for _, path := range paths {
		for _, h := range []string{"--help", "-h"} {
			var out, flagOut bytes.Buffer
			flagOutput = &flagOut
			err := run(context.Background(), append(append([]string(nil), path...), h), &out, &out)
			flagOutput = os.Stderr
			help := out.String() + flagOut.String()
			if err != nil {
				t.Errorf("tessera %s %s: exit %d (%v); want exit 0", strings.Join(path, " "), h, exitCode(err), err)
			} else if !strings.Contains(strings.ToLower(help), "usage") {
				t.Errorf("tessera %s %s: output %.200q; want its usage", strings.Join(path, " "), h, help)
			}
		}
	}
}

// TestExitCodes: 0 done, 1 the command failed, 2 the command line was
// wrong, whichever command parses it.
func TestExitCodes(t *testing.T) {
	data := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"version"}, 0},
		{[]string{"completion"}, 0},
		{[]string{"completion", "fish"}, 0},
		{[]string{"migrate", "status", "--data", data}, 0},
		{[]string{"--nope"}, 2},
		{[]string{"nosuch"}, 2},
		{[]string{"version", "extra"}, 2},
		{[]string{"completion", "nosuch"}, 2},
		{[]string{"migrate", "status", "--nope"}, 2},
		{[]string{"serve", "--render-max-output", "0", "--data", data}, 2},
		{[]string{"serve", "--render-timeout", "0s", "--data", data}, 2},
		{[]string{"serve", "--template-max-depth", "20000", "--data", data}, 2},
		{[]string{"backup"}, 2},
		{[]string{"restore"}, 2},
		{[]string{"token", "revoke"}, 2},
		{[]string{"site", "delete"}, 2},
		{[]string{"user", "grant"}, 2},
		{[]string{"token", "frob"}, 2},
		{[]string{"token", "list", "--data", data}, 2},
		{[]string{"token", "create", "--data", data}, 2},
		{[]string{"restore", filepath.Join(data, "nosuch"), "--data", t.TempDir()}, 1},
		{[]string{"token", "revoke", "nosuch", "--site", "nosuch", "--data", data}, 1},
	} {
		var out bytes.Buffer
		flagOutput = &out
		err := run(context.Background(), tc.args, &out, &out)
		flagOutput = os.Stderr
		code := 0
		if err != nil {
			code = exitCode(err)
		}
		if code != tc.code {
			t.Errorf("tessera %s: exit %d (%v); want %d", strings.Join(tc.args, " "), code, err, tc.code)
		}
	}
}
