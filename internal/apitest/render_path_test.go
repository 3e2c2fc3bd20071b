package apitest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tessera-cms/tessera/internal/store/storetest"
)

// TestColdRenderOneTransaction checks that a public page the render cache
// does not hold (a query string not seen before, or the page written
// since) is read in one read transaction: the site's check, the page, the
// theme's stamp, and everything its templates read (references, channels,
// menus, translations). Before, the demo's home page took nine.
func TestColdRenderOneTransaction(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			var counted *storetest.Counting
			env, site := steadyEnv(t, b, &counted)
			cold := func(path string) {
				t.Helper()
				v, u := counted.Views.Load(), counted.Updates.Load()
				res := visit(t, env, path)
				wantStatus(t, res, 200)
				if dv, du := counted.Views.Load()-v, counted.Updates.Load()-u; dv != 1 || du != 0 {
					t.Errorf("%s: %d read and %d write transactions, want 1 and 0", path, dv, du)
				}
			}
			paths := []string{"/", "/nl/", "/blog", "/blog?topic=Product", "/about", "/nl/over-ons"}
			for _, p := range paths {
				visit(t, env, p) // the host and the compiled theme, as on a server that served a while
			}
			for n := range 3 {
				for _, p := range paths {
					sep := "?"
					if strings.Contains(p, "?") {
						sep = "&"
					}
					cold(p + sep + fmt.Sprintf("n=%d", n))
				}
			}
			// A write to the page: its cached render is checked and found
			// stale in the same transaction it is rendered again in.
			wantContains(t, visit(t, env, "/about"), "<h1>")
			api(t, env, site, "PUT", "/pages/about", obj{"title": "About us, again"}, 200)
			cold("/about")
			wantContains(t, visit(t, env, "/about"), "About us, again")
		})
	}
}
