// Command scaleload measures how the API's costs grow with the number of
// pages and entries: it loads two servers of the same benchmark site at
// two sizes (made by command generate) in alternating rounds, and prints,
// per endpoint, the rate and latency percentiles on each and their
// ratios; then the time of page creates, moves and deletes under a parent
// with many children against one with few, interleaved one by one on the
// larger server. With --ceiling (command ceiling serving A's page read)
// the page read row is followed by the ceiling's figures under the same
// load: the yardstick for tail latency on the machine. bench/scale.sh runs
// it.
//
//	scaleload --a http://127.0.0.1:18101 --a-site 1k.json --b http://127.0.0.1:18102 --b-site 100k.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// site is what command generate printed, and the server serving it.
type site struct {
	url         string
	ShortID     string `json:"short_id"`
	Token       string `json:"token"`
	PageID      string `json:"page_id"`
	EntryID     string `json:"entry_id"`
	Channel     string `json:"channel"`
	BigParent   string `json:"big_parent"`
	SmallParent string `json:"small_parent"`
	Pages       int    `json:"pages"`
	Entries     int    `json:"entries"`
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func main() {
	aURL := flag.String("a", "", "base URL of the smaller site's server")
	aSite := flag.String("a-site", "", "command generate's output for the smaller site")
	bURL := flag.String("b", "", "base URL of the larger site's server")
	bSite := flag.String("b-site", "", "command generate's output for the larger site")
	ceil := flag.String("ceiling", "", "base URL of a bare server answering A's page read (command ceiling)")
	conns := flag.Int("conns", 8, "concurrent connections of the read load")
	dur := flag.Duration("duration", 2*time.Second, "length of one read round on one server")
	rounds := flag.Int("rounds", 3, "read rounds per server, alternating")
	writes := flag.Int("writes", 40, "creates (then moves, then deletes) under each parent")
	flag.Parse()
	a, err := load(*aURL, *aSite)
	if err == nil {
		var b *site
		if b, err = load(*bURL, *bSite); err == nil {
			err = run(a, b, strings.TrimSuffix(*ceil, "/"), *conns, *dur, *rounds, *writes)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaleload:", err)
		os.Exit(1)
	}
}

func load(url, file string) (*site, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	s := &site{url: strings.TrimSuffix(url, "/")}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return s, nil
}

func pageGet(s *site) string    { return "/api/pages/" + s.PageID }
func compactGet(s *site) string { return "/api/pages/" + s.PageID + "?compact=1" }
func entryGet(s *site) string   { return "/api/channels/" + s.Channel + "/entries/" + s.EntryID }
func fixed(path string) func(*site) string {
	return func(*site) string { return path }
}

func run(a, b *site, ceiling string, conns int, dur time.Duration, rounds, writes int) error {
	fmt.Printf("Reads: %d connections, %d alternating rounds of %s per server; site A %d pages / %d entries, site B %d pages / %d entries.\n\n",
		conns, rounds, dur, a.Pages, a.Entries, b.Pages, b.Entries)
	fmt.Println("| Request | A req/s | A p50 | A p99 | B req/s | B p50 | B p99 | B/A p50 | B/A p99 | B p99/p50 |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	entries := func(s *site) string { return "/api/channels/" + s.Channel + "/entries" }
	page := func(n int) func(*site) string {
		return func(*site) string { return fmt.Sprintf("/api/pages?page=%d", n) }
	}
	entryPage := func(n int) func(*site) string {
		return func(s *site) string { return fmt.Sprintf("%s?page=%d", entries(s), n) }
	}
	last := func(n int) int { return (n + 24) / 25 } // 25 a page
	// Each row reads path(A) on A and path(B) on B: the same request,
	// or for deep list windows the window that is as deep in each site.
	type read struct {
		name    string
		a, b    func(*site) string
		ceiling bool // also load the ceiling server, which serves A's answer
	}
	for _, r := range []read{
		{"`GET /api/pages/{id}` (~95 KB page)", pageGet, pageGet, ceiling != ""},
		{"`GET /api/pages/{id}?compact=1`", compactGet, compactGet, false},
		{"`GET /api/pages?page=1`", page(1), page(1), false},
		{"`GET /api/pages?page=2`", page(2), page(2), false},
		{fmt.Sprintf("deep list window: A `page=%d`, B `page=400`", last(a.Pages)), page(last(a.Pages)), page(400), false},
		{fmt.Sprintf("last list window: A `page=%d`, B `page=%d`", last(a.Pages), last(b.Pages)), page(last(a.Pages)), page(last(b.Pages)), false},
		{"`GET /api/pages/count`", fixed("/api/pages/count"), fixed("/api/pages/count"), false},
		{"`GET …/entries/{id}` (25 fields)", entryGet, entryGet, false},
		{"`GET …/entries?page=1`", entryPage(1), entryPage(1), false},
		{fmt.Sprintf("deep entry window: A `page=%d`, B `page=400`", last(a.Entries)), entryPage(last(a.Entries)), entryPage(400), false},
		{fmt.Sprintf("last entry window: A `page=%d`, B `page=%d`", last(a.Entries), last(b.Entries)), entryPage(last(a.Entries)), entryPage(last(b.Entries)), false},
		{"`GET …/entries/count`", func(s *site) string { return entries(s) + "/count" }, func(s *site) string { return entries(s) + "/count" }, false},
	} {
		var la, lb, lc []time.Duration
		var ta, tb, tc time.Duration
		for range rounds {
			l, t, err := loadRound(a, r.a(a), conns, dur)
			if err != nil {
				return err
			}
			la, ta = append(la, l...), ta+t
			if l, t, err = loadRound(b, r.b(b), conns, dur); err != nil {
				return err
			}
			lb, tb = append(lb, l...), tb+t
			if r.ceiling {
				c := *a
				c.url = ceiling
				if l, t, err = loadRound(&c, r.a(a), conns, dur); err != nil {
					return err
				}
				lc, tc = append(lc, l...), tc+t
			}
		}
		slices.Sort(la)
		slices.Sort(lb)
		a50, a99, b50, b99 := pct(la, 50), pct(la, 99), pct(lb, 50), pct(lb, 99)
		fmt.Printf("| %s | %.0f | %s | %s | %.0f | %s | %s | %.2f | %.2f | %.1f |\n", r.name,
			float64(len(la))/ta.Seconds(), ms(a50), ms(a99), float64(len(lb))/tb.Seconds(), ms(b50), ms(b99),
			float64(b50)/float64(a50), float64(b99)/float64(a99), float64(b99)/float64(b50))
		if r.ceiling {
			slices.Sort(lc)
			c50, c99 := pct(lc, 50), pct(lc, 99)
			fmt.Printf("| the same bytes from a bare `net/http` handler (ceiling) | %.0f | %s | %s | | | | | | %.1f |\n",
				float64(len(lc))/tc.Seconds(), ms(c50), ms(c99), float64(c99)/float64(c50))
		}
	}
	fmt.Println()
	return treeWrites(b, writes)
}

// loadRound sends GET path to s from conns connections for dur and returns
// every request's latency and the time taken.
func loadRound(s *site, path string, conns int, dur time.Duration) ([]time.Duration, time.Duration, error) {
	if _, err := do(s, "GET", path, nil, 200); err != nil { // the first read warms the caches
		return nil, 0, err
	}
	var mu sync.Mutex
	var all []time.Duration
	var failed atomic.Value
	start := time.Now()
	deadline := start.Add(dur)
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t := time.Now()
				if _, err := do(s, "GET", path, nil, 200); err != nil {
					failed.Store(err)
					return
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return nil, 0, err
	}
	return all, time.Since(start), nil
}

// treeWrites creates, moves and deletes pages under s's big and small
// parents, one request at a time, alternating between the parents so that
// both see the same conditions.
func treeWrites(s *site, n int) error {
	if err := getJSON(s, "/api/pages/"+s.BigParent, nil); err != nil {
		return err
	}
	fmt.Printf("Tree writes on site B, one request at a time, %d of each under each parent, interleaved.\n\n", n)
	fmt.Println("| Write | under big parent p50 | under small parent p50 | big/small p50 | big mean | small mean | big/small mean |")
	fmt.Println("|---|---|---|---|---|---|---|")
	prefix := fmt.Sprintf("w%d", time.Now().UnixNano())
	var underBig, underSmall []string
	var cb, cs []time.Duration
	for i := range n {
		for _, big := range []bool{i%2 == 0, i%2 != 0} {
			parent, list, times := s.SmallParent, &underSmall, &cs
			if big {
				parent, list, times = s.BigParent, &underBig, &cb
			}
			body, _ := json.Marshal(map[string]any{"title": "Scale write", "slug": fmt.Sprintf("%s-%d-%v", prefix, i, big), "parent": parent})
			t := time.Now()
			out, err := do(s, "POST", "/api/pages", body, 201)
			if err != nil {
				return err
			}
			*times = append(*times, time.Since(t))
			var p struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(out, &p); err != nil || p.ID == "" {
				return fmt.Errorf("create: no id in %.200s", out)
			}
			*list = append(*list, p.ID)
		}
	}
	row("create", cb, cs)
	// Moves: what was made under one parent goes under the other.
	var mb, msm []time.Duration
	for i := range n {
		for _, intoBig := range []bool{i%2 == 0, i%2 != 0} {
			id, parent, times := underBig[i], s.SmallParent, &msm
			if intoBig {
				id, parent, times = underSmall[i], s.BigParent, &mb
			}
			body, _ := json.Marshal(map[string]any{"parent": parent})
			t := time.Now()
			if _, err := do(s, "PUT", "/api/pages/"+id, body, 200); err != nil {
				return err
			}
			*times = append(*times, time.Since(t))
		}
	}
	row("move (`PUT` parent) into", mb, msm)
	var db, ds []time.Duration
	for i := range n {
		for _, inBig := range []bool{i%2 == 0, i%2 != 0} {
			id, times := underBig[i], &ds // now under the small parent
			if inBig {
				id, times = underSmall[i], &db
			}
			t := time.Now()
			if _, err := do(s, "DELETE", "/api/pages/"+id, nil, 204); err != nil {
				return err
			}
			*times = append(*times, time.Since(t))
		}
	}
	row("delete", db, ds)
	return nil
}

func row(name string, big, small []time.Duration) {
	slices.Sort(big)
	slices.Sort(small)
	b50, s50 := pct(big, 50), pct(small, 50)
	bm, sm := mean(big), mean(small)
	fmt.Printf("| %s | %s | %s | %.2f | %s | %s | %.2f |\n", name, ms(b50), ms(s50), float64(b50)/float64(s50),
		ms(bm), ms(sm), float64(bm)/float64(sm))
}

// do sends one request and checks its status.
func do(s *site, method, path string, body []byte, want int) ([]byte, error) {
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("X-Service-Site", s.ShortID)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != want && !(want == 204 && res.StatusCode == 200) {
		return nil, fmt.Errorf("%s %s: status %d, want %d: %.300s", method, path, res.StatusCode, want, out)
	}
	return out, nil
}

func getJSON(s *site, path string, v any) error {
	out, err := do(s, "GET", path, nil, 200)
	if err != nil || v == nil {
		return err
	}
	return json.Unmarshal(out, v)
}

// pct returns the p-th percentile of sorted.
func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func mean(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	return sum / time.Duration(len(d))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
