package netlimit

import (
	"net"
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
	lo := from("127.0.0.1")
	for range 5 {
		f.conns <- lo
		if c, _ := l.Accept(); c != net.Conn(lo) {
			t.Fatal("loopback was limited")
		}
	}
	_ = c2
}
