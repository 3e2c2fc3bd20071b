package notifications

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/tessera-cms/tessera/internal/cms"
	"github.com/tessera-cms/tessera/internal/mail"
	"github.com/tessera-cms/tessera/internal/records"
	"github.com/tessera-cms/tessera/internal/render"
	"github.com/tessera-cms/tessera/internal/store"
)

// maxTemplates bounds the templates of one site a list reads.
const maxTemplates = 10000

// Service keeps the sites' notification templates and renders mails from
// them.
type Service struct {
	Store store.Store
	// Render renders their Liquid (bounded, with the site's filters);
	// it checks them when they are written.
	Render *render.Service
}

// find returns the site's template ref names (slug or id): stored, else
// the built-in default. ENotFound.
func find(tx store.Tx, site *store.Site, ref string) (*Template, error) {
	r, err := records.Find(tx, site.ID, store.RecordNotification, ref)
	if err == nil {
		return decode(r)
	} else if !cms.IsCode(err, cms.ENotFound) {
		return nil, err
	}
	if t := builtin(site, ref); t != nil {
		return t, nil
	}
	for slug := range defaults {
		if builtinID(site.ID, slug) == ref {
			return find(tx, site, slug)
		}
	}
	return nil, cms.ErrNotFound()
}

// all returns every template of the site, stored or default, by slug.
func all(tx store.Tx, site *store.Site) ([]*Template, error) {
	recs, _, err := tx.Records().List(site.ID, store.RecordNotification, store.RecordFilter{}, store.ListOptions{Limit: maxTemplates})
	if err != nil {
		return nil, err
	}
	out := make([]*Template, 0, len(recs)+len(defaults))
	seen := map[string]bool{}
	for _, r := range recs {
		t, err := decode(r)
		if err != nil {
			return nil, err
		}
		seen[r.Key] = true
		out = append(out, t)
	}
	for slug := range defaults {
		if !seen[slug] {
			out = append(out, builtin(site, slug))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rec.Key < out[j].rec.Key })
	return out, nil
}

// List returns one window of the site's templates by slug (slug keeps
// one), the built-in ones among them, and their total.
func (s *Service) List(ctx context.Context, site *store.Site, slug string, opt store.ListOptions) ([]any, int, error) {
	out := []any{}
	total := 0
	err := s.Store.View(ctx, func(tx store.Tx) error {
		list, err := all(tx, site)
		if err != nil {
			return err
		}
		if slug != "" {
			list = slices.DeleteFunc(list, func(t *Template) bool { return t.rec.Key != slug })
		}
		total = len(list)
		from := min(max(opt.Offset, 0), len(list))
		to := len(list)
		if opt.Limit > 0 {
			to = min(from+opt.Limit, len(list))
		}
		for _, t := range list[from:to] {
			out = append(out, t.view())
		}
		return nil
	})
	return out, total, err
}

// Count returns the number of the site's templates, defaults included.
func (s *Service) Count(ctx context.Context, site *store.Site) (int, error) {
	_, n, err := s.List(ctx, site, "", store.ListOptions{Limit: 1})
	return n, err
}

// Get returns the template ref names (slug or id) and its ETag.
func (s *Service) Get(ctx context.Context, site *store.Site, ref string) (any, string, error) {
	var out any
	var tag string
	err := s.Store.View(ctx, func(tx store.Tx) error {
		t, err := find(tx, site, ref)
		if err == nil {
			out, tag = t.view(), records.ETag(t.rec)
		}
		return err
	})
	return out, tag, err
}

