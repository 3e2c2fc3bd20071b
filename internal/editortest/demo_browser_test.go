package editortest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// contrastJS measures the contrast of every visible piece of text on the
// page against what is behind it: the element's colour laid over its
// effective background (the background colours of it and its ancestors,
// composited up to the first opaque one, white beyond), by the WCAG 2
// formula. Text of 24px, or 18.66px and bold, is large. It answers how
// many elements it checked and those below AA (4.5:1, 3:1 for large text).
const contrastJS = `(() => {
  const parse = c => {
    const m = /rgba?\(([^)]+)\)/.exec(c)
    if (!m) return null
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number)
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]
  }
  const over = (top, bottom) => {
    const a = top[3]
    return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1])
  }
  const lum = c => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4) }
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2])
  }
  const background = el => {
    const layers = []
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor)
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break }
    }
    let bg = [255, 255, 255, 1]
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg)
    return bg
  }
  const hex = c => '#' + c.slice(0, 3).map(v => Math.round(v).toString(16).padStart(2, '0')).join('')
  const seen = new Set(), fails = []
  let checked = 0
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
  while (walk.nextNode()) {
    const el = walk.currentNode.parentElement
    if (!walk.currentNode.textContent.trim() || !el || seen.has(el)) continue
    seen.add(el)
    const s = getComputedStyle(el), r = el.getBoundingClientRect()
    if (r.width === 0 || r.height === 0 || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) continue
    if (r.right <= 0 || r.bottom <= 0 || r.left >= document.documentElement.scrollWidth) continue // off-screen (the skip link until focused)
    const bg = background(el), fg = over(parse(s.color), bg)
    const l1 = lum(fg), l2 = lum(bg)
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05)
    const size = parseFloat(s.fontSize), bold = (parseInt(s.fontWeight, 10) || 400) >= 700
    const min = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5
    checked++
    if (ratio < min) fails.push(el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).trim().replace(/\s+/g, '.') : '') +
      ' "' + el.textContent.trim().slice(0, 40) + '": ' + hex(fg) + ' on ' + hex(bg) + ' = ' + ratio.toFixed(2) + ':1, needs ' + min + ':1')
  }
  return {checked, fails}
})()`

type contrastReport struct {
	Checked int      `json:"checked"`
	Fails   []string `json:"fails"`
}

