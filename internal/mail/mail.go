// Package mail sends Tessera's outgoing mail (customer and user password
// resets, customer confirmations, cloud code's Mail.send) through one
// Mailer: a log transport by default, which writes each message to the log
// instead of sending it, or SMTP when configured; and queues it (Queue),
// so that no request waits for a mail server.
package mail

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is one mail: plain text, and an HTML alternative when HTML is
// set (cloud code's Mail.send).
type Message struct {
	To      string
	Cc      []string
	Subject string
	Text    string
	HTML    string
}

// A Mailer sends mail.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// Log is the default Mailer: it logs each message, body included, so that
// a site without a mail server can still follow a reset link from the log.
type Log struct{ Logger *slog.Logger }

// Send implements Mailer.
func (l Log) Send(ctx context.Context, m Message) error {
	logger := l.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.InfoContext(ctx, "mail (log transport; configure --smtp to send it)",
		slog.String("to", m.To), slog.Any("cc", m.Cc), slog.String("subject", m.Subject), slog.String("text", m.Text), slog.String("html", m.HTML))
	return nil
}

// Recorder keeps the messages it is given: for tests, which must never
// reach the network.
type Recorder struct {
	mu   sync.Mutex
	sent []Message
}

// Send implements Mailer.
func (r *Recorder) Send(_ context.Context, m Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, m)
	return nil
}

// Sent returns the messages sent so far.
func (r *Recorder) Sent() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.sent...)
}

// SMTP sends mail through an SMTP server.
type SMTP struct {
	From   string
	client *gomail.Client
}

// OpenSMTP configures an SMTP Mailer from a URL:
// smtp://user:password@host:port (STARTTLS required) or
// smtps://user:password@host:port (TLS from the start); the query
// parameter tls=opportunistic accepts a server without STARTTLS. from is
// the sender address.
func OpenSMTP(rawURL, from string) (*SMTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, fmt.Errorf("mail: the SMTP URL must be smtp://[user:password@]host[:port] or smtps://...")
	}
	if from == "" {
		return nil, fmt.Errorf("mail: a sender address (--mail-from) is required with SMTP")
	}
	host, portText, err := net.SplitHostPort(u.Host)
	if err != nil {
		host, portText = u.Host, ""
	}
	opts := []gomail.Option{gomail.WithTimeout(30 * time.Second)}
	if portText != "" {
		port, err := strconv.Atoi(portText)
		if err != nil {
			return nil, fmt.Errorf("mail: SMTP port %q: %w", portText, err)
		}
		opts = append(opts, gomail.WithPort(port))
	}
	switch {
	case u.Scheme == "smtps":
		opts = append(opts, gomail.WithSSL())
	case u.Query().Get("tls") == "opportunistic":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if user := u.User.Username(); user != "" {
		pass, _ := u.User.Password()
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(user), gomail.WithPassword(pass))
	}
	c, err := gomail.NewClient(host, opts...)
	if err != nil {
		return nil, fmt.Errorf("mail: %w", err)
	}
	return &SMTP{From: from, client: c}, nil
}

// Send implements Mailer.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.From); err != nil {
		return fmt.Errorf("mail: sender: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("mail: recipient: %w", err)
	}
	if len(m.Cc) > 0 {
		if err := msg.Cc(m.Cc...); err != nil {
			return fmt.Errorf("mail: cc: %w", err)
		}
	}
	msg.Subject(m.Subject)
	switch {
	case m.HTML == "":
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	case m.Text == "":
		msg.SetBodyString(gomail.TypeTextHTML, m.HTML)
	default:
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	if err := s.client.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail: send: %w", err)
	}
	return nil
}
