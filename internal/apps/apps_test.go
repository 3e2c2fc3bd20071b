package apps_test

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/tessera-cms/tessera/internal/apps"
)

func TestMatchRoute(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          map[string]string // nil: no match
	}{
		{"/static", "/static", map[string]string{}},
		{"/static", "/static/", map[string]string{}},
		{"/static", "/other", nil},
		{"/a/:id", "/a/42", map[string]string{"id": "42"}},
		{"/a/:id", "/a/Bo%20b", map[string]string{"id": "Bo b"}},
		{"/a/:id", "/a", nil},
		{"/a/:id", "/a/1/2", nil},
		{"/a/:id/b/:n", "/a/x/b/y", map[string]string{"id": "x", "n": "y"}},
		{"/w/*rest", "/w/a/b/c", map[string]string{"rest": "a/b/c"}},
		{"/w/*rest", "/w", nil},
		{"/", "/", map[string]string{}},
		{"/", "/x", nil},
	} {
		got, ok := apps.MatchRoute(c.pattern, c.path)
		if ok != (c.want != nil) || (ok && !maps.Equal(got, c.want)) {
			t.Errorf("matchRoute(%q, %q) = %v, %v; want %v", c.pattern, c.path, got, ok, c.want)
		}
	}
}

func TestRoutePatternError(t *testing.T) {
	for pattern, bad := range map[string]bool{"/a/:id": false, "/w/*rest": false, "/w/*rest/x": true, "/a/:": true, "/*": true} {
		if err := apps.RoutePatternError(pattern); (err != nil) != bad {
			t.Errorf("routePatternError(%q) = %v, want error %v", pattern, err, bad)
		}
	}
}

func TestParseTiming(t *testing.T) {
	now := time.Date(2026, 9, 10, 14, 31, 12, 0, time.UTC)
	at := time.Date(2026, 12, 24, 18, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		timing map[string]any
		every  string
		next   time.Time
		err    string
	}{
		{"now", nil, "", now, ""},
		{"empty", map[string]any{}, "", now, ""},
		{"at Date", map[string]any{"at": at}, "", at, ""},
		{"at text", map[string]any{"at": "2026-12-24T18:00:00Z"}, "", at, ""},
		{"in minutes", map[string]any{"in": "30m"}, "", now.Add(30 * time.Minute), ""},
		{"in hours", map[string]any{"in": " 2h "}, "", now.Add(2 * time.Hour), ""},
		{"every", map[string]any{"every": "0 3 * * *"}, "0 3 * * *", time.Date(2026, 9, 11, 3, 0, 0, 0, time.UTC), ""},
		{"bad at", map[string]any{"at": "tomorrow"}, "", time.Time{}, "not a date"},
		{"bad in", map[string]any{"in": "30d"}, "", time.Time{}, "not a duration"},
		{"six fields", map[string]any{"every": "0 0 3 * * *"}, "", time.Time{}, "5-field"},
		{"two", map[string]any{"in": "1h", "every": "0 3 * * *"}, "", time.Time{}, "one of"},
		{"unknown", map[string]any{"when": "now"}, "", time.Time{}, "unknown timing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			every, next, err := apps.ParseTiming(c.timing, now)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %v, want an error containing %q", err, c.err)
				}
				return
			}
			if err != nil || every != c.every || !next.Equal(c.next) {
				t.Errorf("got %q %v %v, want %q %v", every, next, err, c.every, c.next)
			}
		})
	}
}

func TestJobBackoff(t *testing.T) {
	want := []time.Duration{2 * time.Second, 8 * time.Second, 32 * time.Second, 128 * time.Second}
	for i, w := range want {
		if got := apps.JobBackoff(i + 1); got != w {
			t.Errorf("backoff after attempt %d: got %v, want %v", i+1, got, w)
		}
	}
}

// FuzzMatchRoute: no pattern or path makes the matcher panic, and a match
// names every parameter of the pattern.
func FuzzMatchRoute(f *testing.F) {
	f.Add("/a/:id", "/a/1")
	f.Add("/w/*rest", "/w/a/b")
	f.Add("/", "//")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if apps.RoutePatternError(pattern) != nil {
			return
		}
		params, ok := apps.MatchRoute(pattern, path)
		if !ok {
			return
		}
		for _, seg := range strings.Split(strings.Trim(pattern, "/"), "/") {
			if name, isParam := strings.CutPrefix(seg, ":"); isParam {
				if _, found := params[name]; !found {
					t.Errorf("match of %q on %q lacks %q: %v", pattern, path, name, params)
				}
			}
		}
	})
}

// FuzzParseTiming: no timing text makes the parser panic, and an accepted
// timing fires no earlier than now (cron, in) or at the time given (at).
func FuzzParseTiming(f *testing.F) {
	f.Add("in", "30m")
	f.Add("every", "*/5 * * * *")
	f.Add("at", "2026-12-24T18:00:00Z")
	now := time.Date(2026, 9, 10, 14, 31, 12, 0, time.UTC)
	f.Fuzz(func(t *testing.T, key, value string) {
		every, next, err := apps.ParseTiming(map[string]any{key: value}, now)
		if err != nil || key == "at" {
			return
		}
		if next.Before(now) || (key == "every" && every != value) {
			t.Errorf("%s %q: next %v, every %q", key, value, next, every)
		}
	})
}