// TestDemoBrowser drives headless Chromium through the demo site in both
// locales, at a desktop and at a phone width: the home page, the blog, a
// post, the contact page (and its form, sent, answered by the demo app's
// cloud code and mailed), the login page, and the members area after
// logging in. Every page must load without a console error or a failed
// request, lay out without sideways scrolling, and have every visible
// text meet WCAG AA contrast against its background. Full-page
// screenshots go to $TESSERA_ARTIFACTS/demo/<test>/ (desktop-*.png,
// phone-*.png).
func TestDemoBrowser(t *testing.T) {
	onEveryStoreDemo(t, func(t *testing.T, env *apitest.Env, site *store.Site) {
		b := newBrowserIn(t, env, "demo")
		for _, vp := range []struct {
			name          string
			width, height int64
		}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
			b.run("viewport "+vp.name, chromedp.EmulateViewport(vp.width, vp.height))
			page := func(name, path, lang string, checks ...chromedp.Action) {
				t.Helper()
				actions := append([]chromedp.Action{chromedp.Navigate(b.site + path),
					chromedp.WaitVisible(`html[lang="`+lang+`"] main`, chromedp.ByQuery)}, checks...)
				b.run(vp.name+" "+name, actions...)
				b.checkPage(vp.name + "-" + name)
			}
			for _, l := range []struct {
				lang, prefix, home, post, date, login, members, contact string
			}{
				{"en", "", "Welcome to Tessera", "Hello, Tessera", "September 1, 2026", "Log in", "/members", "Contact"},
				{"nl", "/nl", "Welkom bij Tessera", "Hallo, Tessera", "1 september 2026", "Inloggen", "/nl/leden", "Contact"},
			} {
				page(l.lang+"-home", l.prefix+"/", l.lang, textIs("h1", l.home))
				page(l.lang+"-blog", l.prefix+"/blog", l.lang, textHas(".cards", l.date))
				page(l.lang+"-post", l.prefix+"/blog/hello-tessera", l.lang, textIs("h1", l.post),
					chromedp.WaitVisible(`.locales a[href="`+map[string]string{"en": "/nl", "nl": ""}[l.lang]+`/blog/hello-tessera"]`, chromedp.ByQuery))
				page(l.lang+"-contact", l.prefix+"/contact", l.lang, textIs("h1", l.contact))
				page(l.lang+"-login", "/_customers/login?return_to="+strings.ReplaceAll(l.members, "/", "%2F"), l.lang, textIs("h1", l.login))
				b.run(vp.name+" "+l.lang+" log in",
					chromedp.SendKeys(`input[name="username"]`, demo.CustomerEmail, chromedp.ByQuery),
					chromedp.SendKeys(`input[name="password"]`, demo.CustomerPassword, chromedp.ByQuery),
					chromedp.Submit(`form.customer-login`, chromedp.ByQuery),
					chromedp.WaitVisible(`html[lang="`+l.lang+`"] form.customer-logout`, chromedp.ByQuery),
					waitJS(`location.pathname === "`+l.members+`"`),
					textHas(".lead", "Demo member"),
				)
				b.checkPage(vp.name + "-" + l.lang + "-members")
				b.run(vp.name+" "+l.lang+" log out",
					chromedp.Click(`form.customer-logout button`, chromedp.ByQuery),
					chromedp.WaitVisible(`.account a[href^="/_customers/login"]`, chromedp.ByQuery),
					waitJS(`location.pathname === "`+l.prefix+`/"`))
			}
		}

		// The contrast check itself works: pale grey text on white is caught.
		var probe contrastReport
		b.run("contrast probe", chromedp.Evaluate(`(() => { const p = document.createElement('p');
		  p.textContent = 'contrast probe'; p.style.cssText = 'color: #aaaaaa; background: #ffffff; font-size: 16px';
		  document.querySelector('main').append(p) })()`, nil), chromedp.Evaluate(contrastJS, &probe))
		if len(probe.Fails) != 1 || !strings.Contains(probe.Fails[0], "contrast probe") || !strings.Contains(probe.Fails[0], "#aaaaaa on #ffffff = 2.32:1") {
			t.Errorf("the contrast check missed pale text: %v", probe.Fails)
		}

		// The contact form: sent in Dutch, answered by the demo app's route,
		// kept in the messages channel and mailed through the mailer.
		b.run("viewport desktop", chromedp.EmulateViewport(1280, 900))
		b.run("contact form",
			chromedp.Navigate(b.site+"/nl/contact"),
			chromedp.WaitVisible(`form.contact-form`, chromedp.ByQuery),
			chromedp.SendKeys(`input[name="name"]`, "Ann Peeters", chromedp.ByQuery),
			chromedp.SendKeys(`input[name="email"]`, "ann@example.com", chromedp.ByQuery),
			chromedp.SendKeys(`textarea[name="message"]`, "Hoe begin ik?", chromedp.ByQuery),
			chromedp.Submit(`form.contact-form`, chromedp.ByQuery),
			chromedp.WaitVisible(`.notice.ok`, chromedp.ByQuery),
			waitJS(`location.pathname + location.search === "/nl/contact?sent=1"`),
			textHas(".notice.ok", "Bedankt!"),
		)
		b.checkPage("desktop-nl-contact-sent")
		deadline := time.Now().Add(10 * time.Second)
		for {
			found := false
			for _, m := range env.Mail.Sent() {
				if strings.Contains(m.Subject, "Ann Peeters") && strings.Contains(m.Text, "Hoe begin ik?") &&
					m.To == demo.AdminEmail {
					found = true
				}
			}
			if found {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the contact form's mail was not sent: %+v", env.Mail.Sent())
			}
			time.Sleep(50 * time.Millisecond)
		}
		res := api(t, env, site, "GET", "/channels/messages/entries", nil, 200)
		if !strings.Contains(string(res.Raw), `"Hoe begin ik?"`) {
			t.Errorf("the message was not kept: %s", res.Raw)
		}
	})
}

// onEveryStoreDemo runs fn against the whole demo site (its menus,
// translations, redirects and app too, as `tessera serve --demo` makes
// it) on each store, served on a port a browser can reach.
func onEveryStoreDemo(t *testing.T, fn func(t *testing.T, env *apitest.Env, site *store.Site)) {
	chromium(t)
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			env := apitest.New(t, b, apitest.WithPublicPort())
			env.Clock.Set(time.Now()) // the browser keeps real time (session cookies)
			res, err := demo.Create(context.Background(), demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth,
				Pages: env.Pages, Entries: env.Entries, Customers: env.Customers, Menus: env.Server.Menus, Translations: env.Server.Translations,
				Redirects: env.Server.Redirects, Apps: env.Server.Apps}, "www")
			if err != nil {
				t.Fatalf("create demo site: %v", err)
			}
			env.Tokens["www"] = res.Token
			fn(t, env, res.Site)
		})
	}
}

// checkPage measures the page's text contrast, checks that it does not
// scroll sideways, and saves a full-page screenshot named name.
func (b *browser) checkPage(name string) {
	b.t.Helper()
	var rep contrastReport
	var overflow bool
	b.run(name+" contrast", chromedp.Evaluate(contrastJS, &rep),
		chromedp.Evaluate(`document.documentElement.scrollWidth > document.documentElement.clientWidth + 1`, &overflow))
	if rep.Checked < 10 {
		b.t.Errorf("%s: only %d text elements measured", name, rep.Checked)
	}
	for _, f := range rep.Fails {
		b.t.Errorf("%s: contrast below WCAG AA: %s", name, f)
	}
	if overflow {
		b.t.Errorf("%s: the page scrolls sideways", name)
	}
	var shot []byte
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&shot, 100)); err != nil {
		b.t.Errorf("%s: screenshot: %v", name, err)
		return
	}
	b.shots++
	file := filepath.Join(b.artifacts, fmt.Sprintf("%s.png", name))
	if err := os.WriteFile(file, shot, 0o644); err != nil {
		b.t.Fatal(err)
	}
}
