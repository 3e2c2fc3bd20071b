// Command crashtest kills a Tessera server with SIGKILL under a mixed write
// load, again and again, and checks after each restart that every write
// the server acknowledged is there: page PUTs and batch edits, publishes,
// entry creates and uploads (with their bytes). At the end it checks the
// SQLite database's integrity and that every upload's blob exists.
//
//	go run ./scripts/crashtest [-kills 100] [-writers 8]
//
// It builds the tessera binary, runs it on a fresh data directory on a
// free port, and prints its figures; a lost write fails it (exit 1).
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "modernc.org/sqlite"
)

type state struct {
	mu sync.Mutex
	// acked[page] is the last seo_title the server acknowledged for the
	// page; tried[page] the ones sent since without an answer (the kill may
	// have come after the commit and before the answer, so any of them
	// may be stored).
	acked     map[string]string
	tried     map[string][]string
	published map[string]bool // acknowledged publish state
	pubTried  map[string][]bool
	entries   []string // acknowledged entry ids
	uploads   map[string][]byte
	writes    int
}

var (
	client = &http.Client{Timeout: 10 * time.Second}
	base   string
	token  string
)

func main() {
	kills := flag.Int("kills", 100, "how many times to kill the server")
	writers := flag.Int("writers", 8, "concurrent writers")
	flag.Parse()
	dir, err := os.MkdirTemp("", "tessera-crash-")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "tessera")
	run("go", "build", "-o", bin, "./cmd/tessera")
	data := filepath.Join(dir, "data")
	out, err := exec.Command(bin, "demo", "--data", data, "--json").Output()
	check(err)
	var demo struct{ Token string }
	check(json.Unmarshal(out, &demo))
	token = demo.Token
	addr := freeAddr()
	base = "http://" + addr + "/api"

	srv := start(bin, data, addr)
	st := &state{acked: map[string]string{}, tried: map[string][]string{}, published: map[string]bool{},
		pubTried: map[string][]bool{}, uploads: map[string][]byte{}}
	pages := make([]string, *writers)
	for i := range pages {
		var p struct{ ID string }
		mustJSON("POST", "/pages", fmt.Sprintf(`{"title":"Crash %d","template":"page"}`, i), &p)
		pages[i] = p.ID
		st.published[p.ID] = true
	}
	lost := 0
	for k := 1; k <= *kills; k++ {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range *writers {
			wg.Add(1)
			go func() { defer wg.Done(); write(ctx, st, pages[w], w) }()
		}
		time.Sleep(time.Duration(100+rand.IntN(900)) * time.Millisecond)
		check(srv.Process.Signal(syscall.SIGKILL))
		_ = srv.Wait()
		cancel()
		wg.Wait()
		srv = start(bin, data, addr)
		lost += verify(st)
	}
	check(srv.Process.Signal(syscall.SIGTERM))
	_ = srv.Wait()
	integrity := checkStore(data, st)
	fmt.Printf("crashtest: %d kills, %d acknowledged writes, %d lost, integrity %s\n", *kills, st.writes, lost, integrity)
	if lost > 0 || integrity != "ok" {
		os.Exit(1)
	}
}

// write sends writes of every kind until ctx ends, recording what the
// server acknowledged.
func write(ctx context.Context, st *state, page string, w int) {
	for n := 0; ctx.Err() == nil; n++ {
		v := fmt.Sprintf("w%d-%d-%d", w, n, rand.Int())
		switch n % 5 {
		case 0, 1: // PUT and batch of the page's seo_title
			st.mu.Lock()
			st.tried[page] = append(st.tried[page], v)
			st.mu.Unlock()
			var err error
			if n%5 == 0 {
				err = do("PUT", "/pages/"+page, `{"seo_title":"`+v+`"}`, nil)
			} else {
				err = do("POST", "/pages/"+page+"/batch", `{"operations":[{"op":"set","path":"/seo_title","value":"`+v+`"}]}`, nil)
			}
			if err == nil {
				st.mu.Lock()
				st.acked[page], st.tried[page], st.writes = v, nil, st.writes+1
				st.mu.Unlock()
			}
		case 2: // publish or unpublish
			st.mu.Lock()
			want := !st.published[page]
			st.pubTried[page] = append(st.pubTried[page], want)
			st.mu.Unlock()
			action := "unpublish"
			if want {
				action = "publish"
			}
			if do("POST", "/pages/"+page+"/"+action, "", nil) == nil {
				st.mu.Lock()
				st.published[page], st.pubTried[page], st.writes = want, nil, st.writes+1
				st.mu.Unlock()
			}
		case 3: // an entry
			var e struct{ ID string }
			if do("POST", "/channels/articles/entries", `{"title":"`+v+`"}`, &e) == nil {
				st.mu.Lock()
				st.entries, st.writes = append(st.entries, e.ID), st.writes+1
				st.mu.Unlock()
			}
		case 4: // an upload
			data := []byte(v + "\n")
			body := fmt.Sprintf(`{"source":{"__type":"File","filename":"%s.txt","attachment":"%s"}}`, v, base64.StdEncoding.EncodeToString(data))
			var u struct{ ID string }
			if do("POST", "/uploads", body, &u) == nil {
				st.mu.Lock()
				st.uploads[u.ID], st.writes = data, st.writes+1
				st.mu.Unlock()
			}
		}
	}
}

