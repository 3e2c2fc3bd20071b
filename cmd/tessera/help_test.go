package main

import (
	"bytes"
	"context"
	"flag"
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

// TestHelpDocumentsEverything: every command's -h is in one style, its
// usage line the README's, and describes every positional argument of the
// line and every flag the command takes.
func TestHelpDocumentsEverything(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range commandDocs {
		if !strings.Contains(string(readme), "\n"+d.line+"\n") {
			t.Errorf("the README's command line block lacks %q", d.line)
		}
		var out bytes.Buffer
		flagOutput = &out
		err := run(context.Background(), append(strings.Fields(d.path), "-h"), &out, &out)
		flagOutput = os.Stderr
		if err != nil {
			t.Errorf("tessera %s -h: %v", d.path, err)
			continue
		}
		for _, p := range helpProblems(out.String(), d) {
			t.Errorf("tessera %s -h: %s\n%s", d.path, p, out.String())
		}
	}
	// Every command that parses its own flags has a doc (docOf panics
	// otherwise), and so a usage line in the README.
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.DisableFlagParsing {
			docOf(strings.TrimPrefix(c.CommandPath(), "tessera "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(commands(context.Background(), io.Discard, io.Discard))
}

// TestHelpProblems: the check above catches a flag or an argument left
// undescribed, and a usage line naming a flag the command lacks.
func TestHelpProblems(t *testing.T) {
	d := commandDoc{path: "x", line: "tessera x SITE DIR --site S [--json]", summary: "Do x",
		args: [][2]string{{"SITE", "a site"}, {"DIR", ""}}}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("site", "", "a site")
	fs.Bool("quiet", false, "")
	var out bytes.Buffer
	printHelp(&out, fs, d)
	got := strings.Join(helpProblems(out.String(), d), "\n")
	for _, want := range []string{`argument DIR`, `flag --quiet`, `flag --json`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %s:\n%s\nhelp:\n%s", want, got, out.String())
		}
	}
	if strings.Contains(got, "SITE") || strings.Contains(got, "--site ") {
		t.Errorf("a described argument or flag is a problem:\n%s", got)
	}
}

// helpProblems lists what a command's help leaves out: the usage line
// first, then a description for each positional argument of the line and
// for each flag, and every flag the line names.
func helpProblems(help string, d commandDoc) []string {
	var problems []string
	if !strings.HasPrefix(help, "Usage:\n  "+d.line+"\n\n"+d.summary+".\n") {
		problems = append(problems, "does not start with its usage line and summary")
	}
	section := func(name string) map[string]string {
		out := map[string]string{}
		i := strings.Index(help, "\n"+name+":\n")
		if i < 0 {
			return out
		}
		for _, l := range strings.Split(help[i+len(name)+3:], "\n") {
			if !strings.HasPrefix(l, "  ") {
				break
			}
			f := strings.Fields(l)
			rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), f[0]))
			// A flag's placeholder is one word after its name; the
			// description is what follows the column gap.
			if j := strings.Index(rest, "   "); j >= 0 && strings.HasPrefix(f[0], "--") {
				rest = strings.TrimSpace(rest[j:])
			} else if strings.HasPrefix(f[0], "--") && len(f) == 2 && !strings.Contains(l, f[0]+"   ") {
				rest = ""
			}
			out[strings.TrimSuffix(f[0], ",")] = rest
		}
		return out
	}
	args, flags := section("Arguments"), section("Flags")
	words := strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(d.line))
	for i, w := range words[1+len(strings.Fields(d.path)):] {
		prev := words[i+len(strings.Fields(d.path))]
		switch {
		case strings.HasPrefix(w, "--"):
			name, _, _ := strings.Cut(strings.TrimPrefix(w, "--"), "=")
			if _, ok := flags["--"+name]; !ok {
				problems = append(problems, "the usage line names flag --"+name+", which it does not list")
			}
		case strings.HasPrefix(prev, "--") && !strings.Contains(prev, "="):
			// the value of the flag before it
		case w == strings.ToUpper(w) && strings.Trim(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "":
			if args[w] == "" {
				problems = append(problems, "argument "+w+" is not described")
			}
		}
	}
	for name, desc := range flags {
		if desc == "" {
			problems = append(problems, "flag "+name+" is not described")
		}
	}
	return problems
}
