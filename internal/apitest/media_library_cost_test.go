package apitest_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apitest"
)

// TestMediaLibraryScanCost measures GET /api/files over 1,000 entries that
// each hold a file and a two-image gallery (docs/api.md, "The media
// library"). It logs the figures and asserts nothing on time; it runs only
// with TESSERA_MEASURE=1, as it writes 3,000 files.
func TestMediaLibraryScanCost(t *testing.T) {
	if os.Getenv("TESSERA_MEASURE") == "" {
		t.Skip("set TESSERA_MEASURE=1 to measure")
	}
	eachBackend(t, func(t *testing.T, env *apitest.Env) {
		pic := base64.StdEncoding.EncodeToString(testPNG(t, 4, 3))
		upload := func(name string) obj { return obj{"__type": "File", "filename": name, "attachment": pic} }
		mustStatus(t, env, "POST", "/channels", obj{"name": "Albums", "customizations": []obj{
			{"name": "cover", "type": "file"}, {"name": "photos", "type": "gallery"}}}, http.StatusCreated)
		for i := range 1000 {
			mustStatus(t, env, "POST", "/channels/albums/entries", obj{"cover": upload(fmt.Sprintf("c%d.png", i)),
				"photos": obj{"__type": "Gallery", "images": []obj{
					{"__type": "GalleryImage", "file": upload(fmt.Sprintf("a%d.png", i))}, {"__type": "GalleryImage", "file": upload(fmt.Sprintf("b%d.png", i))}}}},
				http.StatusCreated)
		}
		for _, path := range []string{"/files?per_page=48", "/files?per_page=48&q=c99", "/files?per_page=48&page=60"} {
			const runs = 10
			start := time.Now()
			for range runs {
				res := env.Do(t, apitest.Scenario{Path: path})
				if res.Status != 200 || res.Header.Get("X-Total-Count") == "" {
					t.Fatalf("GET %s: %d %s", path, res.Status, res.Raw)
				}
			}
			t.Logf("GET %s over 1,000 entries (3,000 held files): %v a request (mean of %d)", path, time.Since(start)/runs, runs)
		}
	})
}