// apply sets what w sends into t and checks the result: required fields,
// bounds, the site's locales, and Liquid that compiles.
func (s *Service) apply(site *store.Site, t *Template, w *write) error {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&t.Name, w.name)
	set(&t.Description, w.description)
	set(&t.Subject, w.subject)
	set(&t.Text, w.text)
	set(&t.HTML, w.html)
	if w.htmlEnabled != nil {
		t.HTMLEnabled = *w.htmlEnabled
	} else if w.html != nil && *w.html != "" {
		t.HTMLEnabled = true
	}
	if w.hasTranslations {
		t.Translations = w.translations
	}
	t.Name, t.Subject = strings.TrimSpace(t.Name), strings.TrimSpace(t.Subject)
	switch {
	case t.Name == "":
		return cms.FieldError("name", "is required.")
	case t.Subject == "":
		return cms.FieldError("subject", "is required.")
	case t.Text == "" && (t.HTML == "" || !t.HTMLEnabled):
		return cms.FieldError("text", "is required (or html, with html_enabled).")
	}
	checks := []struct {
		field, v string
		max      int
		oneLine  bool
	}{{"name", t.Name, maxName, true}, {"description", t.Description, 4 << 10, false}, {"subject", t.Subject, maxSubject, true},
		{"text", t.Text, maxBody, false}, {"html", t.HTML, maxBody, false}}
	for l, tr := range t.Translations {
		if !slices.Contains(site.Locales, l) {
			return cms.FieldError("translations."+l, "is not a locale of this site ("+strings.Join(site.Locales, ", ")+").")
		}
		checks = append(checks, struct {
			field, v string
			max      int
			oneLine  bool
		}{"translations." + l + ".subject", tr.Subject, maxSubject, true}, struct {
			field, v string
			max      int
			oneLine  bool
		}{"translations." + l + ".text", tr.Text, maxBody, false}, struct {
			field, v string
			max      int
			oneLine  bool
		}{"translations." + l + ".html", tr.HTML, maxBody, false})
	}
	for _, c := range checks {
		if err := checkField(c.field, c.v, c.max, c.oneLine); err != nil {
			return err
		}
		if c.field == "name" || c.field == "description" || s.Render == nil {
			continue
		}
		if err := s.Render.CheckText(site, c.field, c.v); err != nil {
			var te *render.TemplateError
			if errors.As(err, &te) {
				return cms.FieldError(c.field, "is not valid Liquid: "+te.Error())
			}
			return err
		}
	}
	return nil
}

// Create stores a new template {slug, name, description, subject, text,
// html, html_enabled, translations}; the slug defaults to the name made a
// slug. A built-in slug the site has not changed yet is taken over.
func (s *Service) Create(ctx context.Context, site *store.Site, body []byte) (any, string, error) {
	w, err := parseWrite(body)
	if err != nil {
		return nil, "", err
	}
	slug := ""
	if w.slug != nil {
		slug = strings.TrimSpace(*w.slug)
	} else if w.name != nil {
		slug = strings.ReplaceAll(cms.Slugify(*w.name), "-", "_")
	}
	if err := CheckSlug(slug); err != nil {
		return nil, "", err
	}
	var out any
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		_, err := tx.Records().GetByKey(site.ID, store.RecordNotification, slug)
		if err == nil {
			return cms.FieldError("slug", "is taken: the site has a notification "+slug+".")
		} else if !cms.IsCode(err, cms.ENotFound) {
			return err
		}
		now := tx.Now()
		t := &Template{rec: &store.Record{ID: cms.NewID(now), SiteID: site.ID, Kind: store.RecordNotification, Key: slug}}
		if b := builtin(site, slug); b != nil {
			t = b
		}
		t.rec.CreatedAt, t.rec.UpdatedAt = now, now
		if err := s.apply(site, t, w); err != nil {
			return err
		}
		if t.rec.Doc, err = json.Marshal(t.doc); err != nil {
			return err
		}
		if err := tx.Records().Create(t.rec); err != nil {
			return err
		}
		t.builtin = false
		out, tag = t.view(), records.ETag(t.rec)
		return nil
	})
	return out, tag, err
}

