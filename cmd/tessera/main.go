// Command tessera is the Tessera content API server and its admin tool.
//
// This file only wires things together: configuration from flags and
// TESSERA_* environment variables, the store, the services and the server.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // site time zones must resolve on hosts without a zoneinfo database

	"github.com/spf13/cobra"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/logging"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/sqldb"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
)

// usage is what tessera prints without a command: every command's usage
// line (see commandDocs) and the rules they share.
var usage = func() string {
	var b strings.Builder
	b.WriteString("Tessera: a self-hostable content API server.\n\nUsage:\n")
	for _, d := range commandDocs {
		b.WriteString("  " + d.line + "\n")
	}
	b.WriteString(`  tessera version | --version
  tessera completion bash|zsh|fish|powershell

Every command answers -h with what it does, its arguments and its flags.
Exit codes: 0 done, 1 failed, 2 a wrong command line. Every command takes
the store flags --data and --database. Every flag can also be set with an
environment variable: TESSERA_ADDR, TESSERA_DATA, TESSERA_DATABASE_URL,
TESSERA_LOG_FORMAT, ... (the README's configuration table lists them).
`)
	return b.String()
}()

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tessera:", err)
		os.Exit(exitCode(err))
	}
}

// Exit codes: 0 done (help included), 1 the command failed, 2 the command
// line was wrong (an unknown command or flag, a missing argument).
const (
	exitFailed = 1
	exitUsage  = 2
)

// usageError is a command line that cannot be run as written.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func exitCode(err error) int {
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "usage:") || strings.HasPrefix(err.Error(), "unknown command") {
		return exitUsage
	}
	return exitFailed
}

// run runs a command line; it is main without the process around it.
// Asking a command for its help (-h, --help) is not an error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := commands(ctx, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// commands is the command tree, on github.com/spf13/cobra: it routes
// subcommands, lists them in help, answers --version and generates shell
// completion (tessera completion bash|zsh|fish|powershell). Each command
// keeps its own flag set, with the environment variable defaults every
// flag has, and prints its help on -h.
func commands(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use: "tessera", Short: "A self-hostable content API server", Long: usage,
		Version: versionString(), SilenceUsage: true, SilenceErrors: true,
		// Without a command, tessera prints its usage.
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q\n\n%s", args[0], usage)
			}
			fmt.Fprint(stdout, usage)
			return nil
		},
		Args: cobra.ArbitraryArgs,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	cobra.AddTemplateFunc("join", strings.Join)
	cobra.AddTemplateFunc("flagLines", flagLines)
	root.SetHelpTemplate(groupHelp)
	// A leaf parses its own flags, and its -h prints its commandDoc.
	leaf := func(path string, fn func([]string) error, aliases ...string) *cobra.Command {
		words := strings.Fields(path)
		return &cobra.Command{Use: words[len(words)-1], Short: docOf(path).summary, Aliases: aliases, DisableFlagParsing: true, Args: cobra.ArbitraryArgs,
			RunE: func(_ *cobra.Command, args []string) error { return fn(args) }}
	}
	group := func(use, short string, subs ...*cobra.Command) *cobra.Command {
		g := &cobra.Command{Use: use, Short: short, Args: cobra.ArbitraryArgs,
			RunE: func(c *cobra.Command, args []string) error {
				if len(args) > 0 {
					return usagef("unknown command %q for %q", args[0], c.CommandPath())
				}
				return c.Help()
			}}
		g.AddCommand(subs...)
		return g
	}
	out := func(fn func(context.Context, []string, io.Writer) error) func([]string) error {
		return func(args []string) error { return fn(ctx, args, stdout) }
	}
	migrate := leaf("migrate", out(cmdMigrate))
	migrate.AddCommand(leaf("migrate status", out(cmdMigrateStatus)))
	root.AddCommand(
		leaf("serve", func(args []string) error { return cmdServe(ctx, args, stdout, stderr) }),
		leaf("demo", out(cmdDemo)),
		group("site", "Create, list, change and delete sites",
			leaf("site create", out(cmdSiteCreate)),
			leaf("site list", out(cmdSiteList)),
			leaf("site update", out(cmdSiteUpdate)),
			leaf("site delete", out(cmdSiteDelete))),
		group("token", "Create, list and revoke API tokens",
			leaf("token create", out(cmdTokenCreate)),
			leaf("token list", out(cmdTokenList)),
			leaf("token revoke", out(cmdTokenRevoke))),
		group("app", "List, make and revoke apps' installations on sites",
			leaf("app installations", out(cmdAppInstallations)),
			leaf("app install", out(cmdAppInstall)),
			leaf("app revoke", out(cmdAppRevoke))),
		group("user", "Give users roles on sites and passwords",
			leaf("user grant", out(cmdUserGrant), "create"),
			leaf("user list", out(cmdUserList)),
			leaf("user passwd", out(cmdUserPasswd))),
		group("theme", "Push and pull themes",
			leaf("theme push", out(cmdThemePush)),
			leaf("theme pull", out(cmdThemePull))),
		migrate,
		leaf("backup", func(args []string) error { return cmdBackup(ctx, args, stdout, stderr) }),
		leaf("restore", out(cmdRestore)),
		&cobra.Command{Use: "version", Short: "Print the version and the commit", Args: noArgs,
			RunE: func(*cobra.Command, []string) error { return cmdVersion(stdout) }},
	)
	// A wrong flag or argument of a command cobra parses is a wrong
	// command line (exit 2), like one of a command's own flag set.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = noArgs
			c.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
		}
	}
	return root
}

