package netlimit

import (
	"net"
	"net/netip"
	"testing"
)

// fakeListener hands out connections that come from one remote address.
type fakeListener struct {
	conns chan net.Conn
}

func (f *fakeListener) Accept() (net.Conn, error) { return <-f.conns, nil }
func (f *fakeListener) Close() error              { return nil }
func (f *fakeListener) Addr() net.Addr            { return &net.TCPAddr{} }

type fakeConn struct {
	net.Conn
	remote net.Addr
	closed bool
}

func (c *fakeConn) RemoteAddr() net.Addr { return c.remote }
func (c *fakeConn) Close() error         { c.closed = true; return nil }

func TestListener(t *testing.T) {
	f := &fakeListener{conns: make(chan net.Conn, 10)}
	l := &Listener{Listener: f, PerAddress: 2}
	from := func(ip string) *fakeConn {
		return &fakeConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 1234}}
	}
	a1, a2, a3, b1 := from("203.0.113.1"), from("203.0.113.1"), from("203.0.113.1"), from("203.0.113.2")
	for _, c := range []*fakeConn{a1, a2, a3, b1} {
		f.conns <- c
	}
	c1, _ := l.Accept()
	c2, _ := l.Accept()
	c3, _ := l.Accept() // a3 is refused and closed; b1 comes next
	if c3.RemoteAddr().String() != b1.remote.String() || !a3.closed {
		t.Fatalf("third accepted %v (a3 closed %v); want b1, a3 refused", c3.RemoteAddr(), a3.closed)
	}
	if n := l.Open("203.0.113.1"); n != 2 {
		t.Fatalf("open from .1: %d", n)
	}
	c1.Close()
	c1.Close() // a second Close releases nothing more
	if n := l.Open("203.0.113.1"); n != 1 {
		t.Fatalf("open after close: %d", n)
	}
	a4 := from("203.0.113.1")
	f.conns <- a4
	if c, _ := l.Accept(); c.(*conn).Conn != a4 {
		t.Fatal("a freed slot was not reused")
	}
	_ = c2
	// Loopback is counted like any address.
	lo1, lo2, lo3 := from("127.0.0.1"), from("127.0.0.1"), from("127.0.0.1")
	for _, c := range []*fakeConn{lo1, lo2, lo3, b1} {
		f.conns <- c
	}
	l.Accept()
	l.Accept()
	if c, _ := l.Accept(); c.RemoteAddr().String() != b1.remote.String() || !lo3.closed {
		t.Fatalf("third loopback connection: accepted %v (closed %v); want it refused", c.RemoteAddr(), lo3.closed)
	}
	if n := l.Open("127.0.0.1"); n != 2 {
		t.Fatalf("open from loopback: %d, want 2", n)
	}
}

// TestListenerUncounted: a trusted proxy's connections are left to the
// per-request count, however many it opens.
func TestListenerUncounted(t *testing.T) {
	f := &fakeListener{conns: make(chan net.Conn, 10)}
	proxy := netip.MustParseAddr("10.0.0.1")
	l := &Listener{Listener: f, PerAddress: 1, Uncounted: func(a netip.Addr) bool { return a == proxy }}
	for range 5 {
		pc := &fakeConn{remote: &net.TCPAddr{IP: net.ParseIP("10.0.0.1"), Port: 1}}
		f.conns <- pc
		if c, _ := l.Accept(); c != net.Conn(pc) || pc.closed {
			t.Fatal("a trusted proxy's connection was counted")
		}
	}
	// Any other address still is; an IPv4-mapped one is its IPv4 address.
	first := &fakeConn{remote: &net.TCPAddr{IP: net.ParseIP("203.0.113.1"), Port: 1}}
	mapped := &fakeConn{remote: &net.TCPAddr{IP: net.ParseIP("::ffff:203.0.113.1"), Port: 2}}
	next := &fakeConn{remote: &net.TCPAddr{IP: net.ParseIP("203.0.113.2"), Port: 1}}
	f.conns <- first
	f.conns <- mapped
	f.conns <- next
	l.Accept()
	if c, _ := l.Accept(); c.RemoteAddr() != next.remote || !mapped.closed {
		t.Fatalf("second connection of one client: accepted %v, want it refused", c.RemoteAddr())
	}
}

func TestCounts(t *testing.T) {
	var c Counts
	if !c.Acquire("a", 2) || !c.Acquire("a", 2) {
		t.Fatal("within the limit: refused")
	}
	if c.Acquire("a", 2) {
		t.Fatal("past the limit: accepted")
	}
	if !c.Acquire("b", 2) {
		t.Fatal("another key shares the count")
	}
	c.Release("a")
	if got := c.Open("a"); got != 1 {
		t.Fatalf("open after release: got %d, want 1", got)
	}
	if !c.Acquire("a", 2) {
		t.Fatal("a released slot was not reused")
	}
	c.Release("a")
	c.Release("a")
	if got := c.Open("a"); got != 0 || len(c.open) != 1 {
		t.Fatalf("after every release: open %d, keys %d; want 0 and only b's", got, len(c.open))
	}
}
