// Package netlimit bounds the connections one client address may hold
// open, so that a few hosts cannot take every file descriptor of the
// server (slow-loris style) and starve everyone, health checks included.
package netlimit

import (
	"net"
	"sync"
)

// Listener accepts at most PerAddress concurrent connections from one IP;
// a connection past that is closed at once. Loopback connections are not
// counted (local health checks and tools).
type Listener struct {
	net.Listener
	PerAddress int

	mu   sync.Mutex
	open map[string]int
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := hostOf(c.RemoteAddr())
		if l.PerAddress <= 0 || ip == nil || ip.IsLoopback() {
			return c, nil
		}
		key := ip.String()
		l.mu.Lock()
		if l.open == nil {
			l.open = map[string]int{}
		}
		if l.open[key] >= l.PerAddress {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.open[key]++
		l.mu.Unlock()
		return &conn{Conn: c, release: func() { l.release(key) }}, nil
	}
}

func (l *Listener) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key]--; l.open[key] <= 0 {
		delete(l.open, key)
	}
}

// Open returns how many counted connections ip holds.
func (l *Listener) Open(ip string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open[ip]
}

func hostOf(a net.Addr) net.IP {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return nil
	}
	return net.ParseIP(host)
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