// verify checks every acknowledged write after a restart and returns how
// many are missing; it then takes the stored state as the new baseline.
func verify(st *state) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	lost := 0
	for page, want := range st.acked {
		var p struct {
			SEOTitle  string `json:"seo_title"`
			Published bool   `json:"published"`
		}
		mustJSON("GET", "/pages/"+page, "", &p)
		if p.SEOTitle != want && !slices.Contains(st.tried[page], p.SEOTitle) {
			fmt.Printf("LOST: page %s seo_title %q, acknowledged %q\n", page, p.SEOTitle, want)
			lost++
		}
		st.acked[page], st.tried[page] = p.SEOTitle, nil
		if p.Published != st.published[page] && !slices.Contains(st.pubTried[page], p.Published) {
			fmt.Printf("LOST: page %s published %v, acknowledged %v\n", page, p.Published, st.published[page])
			lost++
		}
		st.published[page], st.pubTried[page] = p.Published, nil
	}
	for _, id := range st.entries {
		if do("GET", "/channels/articles/entries/"+id, "", nil) != nil {
			fmt.Printf("LOST: entry %s\n", id)
			lost++
		}
	}
	st.entries = st.entries[:0]
	for id, data := range st.uploads {
		var u struct{ URL string }
		if do("GET", "/uploads/"+id, "", &u) != nil {
			fmt.Printf("LOST: upload %s\n", id)
			lost++
			continue
		}
		// File URLs name the site's host (<short_id>.localhost); fetch the
		// same path from the server's address.
		_, path, _ := strings.Cut(u.URL, "/files/")
		res, err := client.Get(strings.TrimSuffix(base, "/api") + "/files/" + path)
		if err != nil {
			fmt.Printf("LOST: upload %s bytes: %v\n", id, err)
			lost++
			continue
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !bytes.Equal(got, data) {
			fmt.Printf("LOST: upload %s bytes differ\n", id)
			lost++
		}
	}
	clear(st.uploads)
	return lost
}

// checkStore runs SQLite's integrity check and checks that every upload's
// blob file exists.
func checkStore(data string, st *state) string {
	db, err := sql.Open("sqlite", filepath.Join(data, "tessera.db"))
	check(err)
	defer db.Close()
	var res string
	check(db.QueryRow(`PRAGMA integrity_check`).Scan(&res))
	rows, err := db.Query(`SELECT blob_key FROM uploads`)
	check(err)
	defer rows.Close()
	for rows.Next() {
		var key string
		check(rows.Scan(&key))
		if _, err := os.Stat(filepath.Join(data, "files", key)); err != nil {
			return "missing blob " + key
		}
	}
	return res
}

func start(bin, data, addr string) *exec.Cmd {
	cmd := exec.Command(bin, "serve", "--data", data, "--addr", addr, "--rate-limit", "0", "--rate-limit-token", "0", "--max-client-conns", "0")
	cmd.Stderr = io.Discard
	check(cmd.Start())
	for i := 0; i < 300; i++ {
		if res, err := client.Get("http://" + addr + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return cmd
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	panic("the server did not start")
}

func do(method, path, body string, out any) error {
	req, err := http.NewRequest(method, base+path, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("If-Match", "*")
	req.Header.Set("X-Service-Site", "demo")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

func mustJSON(method, path, body string, out any) { check(do(method, path, body, out)) }

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer l.Close()
	return l.Addr().String()
}

func run(name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	check(cmd.Run())
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