// Update changes the template ref names (slug or id): the keys sent
// replace its own (translations, when sent, all of them). A built-in
// default is stored as the site's own version, changed so.
func (s *Service) Update(ctx context.Context, site *store.Site, ref string, body []byte, ifMatch string) (any, string, error) {
	w, err := parseWrite(body)
	if err != nil {
		return nil, "", err
	}
	if w.slug != nil {
		*w.slug = strings.TrimSpace(*w.slug)
		if err := CheckSlug(*w.slug); err != nil {
			return nil, "", err
		}
	}
	var out any
	var tag string
	err = s.Store.Update(ctx, func(tx store.Tx) error {
		t, err := find(tx, site, ref)
		if err != nil {
			return err
		}
		if err := records.CheckIfMatch(ifMatch, t.rec); err != nil {
			return err
		}
		if w.slug != nil && *w.slug != t.rec.Key && t.builtin {
			return cms.FieldError("slug", "of a built-in notification cannot change: the site's mails find it by "+t.rec.Key+".")
		}
		next := *t.rec
		prev := t.rec.UpdatedAt
		t.rec = &next
		if w.slug != nil {
			if _, builtinSlug := defaults[next.Key]; builtinSlug && *w.slug != next.Key {
				return cms.FieldError("slug", "of a built-in notification cannot change: the site's mails find it by "+next.Key+".")
			}
			next.Key = *w.slug
		}
		if err := s.apply(site, t, w); err != nil {
			return err
		}
		if next.Doc, err = json.Marshal(t.doc); err != nil {
			return err
		}
		if t.builtin {
			next.CreatedAt, next.UpdatedAt = tx.Now(), tx.Now()
			err = tx.Records().Create(&next)
		} else {
			next.UpdatedAt = cms.NextUpdatedAt(prev, tx.Now())
			err = tx.Records().Update(&next, prev)
		}
		if cms.IsCode(err, cms.EConflict) {
			return cms.FieldError("slug", "is taken: the site has a notification "+next.Key+".")
		} else if err != nil {
			return err
		}
		t.builtin = false
		out, tag = t.view(), records.ETag(t.rec)
		return nil
	})
	return out, tag, err
}

// Delete removes the template ref names; a built-in one goes back to its
// default. A built-in default the site never changed is ENotFound.
func (s *Service) Delete(ctx context.Context, site *store.Site, ref, ifMatch string) error {
	return s.Store.Update(ctx, func(tx store.Tx) error {
		t, err := find(tx, site, ref)
		if err != nil {
			return err
		}
		if t.builtin {
			return cms.Errorf(cms.ENotFound, "%s is the built-in default: the site has no version of its own to delete.", t.rec.Key)
		}
		if err := records.CheckIfMatch(ifMatch, t.rec); err != nil {
			return err
		}
		return tx.Records().Delete(site.ID, store.RecordNotification, t.rec.ID)
	})
}

// Mail renders the template slug names for site in locale (the default
// locale's fields where the locale has none) with vars: the message
// without its recipients. ENotFound when there is no such template; a
// template that fails to render is an error naming it.
func (s *Service) Mail(ctx context.Context, site *store.Site, slug, locale string, vars map[string]any) (*mail.Message, error) {
	if locale == "" || !slices.Contains(site.Locales, locale) {
		locale = site.DefaultLocale
	}
	var t *Template
	err := s.Store.View(ctx, func(tx store.Tx) (err error) {
		t, err = find(tx, site, slug)
		return err
	})
	if err != nil {
		return nil, err
	}
	subject, text, html := t.localized(locale)
	msg := &mail.Message{}
	for _, f := range []struct {
		name, src string
		dst       *string
	}{{"subject", subject, &msg.Subject}, {"text", text, &msg.Text}, {"html", html, &msg.HTML}} {
		if f.src == "" {
			continue
		}
		out := f.src
		if s.Render != nil {
			if out, err = s.Render.Text(ctx, site, locale, "notifications/"+slug+"."+f.name, f.src, vars); err != nil {
				return nil, err
			}
		}
		*f.dst = out
	}
	msg.Subject = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(msg.Subject, "\r", " "), "\n", " "))
	return msg, nil
}
