// Package cluster runs Tessera as a scale-out deployment, for tests: several
// `tessera serve` processes (the binary, built once with `go build`) on one
// PostgreSQL schema, one Redis and one S3-compatible bucket (an in-process
// fake), behind a round-robin reverse proxy. A test can kill a process with
// SIGKILL, as a crash would, and keep using the others through the proxy.
package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Config is the deployment to start; DatabaseURL and RedisURL are required.
type Config struct {
	// Processes is how many `tessera serve` run; zero means 3.
	Processes int
	// DatabaseURL is the PostgreSQL URL every process opens (with a
	// search_path of its own, as storetest.PostgresDSN gives).
	DatabaseURL string
	// RedisURL is the Redis every process shares.
	RedisURL string
	// RedisPrefix is put before every Redis key the processes use; empty
	// means a random one, so that clusters sharing one Redis stay apart.
	RedisPrefix string
	// Args are more `tessera serve` flags, given to every process, after
	// the defaults (no API rate or connection limits).
	Args []string
}

// Cluster is a running deployment.
type Cluster struct {
	// URL is the proxy's base URL (no trailing slash): requests to it go to
	// the processes in turn.
	URL string
	// BlobURL is the bucket the processes keep file bytes in.
	BlobURL string
	// RedisPrefix is the prefix of the processes' Redis keys.
	RedisPrefix string
	// Procs are the processes, in the proxy's order.
	Procs []*Process

	next atomic.Uint64
}

// Process is one `tessera serve`.
type Process struct {
	// Addr is its listen address, host:port.
	Addr string
	// Served counts the requests the proxy had it answer.
	Served atomic.Int64

	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	killed  atomic.Bool
	// downUntil (unix nanoseconds) is when the proxy tries it again after a
	// refused connection.
	downUntil atomic.Int64
}

// Start builds the binary (once per test binary), starts the fake bucket,
// the processes and the proxy, and waits until every process answers
// /healthz. Everything stops when tb ends.
func Start(tb testing.TB, cfg Config) *Cluster {
	tb.Helper()
	bin := Binary(tb)
	if cfg.Processes == 0 {
		cfg.Processes = 3
	}
	c := &Cluster{RedisPrefix: cfg.RedisPrefix, BlobURL: FakeS3(tb)}
	if c.RedisPrefix == "" {
		c.RedisPrefix = "tessera-cluster:" + rand.Text() + ":"
	}
	ps := httptest.NewServer(c)
	tb.Cleanup(ps.Close)
	c.URL = ps.URL

	dir := tb.TempDir()
	for i := range cfg.Processes {
		p := &Process{Addr: freeAddr(tb), logPath: filepath.Join(dir, fmt.Sprintf("serve-%d.log", i)), exited: make(chan struct{})}
		data := filepath.Join(dir, fmt.Sprintf("data-%d", i))
		args := append([]string{"serve", "--addr", p.Addr, "--data", data, "--database", cfg.DatabaseURL,
			"--redis", cfg.RedisURL, "--redis-prefix", c.RedisPrefix, "--blob", c.BlobURL,
			// Every process makes the same public URLs, whatever its port (the
			// ones a server with no public URL and no port makes).
			"--public-url", "http://{site}.localhost",
			// Every request comes from the proxy, on loopback, which the
			// servers limit like any client: the tests set the limits they
			// test (cfg.Args come after, and win).
			"--rate-limit", "0", "--rate-limit-token", "0", "--max-client-conns", "0"}, cfg.Args...)
		p.cmd = exec.Command(bin, args...)
		dieWithParent(p.cmd)
		// No TESSERA_FILES_SECRET: the processes share the one in Redis.
		p.cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TESSERA_FILES_SECRET=") })
		logf, err := os.Create(p.logPath)
		if err != nil {
			tb.Fatal(err)
		}
		p.cmd.Stdout, p.cmd.Stderr = logf, logf
		if err := p.cmd.Start(); err != nil {
			logf.Close()
			tb.Fatalf("start tessera serve: %v", err)
		}
		go func() { _ = p.cmd.Wait(); logf.Close(); close(p.exited) }()
		c.Procs = append(c.Procs, p)
		tb.Cleanup(func() { p.stop(tb) })
	}
	deadline := time.Now().Add(60 * time.Second)
	for i, p := range c.Procs {
		if err := p.waitHealthy(deadline); err != nil {
			tb.Fatalf("process %d (%s) did not become healthy: %v\n%s", i, p.Addr, err, p.Log())
		}
	}
	return c
}

// stop ends the process as SIGTERM does and shows its log if the test
// failed.
func (p *Process) stop(tb testing.TB) {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(40 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	}
	if tb.Failed() {
		tb.Logf("log of the process on %s:\n%s", p.Addr, p.Log())
	}
}

// Kill ends the process with SIGKILL, as a crash would: no request is
// finished, no lock released.
func (p *Process) Kill() error {
	p.killed.Store(true)
	if err := p.cmd.Process.Kill(); err != nil {
		return err
	}
	<-p.exited
	return nil
}

// Killed reports whether Kill was called.
func (p *Process) Killed() bool { return p.killed.Load() }

