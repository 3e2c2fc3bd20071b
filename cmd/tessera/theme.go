package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tessera-cms/tessera/internal/themes"
)

// cmdThemePush handles "tessera theme push DIR --site S [--theme NAME]
// [--force]": the theme becomes exactly the folder's files (files it no
// longer holds are removed) and the site's active theme, all or nothing.
// A push that takes away templates pages use is refused, naming them,
// unless --force.
func cmdThemePush(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef, theme string
	var force bool
	var depth int
	fs := newFlags("theme push", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	fs.StringVar(&theme, "theme", "", "theme name (default: the directory's name)")
	fs.BoolVar(&force, "force", false, "push even when it takes away templates that pages use (those pages then have no template)")
	addDepthFlag(fs, &depth)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if err := checkDepth(depth); err != nil {
		return err
	}
	if len(pos) != 1 || siteRef == "" {
		return errors.New("usage: tessera theme push DIR --site S [--theme NAME] [--force]")
	}
	dir, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	if theme == "" {
		theme = filepath.Base(dir)
	}
	files, err := themes.LoadDir(os.DirFS(dir))
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	svc, site, done, err := openSite(ctx, c, siteRef)
	if err != nil {
		return err
	}
	defer done()
	svc.Themes.MaxDepth = depth
	// Pushing is how a theme is deployed: the theme becomes the folder, and
	// the site's active theme.
	res, err := svc.Themes.PushTheme(ctx, site.ID, theme, files, themes.PushOptions{Prune: true, Activate: true, Force: force})
	if err != nil {
		return err
	}
	changed := make([]string, len(res.Changed))
	for i, f := range res.Changed {
		changed[i] = f.Kind + "/" + f.Name
	}
	orphaned := make([]map[string]any, len(res.Orphaned))
	text := fmt.Sprintf("Pushed theme %q to site %s: %d files, %d changed, %d removed. It is the site's active theme.\n",
		theme, site.ShortID, len(files), len(changed), len(res.Removed))
	for i, u := range res.Orphaned {
		orphaned[i] = map[string]any{"template": u.Template, "pages_count": u.Count, "pages": u.Pages}
		text += fmt.Sprintf("Template %s is gone; %d page(s) now have no template: %v\n", u.Template, u.Count, u.Pages)
	}
	return printResult(stdout, c.json, map[string]any{"theme": theme, "site_id": site.ID, "files": len(files),
		"changed": changed, "removed": nonNil(res.Removed), "orphaned": orphaned}, text)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// cmdThemePull handles "tessera theme pull DIR --site S [--theme NAME]":
// it writes the theme (by default the site's active one) into DIR in the
// folder layout theme push reads, so push and pull round-trip byte for
// byte.
func cmdThemePull(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef, theme string
	fs := newFlags("theme pull", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	fs.StringVar(&theme, "theme", "", "theme name (default: the site's active theme)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || siteRef == "" {
		return errors.New("usage: tessera theme pull DIR --site S [--theme NAME]")
	}
	svc, site, done, err := openSite(ctx, c, siteRef)
	if err != nil {
		return err
	}
	defer done()
	if theme == "" {
		if theme = site.Theme; theme == "" {
			return fmt.Errorf("site %s has no active theme; name one with --theme", site.ShortID)
		}
	}
	list, err := svc.Themes.Files(ctx, site.ID, theme)
	if err != nil {
		return fmt.Errorf("theme %q: %w", theme, err)
	}
	written, err := themes.WriteDir(pos[0], list)
	if err != nil {
		return err
	}
	return printResult(stdout, c.json, map[string]any{"theme": theme, "site_id": site.ID, "dir": pos[0], "files": written},
		fmt.Sprintf("Pulled theme %q of site %s into %s: %d files.\n", theme, site.ShortID, pos[0], len(written)))
}
