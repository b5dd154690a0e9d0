package cachetest

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Proxy is a TCP proxy in front of a database server, for tests of what a store does when
// the server stops answering. Stall makes it stop forwarding in both directions while
// holding every connection open and accepting new ones, as a frozen server process (or a
// network that drops packets) looks to a client; Resume lets the held bytes through.
// A Proxy is safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	gate   chan struct{} // closed while forwarding; open while stalled
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
}

// NewProxy starts a proxy on a local port that forwards to the server of dsn (a URL or
// key=value DSN; the host must be a TCP address), and returns it with dsn rewritten to go
// through it. The proxy stops, closing every connection, when tb ends.
func NewProxy(tb testing.TB, dsn string) (*Proxy, string) {
	tb.Helper()
	target, proxied, err := proxyDSN(dsn)
	if err != nil {
		tb.Fatalf("cachetest: proxy: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("cachetest: proxy: %v", err)
	}
	p := &Proxy{ln: ln, target: target, gate: make(chan struct{}), conns: map[net.Conn]bool{}}
	close(p.gate)
	p.wg.Add(1)
	go p.accept()
	tb.Cleanup(p.close)
	return p, proxied(ln.Addr().String())
}

// proxyDSN returns the host:port of dsn's server and a function that rewrites dsn to
// another host:port.
func proxyDSN(dsn string) (string, func(addr string) string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", nil, errors.New("the DSN is not a URL") // the parse error would echo the password
		}
		host, port := u.Hostname(), u.Port()
		if host == "" || strings.HasPrefix(host, "/") {
			return "", nil, errors.New("the DSN names no TCP host")
		}
		if port == "" {
			port = "5432"
		}
		return net.JoinHostPort(host, port), func(addr string) string {
			v := *u
			v.Host = addr
			return v.String()
		}, nil
	}
	host, port := "localhost", "5432"
	for _, f := range strings.Fields(dsn) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "host":
			host = v
		case "port":
			port = v
		}
	}
	if strings.HasPrefix(host, "/") {
		return "", nil, errors.New("the DSN names no TCP host")
	}
	return net.JoinHostPort(host, port), func(addr string) string {
		h, p, _ := net.SplitHostPort(addr)
		return dsn + " host=" + h + " port=" + p // later keys win
	}, nil
}

// Stall stops forwarding: bytes either way are held, connections stay open, new ones are
// accepted and held too.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.gate:
		p.gate = make(chan struct{})
	default: // stalled already
	}
}

// Resume forwards again, the held bytes first.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.gate:
	default:
		close(p.gate)
	}
}

// wait blocks while the proxy is stalled.
func (p *Proxy) wait() {
	p.mu.Lock()
	g := p.gate
	p.mu.Unlock()
	<-g
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = true
	return true
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			c.Close()
			return
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

// serve connects c to the target once the proxy forwards, then copies both ways.
func (p *Proxy) serve(c net.Conn) {
	defer p.wg.Done()
	p.wait()
	up, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(up) {
		if up != nil {
			up.Close()
		}
		c.Close()
		return
	}
	p.wg.Add(2)
	go p.pipe(up, c)
	go p.pipe(c, up)
}

// pipe copies src to dst, holding each read while the proxy is stalled. When either side
// ends, both are closed.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.wait()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// close stops the proxy and waits for its goroutines.
func (p *Proxy) close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	select {
	case <-p.gate:
	default:
		close(p.gate)
	}
	p.mu.Unlock()
	p.ln.Close()
	p.wg.Wait()
}
