package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/services"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/themes"
)

// withStdin runs fn with text as standard input.
func withStdin(t *testing.T, text string, fn func()) {
	t.Helper()
	prev := stdin
	stdin = strings.NewReader(text)
	defer func() { stdin = prev }()
	fn()
}

// signIn signs in on the store of data.
func signIn(t *testing.T, data, email, password string) error {
	t.Helper()
	st, err := (&config{data: data}).openStore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = services.New(st, services.Options{}).Auth.SignIn(context.Background(),
		auth.SignInRequest{Email: email, Password: password, Client: "test"})
	return err
}

func TestUserPasswords(t *testing.T) {
	data := t.TempDir()
	runJSON(t, "demo", "--data", data)
	withStdin(t, "correct horse\n", func() {
		v := runJSON(t, "user", "create", "ann@example.com", "--site", "demo", "--password-stdin", "--data", data)
		if v["password"] != true || v["email"] != "ann@example.com" {
			t.Errorf("user create --password-stdin: got %v", v)
		}
	})
	if err := signIn(t, data, "ann@example.com", "correct horse"); err != nil {
		t.Errorf("sign in with the password given: %v", err)
	}
	withStdin(t, "battery staple\r\n", func() {
		runJSON(t, "user", "passwd", "Ann@example.com", "--password-stdin", "--data", data)
	})
	if err := signIn(t, data, "ann@example.com", "correct horse"); err == nil {
		t.Errorf("sign in with the old password: got no error")
	}
	if err := signIn(t, data, "ann@example.com", "battery staple"); err != nil {
		t.Errorf("sign in with the new password: %v", err)
	}
	// Without a password flag a grant leaves the password alone.
	runJSON(t, "user", "grant", "ann@example.com", "--site", "demo", "--role", "admin", "--data", data)
	if err := signIn(t, data, "ann@example.com", "battery staple"); err != nil {
		t.Errorf("sign in after a grant: %v", err)
	}
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"user", "passwd", "ann@example.com", "--password-stdin"}, "short\n", "at least 8"},
		{[]string{"user", "passwd", "ann@example.com", "--password-stdin"}, "", "no password"},
		{[]string{"user", "passwd", "nobody@example.com", "--password-stdin"}, "long enough\n", "No user"},
		{[]string{"user", "create", "bob@example.com", "--site", "demo", "--password-stdin", "--password"}, "long enough\n", "not both"},
		// Tests have no terminal to prompt on.
		{[]string{"user", "passwd", "ann@example.com"}, "", "use --password-stdin"},
		{[]string{"user", "passwd"}, "", "usage"},
	} {
		var err error
		withStdin(t, c.stdin, func() { err = run(context.Background(), append(c.args, "--data", data), io.Discard, io.Discard) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("tessera %v: got %v, want an error with %q", c.args, err, c.want)
		}
	}
	// A user whose password was refused was not created either.
	v := runJSON(t, "user", "list", "--site", "demo", "--data", data)
	for _, u := range v["users"].([]any) {
		if u.(map[string]any)["email"] == "bob@example.com" {
			t.Errorf("bob was created though his password was refused")
		}
	}
}

// A new site starts with the starter theme, active.
func TestSiteCreateStarterTheme(t *testing.T) {
	data := t.TempDir()
	v := runJSON(t, "site", "create", "--name", "Shop", "--short-id", "shop", "--data", data)
	if v["theme"] != themes.StarterName {
		t.Errorf("site create: got %v, want theme %q", v, themes.StarterName)
	}
	st, err := (&config{data: data}).openStore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := services.New(st, services.Options{})
	site, err := svc.Sites.Get(context.Background(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	files, err := svc.Themes.Files(context.Background(), site.ID, site.Theme)
	if err != nil || len(files) != len(themes.Starter()) {
		t.Fatalf("the active theme's files: got %d (%v), want the starter's %d", len(files), err, len(themes.Starter()))
	}
	// Its page template parses, with the editable a page fills.
	err = st.View(context.Background(), func(tx store.Tx) error {
		tpl, _, err := svc.Themes.Template(tx, site.ID, site.Theme, "page")
		if err == nil && tpl.Editable("Body") == nil {
			t.Errorf("the starter page template has no Body editable")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