// Log is what the process wrote to stdout and stderr (its last 64 KB).
func (p *Process) Log() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return err.Error()
	}
	if len(b) > 64<<10 {
		b = b[len(b)-64<<10:]
	}
	return string(b)
}

func (p *Process) waitHealthy(deadline time.Time) error {
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		res, err := client.Get("http://" + p.Addr + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/healthz answered %s", res.Status)
		}
		select {
		case <-p.exited:
			return errors.New("it exited")
		default:
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freeAddr returns a loopback address with a port nothing listens on now.
func freeAddr(tb testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// FakeS3 starts an in-process S3 server with one bucket, stopped when tb
// ends, and returns the bucket's blob URL (as files.Open and `tessera serve
// --blob` take it).
func FakeS3(tb testing.TB) string {
	mem := s3mem.New()
	if err := mem.CreateBucket("tessera"); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	tb.Cleanup(srv.Close)
	q := url.Values{"endpoint": {srv.URL}, "region": {"us-east-1"}, "use_path_style": {"true"},
		"anonymous": {"true"}, "request_checksum_calculation": {"when_required"}}
	return "s3://tessera?" + q.Encode()
}

// Served is the number of requests the processes answered through the
// proxy.
func (c *Cluster) Served() int64 {
	var n int64
	for _, p := range c.Procs {
		n += p.Served.Load()
	}
	return n
}

// maxBody bounds a request body the proxy buffers (it replays the body to
// the next process when one refuses the connection).
const maxBody = 64 << 20

// downFor is how long the proxy leaves a process that refused a connection
// alone before trying it again.
const downFor = time.Second

// ServeHTTP is the round-robin proxy. A killed process is out of the
// rotation from the moment it is dead, as a load balancer's health check
// would take it out; one that refuses a connection (nothing was sent to it)
// is skipped for a second and the request goes to the next. A process that
// dies while it answers costs that request a 502, as it would behind any
// proxy: the request was not acknowledged.
func (c *Cluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil || len(b) > maxBody {
			http.Error(w, "cluster proxy: body unreadable or too large", http.StatusBadGateway)
			return
		}
		body = b
	}
	start := c.next.Add(1)
	n := uint64(len(c.Procs))
	var last error
	for i := range n {
		p := c.Procs[(start+i)%n]
		if p.Killed() || time.Now().UnixNano() < p.downUntil.Load() && i+1 < n {
			continue
		}
		served, err := c.forward(w, r, p, body)
		if served {
			p.Served.Add(1)
			return
		}
		p.downUntil.Store(time.Now().Add(downFor).UnixNano())
		last = err
	}
	if last == nil {
		last = errors.New("every process was killed")
	}
	http.Error(w, fmt.Sprintf("cluster proxy: no process answered: %v", last), http.StatusBadGateway)
}

// errDial marks a connection the process refused: nothing was sent.
var errDial = errors.New("dial failed")

// forward proxies r to p, reporting false (and writing nothing) when p
// refused the connection.
func (c *Cluster) forward(w http.ResponseWriter, r *http.Request, p *Process, body []byte) (bool, error) {
	var dialErr error
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = "http", p.Addr
			pr.Out.Host = r.Host // the public site is chosen by host
			pr.Out.Body, pr.Out.ContentLength = nil, 0
			if len(body) > 0 {
				pr.Out.Body, pr.Out.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			}
		},
		Transport: transport,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			var op *net.OpError
			if errors.As(err, &op) && op.Op == "dial" {
				dialErr = errDial
				return
			}
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "cluster proxy: %v", err)
		},
		ErrorLog: discardLog,
	}
	rp.ServeHTTP(w, r)
	if dialErr != nil {
		return false, dialErr
	}
	return true, nil
}

var transport = &http.Transport{
	DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
	MaxIdleConnsPerHost: 64,
	IdleConnTimeout:     30 * time.Second,
}

var discardLog = log.New(io.Discard, "", 0)

// Binary returns the path of a `tessera` binary built from this module with
// `go build`, once per test binary.
func Binary(tb testing.TB) string {
	tb.Helper()
	build.once.Do(func() { build.path, build.err = buildBinary() })
	if build.err != nil {
		tb.Fatalf("build tessera: %v", build.err)
	}
	return build.path
}

var build struct {
	once sync.Once
	path string
	err  error
}

func buildBinary() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	// The binary must outlive every test of this test binary, which has no
	// hook at its end; so builds share one directory, and each removes the
	// binaries earlier runs left there more than an hour ago.
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("tessera-cluster-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if old, err := os.ReadDir(dir); err == nil {
		for _, e := range old {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	bin := filepath.Join(dir, "tessera-"+rand.Text())
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the go command is needed to build the binary: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "build", "-o", bin, "./cmd/tessera")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	statSources(root)
	return bin, nil
}

// statSources stats every file of the module (but tests' data and hidden
// directories). go test
// caches a passing result keyed by the files a test looked at, and knows
// nothing of the binary built in a subprocess: looking at its sources makes
// a change to any of them run the cluster tests again.
func statSources(root string) {
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "artifacts") {
				return filepath.SkipDir
			}
			return nil
		}
		_, _ = os.Stat(path) // Go sources and what they embed (migrations, the demo theme)
		return nil
	})
}

// moduleRoot is the directory of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
