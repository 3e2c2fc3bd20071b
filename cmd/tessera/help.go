package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// commandDoc is what a command's help says: its usage line, as the
// README's "Command line" block has it (a test keeps the two the same),
// what it does, and each positional argument of the line.
type commandDoc struct {
	path    string // the command's words after "tessera"
	line    string
	summary string
	args    [][2]string // name in the line, what it is
}

const siteArg = "the site's id or short id"

// commandDocs lists every command that parses its own flags, in the
// README's order; the usage printed without a command lists them all.
var commandDocs = []commandDoc{
	{"serve", "tessera serve [--addr 127.0.0.1:8080] [--data ./tessera-data] [--database URL] [--redis URL] [--smtp URL --mail-from ADDR] [--demo] [--log-format text|json]",
		"Serve the API, the editor and the public sites", nil},
	{"demo", "tessera demo  [--data DIR] [--short-id demo] [--json]", "Create the demo site and print its token", nil},
	{"site create", "tessera site create --name N [--short-id S] [--locales en,nl] [--timezone Europe/Brussels] [--drafts=false] [--confirm-customers] [--domains a.com] [--json]",
		"Create a site, with a starter theme and a home page", nil},
	{"site list", "tessera site list [--json]", "List the sites", nil},
	{"site update", "tessera site update SITE [--name N] [--locales en,nl,fr] [--timezone Z] [--domains a.com] [--drafts=B] [--confirm-customers=B]",
		"Change a site's name, locales, time zone, domains and switches", [][2]string{{"SITE", siteArg}}},
	{"site delete", "tessera site delete SITE --yes", "Delete a site and everything in it", [][2]string{{"SITE", siteArg}}},
	{"token create", "tessera token create --site S [--user EMAIL [--role admin|editor] | --site-token] [--json]",
		"Create a token (shown once: only its hash is stored)", nil},
	{"token list", "tessera token list --site S [--json]", "List the tokens that reach a site", nil},
	{"token revoke", "tessera token revoke ID --site S", "Revoke a token", [][2]string{{"ID", "the token's id, as token list shows it"}}},
	{"app installations", "tessera app installations --site S [--json]", "List the apps installed on a site and their scopes", nil},
	{"app install", "tessera app install KEY --site S [--scope SCOPES] [--json]",
		"Install an app on its site without the consent screen, with its install_scopes or fewer", [][2]string{{"KEY", "the app's key"}}},
	{"app revoke", "tessera app revoke ID|KEY --site S [--json]", "Revoke an app's installation; the tokens it issued end",
		[][2]string{{"ID|KEY", "the installation's id, or its app's key"}}},
	{"user grant", "tessera user grant|create EMAIL --site S [--role admin|editor] [--name N] [--password-stdin | --password] [--json]",
		"Create a user if new and give them a role on a site", [][2]string{{"EMAIL", "the user's email address"}}},
	{"user list", "tessera user list --site S [--json]", "List a site's users", nil},
	{"user passwd", "tessera user passwd EMAIL [--password-stdin] [--json]",
		"Give a user a new password; their earlier sign-ins end", [][2]string{{"EMAIL", "the user's email address"}}},
	{"theme push", "tessera theme push DIR --site S [--theme NAME] [--force] [--json]",
		"Push a theme folder to a site and make it the active theme",
		[][2]string{{"DIR", "the theme's folder: layouts/, templates/, snippets/, assets/ (docs/themes.md)"}}},
	{"theme pull", "tessera theme pull DIR --site S [--theme NAME] [--json]",
		"Write a site's theme into a folder, in the layout push reads", [][2]string{{"DIR", "the folder to write the theme into"}}},
	{"migrate", "tessera migrate [--json]", "Apply pending migrations and report them", nil},
	{"migrate status", "tessera migrate status [--json]", "List the migrations, applied and pending, without applying any", nil},
	{"backup", "tessera backup DEST [--data DIR]", "Copy a running SQLite store and its files",
		[][2]string{{"DEST", "the directory the backup is written to"}}},
	{"restore", "tessera restore SRC --data DIR", "Restore a backup into an empty data directory",
		[][2]string{{"SRC", "a directory tessera backup wrote"}}},
}

// docOf returns the doc of the command at path.
func docOf(path string) commandDoc {
	for _, d := range commandDocs {
		if d.path == path {
			return d
		}
	}
	panic("cmd/tessera: no commandDoc for " + path)
}

// printHelp prints a command's help: its usage line, what it does, its
// arguments and every flag of fs, each with what it means.
func printHelp(w io.Writer, fs *flag.FlagSet, d commandDoc) {
	fmt.Fprintf(w, "Usage:\n  %s\n\n%s.\n", d.line, d.summary)
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	if len(d.args) > 0 {
		fmt.Fprintln(tw, "\nArguments:")
		for _, a := range d.args {
			fmt.Fprintf(tw, "  %s\t%s\n", a[0], a[1])
		}
	}
	fmt.Fprintln(tw, "\nFlags:")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	for _, name := range names {
		f := fs.Lookup(name)
		meaning := f.Usage
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "0s" {
			meaning += " (default " + def + ")"
		}
		fmt.Fprintf(tw, "  --%s\t%s\n", strings.TrimSpace(name+" "+placeholder(d.line, f)), meaning)
	}
	fmt.Fprintln(tw, "  -h, --help\tthis help")
	tw.Flush()
}

// placeholder names a flag's value as the usage line does (--name N), or
// by its kind when the line leaves the flag out; a switch has none.
func placeholder(line string, f *flag.Flag) string {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return ""
	}
	words := strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(line))
	for i, w := range words {
		if w == "--"+f.Name && i+1 < len(words) && !strings.HasPrefix(words[i+1], "--") && words[i+1] != "|" {
			return words[i+1]
		}
	}
	switch f.Name {
	case "data":
		return "DIR"
	case "database":
		return "URL"
	}
	switch name, _ := flag.UnquoteUsage(f); name {
	case "int", "uint", "int64", "uint64", "float":
		return "N"
	case "duration":
		return "DURATION"
	}
	return "VALUE"
}

// groupHelp is the help of the commands cobra parses (the groups, version
// and completion), in the style of printHelp; the root prints usage.
const groupHelp = `{{if not .HasParent}}{{.Long}}{{else}}Usage:
  {{.CommandPath}}{{if .HasAvailableSubCommands}} COMMAND{{end}}{{if .Aliases}} (also: {{join .Aliases ", "}}){{end}}

{{.Short}}.
{{if .HasAvailableSubCommands}}
Commands:
{{range .Commands}}{{if .IsAvailableCommand}}  {{rpad .Name .NamePadding}}   {{.Short}}
{{end}}{{end}}{{end}}
Flags:
{{flagLines .}}{{if .HasAvailableSubCommands}}
Each command answers -h with what it does, its arguments and its flags.
{{end}}{{end}}`

// flagLines lists the flags of a command cobra parses as printHelp lists
// a flag set's.
func flagLines(c *cobra.Command) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 3, ' ', 0)
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			fmt.Fprintf(tw, "  --%s\t%s\n", f.Name, f.Usage)
		}
	})
	fmt.Fprintln(tw, "  -h, --help\tthis help")
	tw.Flush()
	return b.String()
}
