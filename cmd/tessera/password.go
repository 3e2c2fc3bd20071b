package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/tessera-cms/tessera/internal/auth"
	"github.com/tessera-cms/tessera/internal/services"
)

// stdin is where --password-stdin reads; tests replace it.
var stdin io.Reader = os.Stdin

// passwordFlags are how a command gets a user's password: from the first
// line of standard input (--password-stdin, for scripts), or typed twice
// at a prompt that does not echo (--password).
type passwordFlags struct {
	fromStdin, prompt bool
}

func addPasswordFlags(fs *flag.FlagSet, p *passwordFlags, promptHelp string) {
	fs.BoolVar(&p.fromStdin, "password-stdin", false, "read the user's password from the first line of standard input")
	fs.BoolVar(&p.prompt, "password", false, promptHelp)
}

// read returns the password the flags ask for, "" when they ask for none.
// The password is checked (auth.CheckPassword) before anything is stored.
func (p passwordFlags) read() (string, error) {
	var pw string
	switch {
	case p.fromStdin && p.prompt:
		return "", usagef("use --password-stdin or --password, not both")
	case p.fromStdin:
		line, err := bufio.NewReader(io.LimitReader(stdin, 4096)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("reading the password: %w", err)
		}
		pw = strings.TrimRight(line, "\r\n")
		if pw == "" {
			return "", errors.New("standard input holds no password")
		}
	case p.prompt:
		fd := int(os.Stdin.Fd())
		if !term.IsTerminal(fd) {
			return "", errors.New("no terminal to ask for the password on: use --password-stdin")
		}
		var again string
		for i, dst := range []*string{&pw, &again} {
			fmt.Fprint(os.Stderr, [...]string{"Password: ", "Password again: "}[i])
			b, err := term.ReadPassword(fd)
			fmt.Fprintln(os.Stderr)
			if err != nil {
				return "", fmt.Errorf("reading the password: %w", err)
			}
			*dst = string(b)
		}
		if pw != again {
			return "", errors.New("the two passwords differ")
		}
	default:
		return "", nil
	}
	return pw, auth.CheckPassword(pw)
}

// cmdUserPasswd handles "tessera user passwd EMAIL [--password-stdin]":
// the user gets a new password (asked for at a prompt without
// --password-stdin), and the tokens of their earlier sign-ins stop
// working.
func cmdUserPasswd(ctx context.Context, args []string, stdout io.Writer) error {
	var c config
	var p passwordFlags
	fs := newFlags("user passwd", &c)
	fs.BoolVar(&p.fromStdin, "password-stdin", false, "read the new password from the first line of standard input")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: tessera user passwd EMAIL [--password-stdin]")
	}
	p.prompt = !p.fromStdin
	pw, err := p.read()
	if err != nil {
		return err
	}
	st, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	email := strings.ToLower(strings.TrimSpace(pos[0]))
	if err := services.New(st, services.Options{}).Auth.SetPassword(ctx, email, pw); err != nil {
		return err
	}
	return printResult(stdout, c.json, map[string]any{"email": email, "password": true},
		fmt.Sprintf("%s has a new password; the tokens of earlier sign-ins stopped working.\n", email))
}
