package editortest_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tessera-cms/tessera/internal/apitest"
	"github.com/tessera-cms/tessera/internal/demo"
	"github.com/tessera-cms/tessera/internal/store"
	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// editorPassword is the demo admin's password in the editor's tests.
const editorPassword = "correct horse battery"

// expected is an answer a journey expects to fail: the method, a pattern
// of the URL and the status. Any other failed request fails the test.
type expected struct {
	method string
	url    *regexp.Regexp
	status int64
}

// browser is headless Chromium on the editor of one server, with a
// watch on the console and on every request.
type browser struct {
	t         *testing.T
	ctx       context.Context
	base      string // the editor's origin, http://127.0.0.1:<port>
	site      string // the public site's origin, http://www.localhost:<port>
	artifacts string
	shots     int

	mu       sync.Mutex
	problems []string
	expect   []expected
	offline  bool // requests that fail while the network is off are expected
	requests map[network.RequestID]*network.Request
}

// chromium returns Chromium's path, or skips the test (fails it with
// TESSERA_REQUIRE_BROWSER=1).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("TESSERA_REQUIRE_BROWSER") == "1" {
		t.Fatal("Chromium is not installed, and TESSERA_REQUIRE_BROWSER=1")
	}
	t.Skip("Chromium is not installed (apt-get install chromium)")
	return ""
}

// newBrowser starts Chromium at 1280×800 for env's server. Screenshots go
// to $TESSERA_ARTIFACTS/editor/<test name>.
func newBrowser(t *testing.T, env *apitest.Env) *browser {
	t.Helper()
	return newBrowserIn(t, env, "editor")
}

// newBrowserIn is newBrowser with its screenshots in
// $TESSERA_ARTIFACTS/<dir>/<test name>.
func newBrowserIn(t *testing.T, env *apitest.Env, dir string) *browser {
	t.Helper()
	bin := chromium(t)
	if testing.Short() {
		t.Skip("-short")
	}
	u, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
	artifacts := filepath.Join(os.Getenv("TESSERA_ARTIFACTS"), dir, name)
	if os.Getenv("TESSERA_ARTIFACTS") == "" {
		artifacts = t.TempDir()
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, base: "http://127.0.0.1:" + u.Port(), site: "http://www.localhost:" + u.Port(),
		artifacts: artifacts, requests: map[network.RequestID]*network.Request{}}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox,
		chromedp.Flag("host-resolver-rules", "MAP *.localhost 127.0.0.1"),
		chromedp.WindowSize(1280, 800),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	b.ctx = ctx
	chromedp.ListenTarget(ctx, b.listen)
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 800), log.Enable(), runtime.Enable(), network.Enable()); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	// Allow every expected failure of a fresh load: the session probe
	// answers 401 before anyone signed in.
	b.allow("GET", `/api/auth/session$`, 401)
	t.Cleanup(b.report)
	return b
}

func (b *browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeAssert || ev.Type == runtime.APITypeWarning {
			var args []string
			for _, a := range ev.Args {
				if a.Value != nil {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			b.problems = append(b.problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+ev.ExceptionDetails.Error())
	case *log.EventEntryAdded:
		// Network errors are judged by the request listener below, which
		// knows which answers a journey expects.
		if ev.Entry.Level == log.LevelError && ev.Entry.Source != log.SourceNetwork {
			where := ev.Entry.URL
			if st := ev.Entry.StackTrace; st != nil && len(st.CallFrames) > 0 {
				f := st.CallFrames[0]
				where = fmt.Sprintf("%s:%d (%s)", f.URL, f.LineNumber+1, f.FunctionName)
			}
			b.problems = append(b.problems, "log: "+ev.Entry.Text+" at "+where)
		}
	case *network.EventRequestWillBeSent:
		b.requests[ev.RequestID] = ev.Request
	case *network.EventResponseReceived:
		if ev.Response.Status >= 400 {
			method := "GET"
			if r := b.requests[ev.RequestID]; r != nil {
				method = r.Method
			}
			if !b.expected(method, ev.Response.URL, ev.Response.Status) {
				b.problems = append(b.problems, fmt.Sprintf("request failed: %s %s → %d", method, ev.Response.URL, ev.Response.Status))
			}
		}
	case *network.EventLoadingFailed:
		// A navigation that replaced a loading frame (the preview reloads
		// after each save) is canceled, not failed.
		if b.offline && ev.ErrorText == "net::ERR_INTERNET_DISCONNECTED" {
			break
		}
		if !ev.Canceled && ev.BlockedReason == "" {
			r := b.requests[ev.RequestID]
			where := ""
			if r != nil {
				where = r.Method + " " + r.URL
			}
			b.problems = append(b.problems, "request failed: "+where+": "+ev.ErrorText)
		} else if ev.BlockedReason != "" {
			b.problems = append(b.problems, "request blocked: "+string(ev.BlockedReason))
		}
	}
}

// setOffline cuts the browser's network (or restores it); requests that
// fail meanwhile are what the journey expects.
func (b *browser) setOffline(off bool) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		b.mu.Lock()
		if off {
			b.offline = true
		}
		b.mu.Unlock()
		return network.EmulateNetworkConditions(off, 0, -1, -1).Do(ctx)
	})
}

