package render

import (
	"context"
	"net/url"
	"strings"

	"github.com/tessera-cms/tessera/internal/store"
)

// textFile names Liquid source rendered outside any page in errors.
const textFile = "text"

// CheckText compiles Liquid source that Text will render (a mail's
// subject or body), so that a mistake is refused when it is written: a
// *TemplateError when it does not compile or nests too deep.
func (s *Service) CheckText(site *store.Site, name, source string) error {
	th := newTheme(site, site.DefaultLocale, map[string]string{fileKey(store.KindTemplates, textFile): source}, s.limits().Depth)
	_, err := th.template(store.KindTemplates, textFile)
	if te, ok := err.(*TemplateError); ok {
		te.File = name
	}
	return err
}

// Text renders Liquid source outside any page (a mail's subject, text or
// HTML) for site in locale, with vars bound and the site's filters
// (translate among them), within the bounds of a page render. site and
// locale are bound too, as on pages. Errors: *TemplateError, *LimitError.
func (s *Service) Text(ctx context.Context, site *store.Site, locale, name, source string, vars map[string]any) (string, error) {
	if !strings.ContainsAny(source, "{%") {
		return source, nil // plain text: nothing to render
	}
	if locale == "" {
		locale = site.DefaultLocale
	}
	th := newTheme(site, locale, map[string]string{fileKey(store.KindTemplates, textFile): source}, s.limits().Depth)
	tpl, err := th.template(store.KindTemplates, textFile)
	if err != nil {
		if te, ok := err.(*TemplateError); ok {
			te.File = name
		}
		return "", err
	}
	req := &Request{Site: site, Path: "/", Query: url.Values{}}
	var out string
	err = s.Store.View(ctx, func(tx store.Tx) error {
		st := s.newState(ctx, tx, req, locale)
		defer st.close()
		st.cfg = th.config(st.b)
		st.cfg.st = st
		b := map[string]any{stateKey: st, "locale": locale,
			"site": map[string]any{"id": site.ID, "name": site.Name, "short_id": site.ShortID, "default_locale": site.DefaultLocale}}
		for k, v := range vars {
			b[k] = v
		}
		w := st.b.buffer()
		if err := st.check(name, st.render(tpl, w, b, name)); err != nil {
			if te, ok := err.(*TemplateError); ok && te.File == fileKey(store.KindTemplates, textFile) {
				te.File = name
			}
			return err
		}
		out = w.String()
		return nil
	})
	return out, err
}
