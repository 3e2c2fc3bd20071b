// Package notifications keeps a site's notification templates: the mails
// the site sends, each a subject, a text body and an optional HTML body in
// Liquid, with a version per locale. Customer mails (password reset,
// email confirmation) render from them, starting from built-in defaults a
// site may change, and cloud code sends any of them by slug (Mail.send).
package notifications

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/store"
)

// Bounds of a template.
const (
	maxBody    = 256 << 10
	maxSubject = 1 << 10
	maxName    = 255
)

// Slugs of the built-in templates the customer mails render from.
const (
	PasswordReset = "password_reset"
	Confirmation  = "customer_confirmation"
)

// Translation is a template's version in one locale; an empty field takes
// the default locale's.
type Translation struct {
	Subject string `json:"subject,omitempty"`
	Text    string `json:"text,omitempty"`
	HTML    string `json:"html,omitempty"`
}

// doc is a template's stored document; its slug is the record's key.
type doc struct {
	Name         string                 `json:"name"`
	Description  string                 `json:"description,omitempty"`
	Subject      string                 `json:"subject"`
	Text         string                 `json:"text"`
	HTML         string                 `json:"html,omitempty"`
	HTMLEnabled  bool                   `json:"html_enabled,omitempty"`
	Translations map[string]Translation `json:"translations,omitempty"`
}

// Template is a notification template: stored, or a built-in default the
// site has not changed (rec has no Doc of the site's then).
type Template struct {
	rec     *store.Record
	builtin bool // rec was not read from the store
	doc
}

func decode(r *store.Record) (*Template, error) {
	t := &Template{rec: r}
	if err := json.Unmarshal(r.Doc, &t.doc); err != nil {
		return nil, fmt.Errorf("notifications: decode %s: %w", r.ID, err)
	}
	return t, nil
}

// builtinID is the id of a built-in template of a site, stable from its
// first read on, before and after the site stores its own version.
func builtinID(siteID, slug string) string {
	sum := sha256.Sum256([]byte("notification\x00" + siteID + "\x00" + slug))
	return hex.EncodeToString(sum[:12])
}

// builtin returns the site's default of slug, or nil when slug names none.
func builtin(site *store.Site, slug string) *Template {
	d, ok := defaults[slug]
	if !ok {
		return nil
	}
	at := site.CreatedAt
	return &Template{rec: &store.Record{ID: builtinID(site.ID, slug), SiteID: site.ID, Kind: store.RecordNotification, Key: slug,
		CreatedAt: at, UpdatedAt: at}, builtin: true, doc: d}
}

// localized returns the subject, text and HTML of the template in locale,
// each falling back to the default locale's.
func (t *Template) localized(locale string) (subject, text, html string) {
	subject, text, html = t.Subject, t.Text, t.HTML
	if tr, ok := t.Translations[locale]; ok {
		if tr.Subject != "" {
			subject = tr.Subject
		}
		if tr.Text != "" {
			text = tr.Text
		}
		if tr.HTML != "" {
			html = tr.HTML
		}
	}
	if !t.HTMLEnabled {
		html = ""
	}
	return subject, text, html
}

// view is a template's read shape: the original client's Notification.
type view struct {
	ID           string                 `json:"id"`
	Slug         string                 `json:"slug"`
	Name         string                 `json:"name"`
	Description  string                 `json:"description"`
	Subject      string                 `json:"subject"`
	Text         string                 `json:"text"`
	HTML         string                 `json:"html"`
	HTMLEnabled  bool                   `json:"html_enabled"`
	Translations map[string]Translation `json:"translations"`
	Default      bool                   `json:"default"`
	CreatedAt    string                 `json:"created_at"`
	UpdatedAt    string                 `json:"updated_at"`
}

func (t *Template) view() view {
	tr := t.Translations
	if tr == nil {
		tr = map[string]Translation{}
	}
	_, isBuiltin := defaults[t.rec.Key]
	return view{ID: t.rec.ID, Slug: t.rec.Key, Name: t.Name, Description: t.Description, Subject: t.Subject, Text: t.Text,
		HTML: t.HTML, HTMLEnabled: t.HTMLEnabled, Translations: tr, Default: t.builtin && isBuiltin,
		CreatedAt: cms.FormatTime(t.rec.CreatedAt), UpdatedAt: cms.FormatTime(t.rec.UpdatedAt)}
}

// write is a parsed template body.
type write struct {
	slug, name, description, subject, text, html *string
	htmlEnabled                                  *bool
	translations                                 map[string]Translation
	hasTranslations                              bool
}

var readOnly = []string{"id", "url", "created_at", "updated_at", "default"}

func parseWrite(body []byte) (*write, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, cms.Errorf(cms.EInvalidJSON, "The body must be a JSON object: a notification {slug, name, subject, text, html, translations}.")
	}
	w := &write{}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		str := func(dst **string) error {
			var s string
			if string(v) != "null" {
				if err := json.Unmarshal(v, &s); err != nil {
					return cms.FieldError(k, "must be a string.")
				}
			}
			*dst = &s
			return nil
		}
		var err error
		switch k {
		case "slug":
			err = str(&w.slug)
		case "name":
			err = str(&w.name)
		case "description":
			err = str(&w.description)
		case "subject":
			err = str(&w.subject)
		case "text":
			err = str(&w.text)
		case "html":
			err = str(&w.html)
		case "html_enabled":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return nil, cms.FieldError(k, "must be true or false.")
			}
			w.htmlEnabled = &b
		case "translations":
			w.hasTranslations = true
			if string(v) != "null" {
				var m map[string]map[string]*string
				if json.Unmarshal(v, &m) != nil {
					return nil, cms.FieldError(k, "must map locales to {subject, text, html}.")
				}
				w.translations = map[string]Translation{}
				for l, tr := range m {
					var t Translation
					for f, s := range tr {
						if s == nil {
							continue
						}
						switch f {
						case "subject":
							t.Subject = *s
						case "text":
							t.Text = *s
						case "html":
							t.HTML = *s
						default:
							return nil, cms.FieldError("translations."+l+"."+f, "is not a field of a translation (subject, text, html).")
						}
					}
					w.translations[l] = t
				}
			}
		default:
			if !slices.Contains(readOnly, k) {
				return nil, cms.FieldError(k, "is not a field of a notification (slug, name, description, subject, text, html, html_enabled, translations).")
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return w, nil
}

// CheckSlug checks a template slug: letters, digits, - and _.
func CheckSlug(s string) error {
	switch {
	case s == "":
		return cms.FieldError("slug", "is required.")
	case len(s) > maxName:
		return cms.FieldError("slug", fmt.Sprintf("is longer than %d bytes.", maxName))
	case records.Reserved(s):
		return cms.FieldError("slug", "cannot be \""+s+"\": GET /notifications/"+s+" is another route.")
	case strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	}) >= 0:
		return cms.FieldError("slug", "may hold only letters, digits, - and _.")
	}
	return nil
}

func checkField(field, s string, max int, oneLine bool) error {
	if len(s) > max {
		return cms.FieldError(field, fmt.Sprintf("is longer than %d bytes.", max))
	}
	if oneLine && strings.ContainsAny(s, "\r\n") {
		return cms.FieldError(field, "must be one line (a mail header).")
	}
	return nil
}
