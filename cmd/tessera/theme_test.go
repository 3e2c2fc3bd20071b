package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/pages"
)

// readTree returns every file under dir by its slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, want, got map[string]string) {
	t.Helper()
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("pull lacks %s", p)
		} else if g != w {
			t.Errorf("%s: pulled %d bytes differ from the %d pushed", p, len(g), len(w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("pull wrote %s, which was not pushed", p)
		}
	}
}

// TestThemePushPull: tessera theme push then tessera theme pull gives the
// theme back byte for byte: the demo theme, and a theme in the folder
// layout theme tools keep (template subfolders, assets in images/, fonts/,
// javascripts/ and stylesheets/, binary images); a push makes the theme
// the folder, removing what it no longer holds, except templates that
// pages use (unless --force).
func TestThemePushPull(t *testing.T) {
	data := t.TempDir()
	runJSON(t, "site", "create", "--data", data, "--name", "Shop", "--short-id", "shop")

	t.Run("demo", func(t *testing.T) {
		src := filepath.Join("..", "..", "internal", "demo", "theme")
		runJSON(t, "theme", "push", src, "--site", "shop", "--theme", "demo", "--data", data)
		out := filepath.Join(t.TempDir(), "pulled")
		runJSON(t, "theme", "pull", out, "--site", "shop", "--data", data)
		// The folder's own notes beside the theme (LICENSES.md: where its
		// images come from) are no theme file: a push leaves them behind.
		want := readTree(t, src)
		delete(want, "LICENSES.md")
		sameTree(t, want, readTree(t, out))
	})

	t.Run("tool layout", func(t *testing.T) {
		src := t.TempDir()
		png := string([]byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89})
		woff := "wOF2" + string([]byte{0, 1, 0, 0, 0xff, 0xfe})
		files := map[string]string{
			"layouts/default.liquid":           "<html><body>{{ content_for_layout }}</body></html>",
			"templates/page.liquid":            "<h1>{{ page.title }}</h1>{% editable_text 'Body' %}{% endeditable_text %}",
			"templates/customers/login.liquid": "{% customer_login_form %}",
			"snippets/footer.liquid":           "<footer>Shop</footer>",
			"images/logo.png":                  png,
			"fonts/body.woff2":                 woff,
			"javascripts/site.js":              "console.log('hi')\n",
			"stylesheets/site.css":             "body { margin: 0 }\n",
			"assets/favicon.svg":               `<svg xmlns="http://www.w3.org/2000/svg"/>`,
		}
		for p, code := range files {
			full := filepath.Join(src, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		v := runJSON(t, "theme", "push", src, "--site", "shop", "--theme", "tools", "--data", data)
		if v["files"] != float64(len(files)) {
			t.Errorf("pushed %v files, want %d", v["files"], len(files))
		}
		out := t.TempDir()
		runJSON(t, "theme", "pull", out, "--site", "shop", "--theme", "tools", "--data", data)
		sameTree(t, files, readTree(t, out))

		// The theme is the folder: a push removes what the folder no longer
		// holds, but not a template that pages use, unless --force.
		svc, site, done, err := openSite(context.Background(), config{data: data}, "shop")
		if err != nil {
			t.Fatal(err)
		}
		page, err := svc.Pages.Create(context.Background(), site, []byte(`{"title": "About", "template": "page.liquid"}`), pages.WriteOptions{})
		done()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(src, "templates", "page.liquid")); err != nil {
			t.Fatal(err)
		}
		delete(files, "templates/page.liquid")
		err = run(context.Background(), []string{"theme", "push", src, "--site", "shop", "--theme", "tools", "--data", data}, &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "template_in_use") || !strings.Contains(err.Error(), page.ID) {
			t.Fatalf("a push removing a used template: %v, want template_in_use naming page %s", err, page.ID)
		}
		err = run(context.Background(), []string{"theme", "push", filepath.Join("..", "..", "internal", "demo", "theme"), "--site", "shop", "--theme", "bare", "--data", data},
			&bytes.Buffer{}, &bytes.Buffer{})
		if err != nil {
			t.Errorf("activating a theme that has the page's template: %v", err)
		}
		v = runJSON(t, "theme", "push", src, "--site", "shop", "--theme", "tools", "--data", data, "--force")
		removed, _ := v["removed"].([]any)
		if len(removed) != 1 || removed[0] != "templates/page" || dig(v, "orphaned", 0, "pages_count") != float64(2) { // About and site create's home page
			t.Errorf("forced push: %v", v)
		}
		out = t.TempDir()
		runJSON(t, "theme", "pull", out, "--site", "shop", "--theme", "tools", "--data", data)
		sameTree(t, files, readTree(t, out))
	})
}

