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

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/postgres"
	"github.com/tessera-cms/tessera/internal/store/sqldb"
	"github.com/tessera-cms/tessera/internal/store/sqlite"
)

const usage = `Tessera: a self-hostable content API server.

Usage:
  tessera serve [--addr 127.0.0.1:8080] [--data ./tessera-data] [--database URL] [--demo]
  tessera demo  [--data DIR] [--short-id demo] [--json]
  tessera site create --name N [--short-id S] [--locales en,nl] [--timezone Europe/Brussels] [--drafts=false] [--domains a.com,b.com] [--json]
  tessera site list [--json]
  tessera site update SITE [--name N] [--locales en,nl,fr] [--timezone Z] [--domains a.com] [--drafts=B] [--confirm-customers=B]
  tessera site delete SITE --yes
  tessera token create --site S [--user EMAIL [--role admin|editor] | --site-token] [--json]
  tessera token list --site S [--json]
  tessera token revoke ID --site S
  tessera user grant|create EMAIL --site S [--role admin|editor] [--name N] [--json]
  tessera user list --site S [--json]
  tessera theme push DIR --site S [--theme NAME] [--json]
  tessera migrate [--json]
  tessera migrate status [--json]     the migrations, applied and pending, without applying any
  tessera backup DEST [--data DIR]     a consistent copy of a running SQLite store and its files
  tessera restore SRC --data DIR       a backup into an empty data directory
  tessera version

Every command takes the store flags --data and --database. Every flag can
also be set with an environment variable: TESSERA_ADDR, TESSERA_DATA,
TESSERA_DATABASE_URL, TESSERA_LOG_FORMAT, ...
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tessera:", err)
		os.Exit(1)
	}
}

// run dispatches a command line; it is main without the process around it.
// Asking a command for its help (-h, --help) is not an error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	cmd, rest := args[0], args[1:]
	if len(rest) > 0 && (cmd == "site" || cmd == "token" || cmd == "theme" || cmd == "user" || cmd == "migrate" && rest[0] == "status") {
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	switch cmd {
	case "serve":
		return cmdServe(ctx, rest, stdout, stderr)
	case "demo":
		return cmdDemo(ctx, rest, stdout)
	case "site create":
		return cmdSiteCreate(ctx, rest, stdout)
	case "site list":
		return cmdSiteList(ctx, rest, stdout)
	case "site update":
		return cmdSiteUpdate(ctx, rest, stdout)
	case "site delete":
		return cmdSiteDelete(ctx, rest, stdout)
	case "token create":
		return cmdTokenCreate(ctx, rest, stdout)
	case "token list":
		return cmdTokenList(ctx, rest, stdout)
	case "token revoke":
		return cmdTokenRevoke(ctx, rest, stdout)
	case "user grant", "user create":
		return cmdUserGrant(ctx, rest, stdout)
	case "user list":
		return cmdUserList(ctx, rest, stdout)
	case "theme push":
		return cmdThemePush(ctx, rest, stdout)
	case "migrate":
		return cmdMigrate(ctx, rest, stdout)
	case "migrate status":
		return cmdMigrateStatus(ctx, rest, stdout)
	case "backup":
		return cmdBackup(ctx, rest, stdout)
	case "restore":
		return cmdRestore(ctx, rest, stdout)
	case "version", "--version":
		return cmdVersion(stdout)
	}
	return fmt.Errorf("unknown command %q\n\n%s", strings.Join(args[:min(2, len(args))], " "), usage)
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
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// openStore opens the configured store, applying pending migrations.
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

// newLogger returns the structured logger, text or JSON per TESSERA_LOG_FORMAT.
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
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
