// Package locktest holds test helpers for the lock service: a TCP proxy
// that can cut every connection to Redis, as a restart or network failure
// would, and come back on the same address.
package locktest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a target address.
type Proxy struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	stopped bool
	conns   []net.Conn
	wg      sync.WaitGroup
}

// StartProxy listens on listen ("127.0.0.1:0" for any port) and forwards
// to target until Stop, which also runs at the end of the test.
func StartProxy(tb testing.TB, listen, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target}
	p.wg.Go(p.serve)
	tb.Cleanup(p.Stop)
	return p
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target is the address the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.stopped {
			p.mu.Unlock()
			c.Close()
			up.Close()
			return
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		p.wg.Go(func() { io.Copy(up, c); up.Close() })
		p.wg.Go(func() { io.Copy(c, up); c.Close() })
	}
}

// Stop closes the listener and cuts every forwarded connection.
func (p *Proxy) Stop() {
	p.ln.Close()
	p.mu.Lock()
	p.stopped = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
