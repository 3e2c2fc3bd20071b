package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// cmdAppInstallations handles "tessera app installations --site S": the
// apps installed on a site and what each was granted.
func cmdAppInstallations(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef string
	fs := newFlags("app installations", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	svc, site, done, err := openSite(ctx, c, siteRef)
	if err != nil {
		return err
	}
	defer done()
	list, err := svc.OAuth.List(ctx, site)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, i := range list {
		fmt.Fprintf(&b, "%s  %-20s  %s  %s\n", i.ID, i.App, i.CreatedAt, strings.Join(i.Scopes, " "))
	}
	if len(list) == 0 {
		b.WriteString("No app is installed on this site.\n")
	}
	return printResult(stdout, c.json, map[string]any{"installations": list}, b.String())
}

// cmdAppInstall handles "tessera app install KEY --site S [--scope SCOPES]":
// an operator's installation, without the consent screen.
func cmdAppInstall(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef, scope string
	fs := newFlags("app install", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	fs.StringVar(&scope, "scope", "", "the scopes to grant, within the app's install_scopes (default: all of them)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: tessera app install KEY --site S [--scope SCOPES]")
	}
	svc, site, done, err := openSite(ctx, c, siteRef)
	if err != nil {
		return err
	}
	defer done()
	inst, err := svc.OAuth.Install(ctx, site, pos[0], scope, "")
	if err != nil {
		return err
	}
	return printResult(stdout, c.json, inst, fmt.Sprintf("Installed %s (%s): %s\n", inst.App, inst.ID, strings.Join(inst.Scopes, " ")))
}

// cmdAppRevoke handles "tessera app revoke ID|KEY --site S": the
// installation ends, and every token it issued.
func cmdAppRevoke(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var siteRef string
	fs := newFlags("app revoke", &c)
	fs.StringVar(&siteRef, "site", "", "site id or short id (required)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: tessera app revoke ID|KEY --site S")
	}
	svc, site, done, err := openSite(ctx, c, siteRef)
	if err != nil {
		return err
	}
	defer done()
	if err := svc.OAuth.Revoke(ctx, site, pos[0]); err != nil {
		return err
	}
	return printResult(stdout, c.json, map[string]any{"revoked": pos[0]}, "Revoked the installation "+pos[0]+"; its tokens ended.\n")
}
