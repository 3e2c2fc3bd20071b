package customers

import (
	"context"
	"log/slog"

	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/store"
)

// The notification templates the customer mails render from
// (notifications.PasswordReset and notifications.Confirmation).
const (
	templatePasswordReset = "password_reset"
	templateConfirmation  = "customer_confirmation"
)

// MailTemplates renders a site's mails from its notification templates
// (package notifications): the message for slug in locale with vars bound,
// without its recipients.
type MailTemplates interface {
	Mail(ctx context.Context, site *store.Site, slug, locale string, vars map[string]any) (*mail.Message, error)
}

// outMail is a customer mail to send: the template it renders from, and
// the built-in text it falls back to (without templates, or when the
// site's template fails to render).
type outMail struct {
	mail.Message
	template string
	locale   string
	vars     map[string]any
}

// mailVars are the variables of a customer mail: site, customer, token,
// and more (the link to open).
func (s *Service) mailVars(site *store.Site, c *customer, token string, more map[string]any) map[string]any {
	vars := map[string]any{
		"site":     map[string]any{"name": site.Name, "url": s.siteBase(site), "short_id": site.ShortID},
		"customer": map[string]any{"email": c.rec.Email, "name": c.Name, "firstname": c.Firstname, "lastname": c.Lastname, "language": c.Language},
		"token":    token,
	}
	for k, v := range more {
		vars[k] = v
	}
	return vars
}

// send renders m from its template when the service has templates, and
// hands it to the mailer.
func (s *Service) send(ctx context.Context, site *store.Site, m outMail) error {
	msg := m.Message
	if s.Templates != nil && m.template != "" {
		out, err := s.Templates.Mail(ctx, site, m.template, m.locale, m.vars)
		if err != nil {
			slog.ErrorContext(ctx, "a mail template failed to render; the built-in text is sent", slog.String("site", site.ID),
				slog.String("template", m.template), slog.Any("err", err))
		} else {
			out.To, out.Cc = msg.To, msg.Cc
			msg = *out
		}
	}
	return s.mailer().Send(ctx, msg)
}