// dig follows keys and indexes into decoded JSON.
func dig(v any, steps ...any) any {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[s]
		case int:
			l, _ := v.([]any)
			if s >= len(l) {
				return nil
			}
			v = l[s]
		}
	}
	return v
}

func TestProgress(t *testing.T) {
	var quiet bytes.Buffer
	p := newProgress(&quiet) // not a terminal
	p.update("Copying files: %d", 1)
	p.done()
	if quiet.Len() != 0 {
		t.Errorf("progress on a non-terminal wrote %q", quiet.String())
	}
	var term bytes.Buffer
	p = &progress{w: &term, tty: true}
	p.update("Copying files: %d (%s)", 3, mib(3<<20))
	p.update("Copying files: %d", 4) // within 100 ms: skipped
	p.done()
	if got, want := term.String(), "\r\033[KCopying files: 3 (3.0 MiB)\r\033[K"; got != want {
		t.Errorf("progress wrote %q, want %q", got, want)
	}
}

// TestCommandLine: help, version and completion answer 0; a wrong command
// line answers 2; a failing command 1.
func TestCommandLine(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--version"}, 0, "tessera "},
		{[]string{"version"}, 0, "(commit "},
		{[]string{"completion", "bash"}, 0, "bash completion"},
		{[]string{"completion", "zsh"}, 0, "compdef"},
		{[]string{"site"}, 0, "\nCommands:\n"},
		{[]string{"theme", "--help"}, 0, "pull"},
		{[]string{"theme", "pull", "--help"}, 0, ""},
		{[]string{"frob"}, 2, ""},
		{[]string{"site", "frob"}, 2, ""},
		{[]string{"site", "create", "--nope"}, 2, ""},
		{[]string{"theme", "pull"}, 2, ""},
		{[]string{"site", "update", "nosuch", "--name", "x", "--data", t.TempDir()}, 1, ""},
	} {
		var out bytes.Buffer
		err := run(ctx, tc.args, &out, &out)
		code := 0
		if err != nil {
			code = exitCode(err)
		}
		if code != tc.code || !strings.Contains(out.String(), tc.out) {
			t.Errorf("%v: exit %d (%v), output %.100q; want exit %d with %q", tc.args, code, err, out.String(), tc.code, tc.out)
		}
	}
}

// TestThemePushDepth: theme push refuses a template that nests deeper than
// --template-max-depth (100 by default) before anything parses it, naming
// the file and line. The finding nested {%if 1%} 900,000 deep, 15 MB with
// its end tags, more than a theme folder's file may be (8 MiB): the
// deepest that fits is refused the same way.
func TestThemePushDepth(t *testing.T) {
	data := t.TempDir()
	runJSON(t, "site", "create", "--data", data, "--name", "Shop", "--short-id", "shop")
	nested := func(n int) string { return strings.Repeat("{%if 1%}", n) + strings.Repeat("{%endif%}", n) }
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	push := func(code string, flags ...string) error {
		if err := os.WriteFile(filepath.Join(src, "templates", "page.liquid"), []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"theme", "push", src, "--site", "shop", "--data", data}, flags...)
		return run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{})
	}
	for _, tc := range []struct {
		name  string
		code  string
		flags []string
		want  string // in the error; "" for none
	}{
		{"as deep as a file may be", "<p>\n" + nested(490_000), nil, "templates/page:2: {% if %} nests blocks more than 100 levels deep"},
		{"at the default", nested(100), nil, ""},
		{"the flag", "\n\n" + nested(4), []string{"--template-max-depth", "3"}, "templates/page:3: {% if %} nests blocks more than 3 levels deep"},
	} {
		err := push(tc.code, tc.flags...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := push(nested(1), "--template-max-depth", "0"); exitCode(err) != exitUsage {
		t.Errorf("--template-max-depth 0: got %v (exit %d), want a usage error", err, exitCode(err))
	}
}
