// Package netlimit bounds the connections one client address may hold
// open, so that a few hosts cannot take every file descriptor of the
// server (slow-loris style) and starve everyone, health checks included.
//
// A direct client is counted by its connections, when they are accepted
// (Listener). A trusted proxy holds the connections of many clients, so
// its connections are not counted; the requests it forwards are, per
// forwarded client, while they run (InFlight): a proxy opens a connection
// to its upstream for each request in flight, so the two measures agree.
package netlimit

import (
	"net"
	"net/netip"
	"sync"
)

// Listener accepts at most PerAddress concurrent connections from one IP;
// a connection past that is closed at once. Loopback is an address like
// any other: local tools set the limit they want.
type Listener struct {
	net.Listener
	PerAddress int
	// Uncounted reports whether connections from an address are left to
	// InFlight (trusted proxies); nil counts every address.
	Uncounted func(netip.Addr) bool

	counts Counts
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip, ok := hostOf(c.RemoteAddr())
		if l.PerAddress <= 0 || !ok || l.Uncounted != nil && l.Uncounted(ip) {
			return c, nil
		}
		key := ip.String()
		if !l.counts.Acquire(key, l.PerAddress) {
			c.Close()
			continue
		}
		return &conn{Conn: c, release: func() { l.counts.Release(key) }}, nil
	}
}

// Open returns how many counted connections ip holds.
func (l *Listener) Open(ip string) int { return l.counts.Open(ip) }

func hostOf(a net.Addr) (netip.Addr, bool) {
	if t, ok := a.(*net.TCPAddr); ok {
		ip, ok := netip.AddrFromSlice(t.IP)
		return ip.Unmap(), ok
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

// conn releases its count once, on the first Close.
type conn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *conn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// Counts counts what each key holds open: connections for Listener,
// requests in flight for a server behind a proxy. The zero value is ready.
type Counts struct {
	mu   sync.Mutex
	open map[string]int
}

// Acquire counts one more for key and reports true, unless key already
// holds limit; then it counts nothing and reports false. Every true must
// be matched by one Release.
func (c *Counts) Acquire(key string, limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open == nil {
		c.open = map[string]int{}
	}
	if c.open[key] >= limit {
		return false
	}
	c.open[key]++
	return true
}

// Release ends one count of key.
func (c *Counts) Release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key]--; c.open[key] <= 0 {
		delete(c.open, key)
	}
}

// Open returns how many key holds.
func (c *Counts) Open(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open[key]
}
