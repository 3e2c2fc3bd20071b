// Command ceiling is the bare net/http server Tessera's read paths are
// measured against: it fetches one answer from a running Tessera (or any
// URL) once, then serves exactly those bytes and headers from memory for
// every request, doing no other work. What it serves per second on a
// machine is the ceiling for an answer of that size there.
//
//	ceiling --addr 127.0.0.1:9090 --from http://127.0.0.1:8080/api/pages/ID -H 'Authorization: Bearer …'
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
)

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	addr := flag.String("addr", "127.0.0.1:9090", "address to listen on")
	from := flag.String("from", "", "URL whose answer is served")
	var hdr headers
	flag.Var(&hdr, "H", "request header for the fetch, 'Name: value' (repeatable)")
	flag.Parse()
	if *from == "" {
		fmt.Fprintln(os.Stderr, "ceiling: --from is required")
		os.Exit(2)
	}
	req, err := http.NewRequest("GET", *from, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hdr {
		k, v, _ := strings.Cut(h, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if strings.EqualFold(k, "Host") {
			// net/http sends req.Host, never a Host header: a public page
			// is fetched by its site's host name.
			req.Host = v
			continue
		}
		req.Header.Add(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		log.Fatalf("ceiling: GET %s: status %d, %v", *from, res.StatusCode, err)
	}
	// The answer's own headers (Content-Length too, when it sent one), minus
	// those net/http sets per response.
	keep := http.Header{}
	for k, v := range res.Header {
		switch k {
		case "Date", "Connection", "Transfer-Encoding":
		default:
			keep[k] = v
		}
	}
	log.Printf("ceiling: serving %d bytes from %s on %s", len(body), *from, *addr)
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range keep {
			w.Header()[k] = v
		}
		_, _ = w.Write(body)
	})))
}
