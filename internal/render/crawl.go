package render

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/pages"
	"github.com/tessera-cms/tessera/internal/pages/doc"
	"github.com/tessera-cms/tessera/internal/store"
)

// listedLocales are the locales crawlers are shown p in (sitemap.xml,
// llms.txt): pages.Listed decides, as pages.Visible decides for visitors.
func listedLocales(site *store.Site, p *doc.Page) []string {
	var out []string
	for _, l := range pages.ShownLocales(site, p) {
		if pages.Listed(p, l) {
			out = append(out, l)
		}
	}
	return out
}

// Sitemap writes the site's sitemap.xml: every locale URL of every listed
// page, with its alternates in the other locales. base is the site's
// public base URL (no trailing slash).
func (s *Service) Sitemap(ctx context.Context, site *store.Site, base string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` + "\n")
	err := s.Pages.Each(ctx, site, func(p *doc.Page) error {
		locales := listedLocales(site, p)
		for _, l := range locales {
			b.WriteString("<url><loc>")
			xml.EscapeText(&b, []byte(base+pages.PublicURL(site, p, l)))
			b.WriteString("</loc><lastmod>" + p.UpdatedAt.UTC().Format(time.RFC3339) + "</lastmod>")
			if len(locales) > 1 {
				for _, alt := range locales {
					fmt.Fprintf(&b, `<xhtml:link rel="alternate" hreflang="%s" href="`, alt)
					xml.EscapeText(&b, []byte(base+pages.PublicURL(site, p, alt)))
					b.WriteString(`"/>`)
				}
			}
			b.WriteString("</url>\n")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.WriteString("</urlset>\n")
	return b.Bytes(), nil
}

// Robots writes the site's robots.txt: a Disallow line for each locale URL
// of every page whose security mechanism is humans, and the sitemap.
func (s *Service) Robots(ctx context.Context, site *store.Site, base string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("User-agent: *\n")
	n := 0
	err := s.Pages.Each(ctx, site, func(p *doc.Page) error {
		if security(p) != doc.SecurityHumans {
			return nil
		}
		for _, l := range pages.ShownLocales(site, p) {
			b.WriteString("Disallow: " + robotsPath(pages.PublicURL(site, p, l)) + "\n")
			n++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		b.WriteString("Disallow:\n")
	}
	b.WriteString("\nSitemap: " + base + "/sitemap.xml\n")
	return b.Bytes(), nil
}

// robotsPath escapes what robots.txt cannot hold literally in a path.
func robotsPath(p string) string {
	r := strings.NewReplacer("\n", "%0A", "\r", "%0D", " ", "%20", "#", "%23")
	return r.Replace(p)
}

// LLMs writes the site's llms.txt (llmstxt.org): the site's name, then a
// link to each locale URL of every listed page with its SEO description.
func (s *Service) LLMs(ctx context.Context, site *store.Site, base string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("# " + oneLine(site.Name) + "\n\n## Pages\n\n")
	def := site.DefaultLocale
	err := s.Pages.Each(ctx, site, func(p *doc.Page) error {
		for _, l := range listedLocales(site, p) {
			title := oneLine(p.Title.Get(l, def))
			if title == "" {
				title = pages.PublicURL(site, p, l)
			}
			b.WriteString("- [" + mdEscape(title) + "](" + base + pages.PublicURL(site, p, l) + ")")
			if d := oneLine(p.SEODescription.Get(l, def)); d != "" {
				b.WriteString(": " + d)
			}
			b.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func mdEscape(s string) string { return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s) }
