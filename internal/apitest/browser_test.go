package apitest_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestBrowser drives headless Chromium through the demo site as a visitor
// would: the home page, its Dutch version, a preview link, and a
// customers-only page with login and logout. It saves a screenshot of each
// step under $TESSERA_ARTIFACTS/browser (default: a temporary directory)
// and fails on any console error or uncaught exception.
//
// Without Chromium the test is skipped, unless TESSERA_REQUIRE_BROWSER=1
// (CI installs Chromium and sets it).
func TestBrowser(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("TESSERA_REQUIRE_BROWSER") == "1" {
			t.Fatal("Chromium is not installed, and TESSERA_REQUIRE_BROWSER=1")
		}
		t.Skip("Chromium is not installed (apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	artifacts := filepath.Join(os.Getenv("TESSERA_ARTIFACTS"), "browser")
	if os.Getenv("TESSERA_ARTIFACTS") == "" {
		artifacts = t.TempDir()
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", artifacts)

	env, site := siteEnv(t, storetest.Backends(t)[0])
	u, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://www.localhost:" + u.Port()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("host-resolver-rules", "MAP *.localhost 127.0.0.1"),
		chromedp.WindowSize(1200, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				problems = append(problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.LevelError {
				problems = append(problems, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	})
	if err := chromedp.Run(ctx, log.Enable(), runtime.Enable()); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}

	step := func(name string, actions ...chromedp.Action) {
		t.Helper()
		var shot []byte
		actions = append(actions, chromedp.FullScreenshot(&shot, 80))
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(artifacts, name+".jpg"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string, want string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var got string
			if err := chromedp.Text(sel, &got, chromedp.ByQuery).Do(ctx); err != nil {
				return err
			}
			if strings.TrimSpace(got) != want {
				return fmt.Errorf("%s: got %q, want %q", sel, got, want)
			}
			return nil
		})
	}
	location := func(want string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var got string
			if err := chromedp.Location(&got).Do(ctx); err != nil {
				return err
			}
			if got != base+want {
				return fmt.Errorf("location: got %q, want %q", got, base+want)
			}
			return nil
		})
	}

	// The stylesheet loaded through its fingerprinted URL: the navigation is
	// laid out as a row.
	var display string
	step("01-home",
		chromedp.Navigate(base+"/"),
		text("h1", "Welcome to Tessera"),
		chromedp.Evaluate(`getComputedStyle(document.querySelector('.site-nav')).display`, &display),
	)
	if display != "flex" {
		t.Errorf("the theme's stylesheet is not applied: .site-nav display %q", display)
	}

	step("02-dutch",
		chromedp.Click(`.locales a[hreflang="nl"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`html[lang="nl"]`, chromedp.ByQuery),
		text("h1", "Welkom bij Tessera"),
		location("/nl/"),
	)

	step("03-dutch-translated-slug",
		chromedp.Navigate(base+"/nl/over-ons"),
		text("h1", "Over ons"),
		chromedp.WaitVisible(`.locales a[hreflang="en"][href="/about"]`, chromedp.ByQuery),
	)

	api(t, env, site, "PUT", "/pages/about/draft", obj{"title": "About (draft)"}, 200)
	link := str(api(t, env, site, "POST", "/pages/about/draft/preview_token", obj{}, 200).JSON, "preview_url")
	step("04-preview",
		chromedp.Navigate(base+link),
		text("h1", "About (draft)"),
		text(".preview-banner", "Preview: draft"),
	)
	step("05-visitor-sees-live",
		chromedp.Navigate(base+"/about"),
		text("h1", "About"),
	)

	step("06-members-asks-for-login",
		chromedp.Navigate(base+"/members"),
		chromedp.WaitVisible(`form.customer-login`, chromedp.ByQuery),
		location("/_customers/login?return_to=%2Fmembers"),
	)
	step("07-members-after-login",
		chromedp.SendKeys(`input[name="username"]`, demo.CustomerEmail, chromedp.ByQuery),
		chromedp.SendKeys(`input[name="password"]`, demo.CustomerPassword, chromedp.ByQuery),
		chromedp.Submit(`form.customer-login`, chromedp.ByQuery),
		chromedp.WaitVisible(`.customer`, chromedp.ByQuery),
		location("/members"),
		text("h1", "Members"),
		text(".customer", demo.CustomerEmail),
	)
	step("08-logged-out",
		chromedp.Click(`form.customer-logout button`, chromedp.ByQuery),
		chromedp.WaitVisible(`.account a[href^="/_customers/login"]`, chromedp.ByQuery),
		location("/"),
		chromedp.Navigate(base+"/members"),
		chromedp.WaitVisible(`form.customer-login`, chromedp.ByQuery),
	)

	// The listener itself works: an error logged by a page is caught.
	const probe = "tessera-console-probe"
	if err := chromedp.Run(ctx, chromedp.Evaluate(`console.error("`+probe+`")`, nil)); err != nil {
		t.Fatal(err)
	}
	caught := false
	for wait := 0; wait < 50 && !caught; wait++ {
		mu.Lock()
		for i, p := range problems {
			if strings.Contains(p, probe) {
				caught = true
				problems = append(problems[:i], problems[i+1:]...)
				break
			}
		}
		mu.Unlock()
		if !caught {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if !caught {
		t.Errorf("a console.error was not caught: the test would miss the page's own")
	}

	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("browser: %s", p)
	}
}