// noArgs refuses positional arguments as a wrong command line.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unknown command %q for %q", args[0], c.CommandPath())
	}
	return nil
}

// env returns the environment variable's value, or def when it is unset.
func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// envDuration returns the environment variable as a duration, or def when
// it is unset or not a duration.
func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

// envInt returns the environment variable as an integer, or def when it
// is unset or not an integer.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// config holds the flags every command shares.
type config struct {
	data     string
	database string
	json     bool
}

// flagOutput is where flag errors and --help go.
var flagOutput io.Writer = os.Stderr

func newFlags(name string, c *config) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(flagOutput)
	doc := docOf(name)
	fs.Usage = func() { printHelp(fs.Output(), fs, doc) }
	fs.StringVar(&c.data, "data", env("TESSERA_DATA", "./tessera-data"), "data directory (SQLite database and files) [TESSERA_DATA]")
	fs.StringVar(&c.database, "database", env("TESSERA_DATABASE_URL", ""), "PostgreSQL URL (postgres://...); empty uses SQLite in the data directory [TESSERA_DATABASE_URL]")
	fs.BoolVar(&c.json, "json", false, "print the result as one JSON object")
	return fs
}

// parse parses flags, allowing positional arguments before and after them.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// openUnmigrated opens the store without applying migrations.
func (c *config) openUnmigrated(ctx context.Context) (interface {
	Status(context.Context) ([]sqldb.MigrationStatus, error)
	Close() error
}, error) {
	if c.database != "" {
		return postgres.OpenUnmigrated(ctx, c.database, cms.SystemClock{})
	}
	return sqlite.OpenUnmigrated(ctx, filepath.Join(c.data, "tessera.db"), cms.SystemClock{})
}

// openStore opens the configured store, applying pending migrations.
func (c *config) openStore(ctx context.Context) (store.Store, error) {
	if c.database != "" {
		if !strings.HasPrefix(c.database, "postgres://") && !strings.HasPrefix(c.database, "postgresql://") {
			return nil, fmt.Errorf("--database must be a postgres:// URL (SQLite is used when it is empty)")
		}
		return postgres.Open(ctx, c.database, cms.SystemClock{})
	}
	return sqlite.Open(ctx, filepath.Join(c.data, "tessera.db"), cms.SystemClock{})
}

// printResult prints v as JSON with --json, else as text.
func printResult(w io.Writer, asJSON bool, v any, text string) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	_, err := fmt.Fprint(w, text)
	return err
}

// newLogger returns the structured logger, text or JSON per
// TESSERA_LOG_FORMAT, in slog's formats (internal/logging writes them
// faster for the request log).
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "", "text":
		return slog.New(logging.NewText(w, nil)), nil
	case "json":
		return slog.New(logging.NewJSON(w, nil)), nil
	}
	return nil, errors.New("--log-format must be text or json")
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