// allow declares an answer the journey expects (method, URL pattern, status).
func (b *browser) allow(method, pattern string, status int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.expect = append(b.expect, expected{method, regexp.MustCompile(pattern), status})
}

func (b *browser) expected(method, u string, status int64) bool {
	for _, e := range b.expect {
		if e.method == method && e.status == status && e.url.MatchString(u) {
			return true
		}
	}
	return false
}

// report fails the test on the console errors and failed requests seen.
func (b *browser) report() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("browser: %s", p)
	}
}

// run runs actions, failing the test with what on error.
func (b *browser) run(what string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.shot("failed-" + strings.ReplaceAll(what, " ", "-"))
		b.mu.Lock()
		problems := strings.Join(b.problems, "\n")
		b.mu.Unlock()
		b.t.Fatalf("%s: %v\n%s", what, err, problems)
	}
}

// step runs actions and saves a screenshot named after the step.
func (b *browser) step(name string, actions ...chromedp.Action) {
	b.t.Helper()
	b.run(name, actions...)
	b.shot(name)
}

func (b *browser) shot(name string) {
	b.t.Helper()
	var png []byte
	if err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	b.shots++
	file := filepath.Join(b.artifacts, fmt.Sprintf("%02d-%s.png", b.shots, name))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// eval returns the value of a JavaScript expression.
func (b *browser) eval(expr string, out any) chromedp.Action {
	return chromedp.Evaluate(expr, out)
}

// waitJS waits until a JavaScript expression is true (up to 10 s).
func waitJS(expr string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		deadline := time.Now().Add(10 * time.Second)
		for {
			var ok bool
			if err := chromedp.Evaluate("!!("+expr+")", &ok).Do(ctx); err != nil {
				return err
			}
			if ok {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("still false after 10 s: %s", expr)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// textIs checks the trimmed text of the first element sel matches.
func textIs(sel, want string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var got string
		if err := chromedp.Text(sel, &got, chromedp.ByQuery).Do(ctx); err != nil {
			return err
		}
		if strings.TrimSpace(got) != want {
			return fmt.Errorf("%s: got %q, want %q", sel, strings.TrimSpace(got), want)
		}
		return nil
	})
}

// textHas waits until the text of sel contains want.
func textHas(sel, want string) chromedp.Action {
	return waitJS(fmt.Sprintf(`(document.querySelector(%q)||{}).textContent && document.querySelector(%q).textContent.includes(%q)`, sel, sel, want))
}

// saved waits until the editor says everything is saved.
func saved() chromedp.Action {
	return waitJS(`document.querySelector('.status.status-saved')`)
}

func key(k string, mods ...input.Modifier) chromedp.Action {
	var m input.Modifier
	for _, x := range mods {
		m |= x
	}
	return chromedp.KeyEvent(k, chromedp.KeyModifiers(m))
}

// click clicks the first element sel matches.
func click(sel string) chromedp.Action { return againIfRedrawn(chromedp.Click(sel, chromedp.ByQuery)) }

// typeInto focuses sel and types text.
func typeInto(sel, text string) chromedp.Action {
	return againIfRedrawn(chromedp.SendKeys(sel, text, chromedp.ByQuery))
}

// againIfRedrawn runs a, and runs it again when the element it found was
// replaced before a could act on it: a screen drawn twice in a row (a
// route, then the answer it waited for) swaps its nodes between
// chromedp's query and its click, which a person's click never notices.
func againIfRedrawn(a chromedp.Action) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for try := 1; ; try++ {
			err := a.Do(ctx)
			if err == nil || try == 5 || !strings.Contains(err.Error(), "Could not find node with given id") {
				return err
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// selectAll selects the whole text of the element sel matches (an input,
// or a contenteditable region), as a user's Ctrl+A in it would.
func selectAll(sel string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const el = document.querySelector(%q); el.focus();
		if (el.select) el.select(); else document.execCommand('selectAll'); })()`, sel), nil)
}

// button finds a button by its text (inside an open dialog when dlg).
func button(text string, dlg bool) string {
	scope := "//"
	if dlg {
		scope = "//dialog[@open]//"
	}
	return fmt.Sprintf(`%sbutton[normalize-space(.)=%q]`, scope, text)
}

// clickButton clicks a button by its text. In a dialog, it presses the
// button once it is shown (a mouse click aimed while a modal dialog is
// still being laid out can miss it), and waits for that to be seen.
func clickButton(text string, dlg bool) chromedp.Action {
	if !dlg {
		return chromedp.Click(button(text, dlg), chromedp.BySearch)
	}
	return chromedp.Tasks{
		chromedp.WaitVisible(button(text, dlg), chromedp.BySearch),
		chromedp.Evaluate(fmt.Sprintf(`(() => { const d = document.querySelector('dialog[open]'); window.pressedDialog = d;
			const b = [...d.querySelectorAll('button')].find(b => b.textContent.trim() === %q); b.focus(); b.click(); })()`, text), nil),
		// What the button does runs once the dialog has closed (and focus
		// went back where it was): wait for that before the next step.
		waitJS(`!window.pressedDialog.open && !window.pressedDialog.isConnected`),
		chromedp.Sleep(50 * time.Millisecond),
	}
}

// grantEditor makes ed@example.com an editor of site, with editorPassword.
func grantEditor(t *testing.T, env *apitest.Env, site *store.Site) {
	t.Helper()
	ctx := context.Background()
	if _, err := env.Auth.Grant(ctx, site.ID, "ed@example.com", "Ed Itor", store.RoleEditor); err != nil {
		t.Fatal(err)
	}
	if err := env.Auth.SetPassword(ctx, "ed@example.com", editorPassword); err != nil {
		t.Fatal(err)
	}
}

// signIn opens the editor and signs in as the demo admin.
func (b *browser) signIn() {
	b.t.Helper()
	b.run("sign in",
		chromedp.Navigate(b.base+"/admin/"),
		chromedp.WaitVisible(`input[name="email"]`, chromedp.ByQuery),
		typeInto(`input[name="email"]`, demo.AdminEmail),
		typeInto(`input[name="password"]`, editorPassword),
		click(`form button[type="submit"]`),
		chromedp.WaitVisible(`.topbar`, chromedp.ByQuery),
	)
}

// editorEnv is a demo site (all of the demo's pages and entries) whose
// admin has a password.
func editorEnv(t *testing.T, b storetest.Backend) (*apitest.Env, *store.Site) {
	t.Helper()
	env := apitest.New(t, b, apitest.WithPublicPort())
	// The browser keeps real time: a session cookie that expires at the
	// fixed clock's hour would be gone before it is set.
	env.Clock.Set(time.Now())
	res, err := demo.Create(context.Background(), demo.Services{Sites: env.Sites, Themes: env.Themes, Auth: env.Auth,
		Pages: env.Pages, Entries: env.Entries, Customers: env.Customers}, "www")
	if err != nil {
		t.Fatalf("create demo site: %v", err)
	}
	env.Tokens["www"] = res.Token
	site := res.Site
	if err := env.Auth.SetPassword(context.Background(), demo.AdminEmail, editorPassword); err != nil {
		t.Fatal(err)
	}
	return env, site
}

// nodeCount counts the elements sel matches.
func nodeCount(sel string, n *int) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`document.querySelectorAll(%q).length`, sel), n)
}
