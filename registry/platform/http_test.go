package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/registry/platform"
)

// publicIP is the address the fake network serves the test server on: it looks public, so
// the policy lets it through, and the fake dialer routes it to the httptest server.
const publicIP = "93.184.216.34"

// fakeNet is a resolver and dialer that never touch the real network. It records every
// address it is asked to dial and flags any that is not the public test address.
type fakeNet struct {
	srv *httptest.Server

	mu      sync.Mutex
	names   map[string][]string
	rebinds map[string]int // lookups so far of a rebinding name
	dialled []string
	bad     []string // dials to anything but the public test address
}

func newFakeNet(t *testing.T, h http.Handler) *fakeNet {
	n := &fakeNet{srv: httptest.NewServer(h), rebinds: map[string]int{}, names: map[string][]string{
		"public.test":                  {publicIP},
		"api.test":                     {publicIP},
		"other.test":                   {publicIP},
		"metadata.google.internal":     {"169.254.169.254"},
		"internal.test":                {"10.1.2.3"},
		"mixed.test":                   {publicIP, "127.0.0.1"},
		"v6loop.test":                  {"::1"},
		"public.test.127.0.0.1.nip.io": {"127.0.0.1"},
		"mapped.test":                  {"::ffff:10.0.0.1"},
	}}
	t.Cleanup(n.srv.Close)
	return n
}

func (n *fakeNet) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var answer []string
	if host == "rebind.test" {
		// DNS rebinding: a public answer first, then loopback.
		n.rebinds[host]++
		answer = []string{publicIP}
		if n.rebinds[host] > 1 {
			answer = []string{"127.0.0.1"}
		}
	} else {
		var ok bool
		if answer, ok = n.names[host]; !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
	}
	out := make([]netip.Addr, len(answer))
	for i, a := range answer {
		out[i] = netip.MustParseAddr(a)
	}
	return out, nil
}

func (n *fakeNet) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	n.mu.Lock()
	n.dialled = append(n.dialled, address)
	ap, err := netip.ParseAddrPort(address)
	if err != nil || ap.Addr().String() != publicIP {
		n.bad = append(n.bad, address)
		n.mu.Unlock()
		return nil, fmt.Errorf("fake network: no route to %s", address)
	}
	n.mu.Unlock()
	var d net.Dialer
	return d.DialContext(ctx, "tcp", n.srv.Listener.Addr().String())
}

func (n *fakeNet) badDials() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.bad...)
}

// testHandler serves the fake internet: /ok, /redirect?to=URL, /echo-auth, /big, /binary
// and /internal, which must never be reached through a refused address.
type testHandler struct {
	mu       sync.Mutex
	internal int
	auth     []string
}

func (h *testHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/ok":
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Set-Cookie", "session=abc")
		fmt.Fprint(w, "hello from "+r.Host)
	case "/redirect":
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	case "/loop":
		http.Redirect(w, r, "/loop", http.StatusFound)
	case "/echo-auth":
		h.mu.Lock()
		h.auth = append(h.auth, r.Host+" "+r.Header.Get("Authorization"))
		h.mu.Unlock()
		fmt.Fprint(w, "seen")
	case "/big":
		fmt.Fprint(w, strings.Repeat("x", 5000))
	case "/binary":
		w.Write([]byte{0xff, 0x00, 0xfe})
	case "/echo-body":
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		fmt.Fprintf(w, "%s %s", r.Method, b.String())
	case "/internal":
		h.mu.Lock()
		h.internal++
		h.mu.Unlock()
		fmt.Fprint(w, "INTERNAL-ONLY")
	default:
		http.NotFound(w, r)
	}
}

func newHTTP(t *testing.T, n *fakeNet, mod func(*platform.HTTPConfig)) *platform.HTTP {
	t.Helper()
	cfg := platform.HTTPConfig{Resolver: n, Dialer: n, MaxRedirects: 3}
	if mod != nil {
		mod(&cfg)
	}
	h, err := platform.NewHTTP(cfg)
	if err != nil {
		t.Fatalf("NewHTTP: %v", err)
	}
	return h
}

func request(t *testing.T, h *platform.HTTP, args map[string]any) (platform.HTTPResult, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.Tool().Run(context.Background(), b)
	if err != nil {
		return platform.HTTPResult{}, err
	}
	var res platform.HTTPResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	return res, nil
}

func TestHTTPHostile(t *testing.T) {
	th := &testHandler{}
	n := newFakeNet(t, th)
	h := newHTTP(t, n, nil)
	redirect := func(to string) string { return "http://public.test/redirect?to=" + to }
	cases := []struct {
		name string
		args map[string]any
	}{
		{"loopback", map[string]any{"url": "http://127.0.0.1/internal"}},
		{"loopback other", map[string]any{"url": "http://127.0.0.2/internal"}},
		{"localhost", map[string]any{"url": "http://localhost/internal"}},
		{"localhost upper with dot", map[string]any{"url": "http://LOCALHOST./internal"}},
		{"sub.localhost", map[string]any{"url": "http://foo.localhost/internal"}},
		{"ipv6 loopback", map[string]any{"url": "http://[::1]/internal"}},
		{"ipv4-mapped loopback", map[string]any{"url": "http://[::ffff:127.0.0.1]/internal"}},
		{"ipv4-mapped hex", map[string]any{"url": "http://[::ffff:7f00:1]/internal"}},
		{"ipv4-translated private", map[string]any{"url": "http://[::ffff:0:a00:1]/internal"}},
		{"ipv4-translated loopback", map[string]any{"url": "http://[::ffff:0:7f00:1]/internal"}},
		{"ipv4-mapped long", map[string]any{"url": "http://[0:0:0:0:0:ffff:127.0.0.1]/internal"}},
		{"ipv4-compatible", map[string]any{"url": "http://[::127.0.0.1]/internal"}},
		{"unspecified", map[string]any{"url": "http://0.0.0.0/internal"}},
		{"ipv6 unspecified", map[string]any{"url": "http://[::]/internal"}},
		{"decimal", map[string]any{"url": "http://2130706433/internal"}},
		{"hex", map[string]any{"url": "http://0x7f000001/internal"}},
		{"octal", map[string]any{"url": "http://0177.0.0.1/internal"}},
		{"octal long", map[string]any{"url": "http://017700000001/internal"}},
		{"mixed hex", map[string]any{"url": "http://0x7f.0.0.1/internal"}},
		{"short form", map[string]any{"url": "http://127.1/internal"}},
		{"trailing dot number", map[string]any{"url": "http://2130706433./internal"}},
		{"metadata", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"}},
		{"metadata ecs", map[string]any{"url": "http://169.254.170.2/v2/credentials"}},
		{"metadata v6", map[string]any{"url": "http://[fd00:ec2::254]/latest/meta-data/"}},
		{"metadata by name", map[string]any{"url": "http://metadata.google.internal/computeMetadata/v1/"}},
		{"metadata alibaba", map[string]any{"url": "http://100.100.100.200/latest/meta-data/"}},
		{"private 10", map[string]any{"url": "http://10.0.0.1/internal"}},
		{"private 172", map[string]any{"url": "http://172.16.0.1/internal"}},
		{"private 192", map[string]any{"url": "http://192.168.1.1/internal"}},
		{"shared 100.64", map[string]any{"url": "http://100.64.0.1/internal"}},
		{"link-local v6 zone", map[string]any{"url": "http://[fe80::1%25eth0]/internal"}},
		{"unique local v6", map[string]any{"url": "http://[fc00::1]/internal"}},
		{"nat64 loopback", map[string]any{"url": "http://[64:ff9b::7f00:1]/internal"}},
		{"6to4 loopback", map[string]any{"url": "http://[2002:7f00:1::]/internal"}},
		{"multicast", map[string]any{"url": "http://224.0.0.1/internal"}},
		{"broadcast", map[string]any{"url": "http://255.255.255.255/internal"}},
		{"name to private", map[string]any{"url": "http://internal.test/internal"}},
		{"name to v6 loopback", map[string]any{"url": "http://v6loop.test/internal"}},
		{"name to mapped private", map[string]any{"url": "http://mapped.test/internal"}},
		{"name with a private address among public ones", map[string]any{"url": "http://mixed.test/internal"}},
		{"wildcard dns to loopback", map[string]any{"url": "http://public.test.127.0.0.1.nip.io/internal"}},
		{"redirect to loopback", map[string]any{"url": redirect("http://127.0.0.1/internal")}},
		{"redirect to metadata", map[string]any{"url": redirect("http://169.254.169.254/latest/meta-data/")}},
		{"redirect to v6 loopback", map[string]any{"url": redirect("http://[::1]/internal")}},
		{"redirect to localhost", map[string]any{"url": redirect("http://localhost/internal")}},
		{"redirect to decimal", map[string]any{"url": redirect("http://2130706433/internal")}},
		{"redirect to private name", map[string]any{"url": redirect("http://internal.test/internal")}},
		{"redirect to a file", map[string]any{"url": redirect("file:///etc/passwd")}},
		{"redirect to another port", map[string]any{"url": redirect("http://public.test:6379/")}},
		{"redirect loop", map[string]any{"url": "http://public.test/loop"}},
		{"rebinding through a redirect", map[string]any{"url": "http://rebind.test/redirect?to=/internal"}},
		{"file scheme", map[string]any{"url": "file:///etc/passwd"}},
		{"gopher", map[string]any{"url": "gopher://public.test/"}},
		{"ftp", map[string]any{"url": "ftp://public.test/"}},
		{"credentials", map[string]any{"url": "http://user:pass@public.test/ok"}},
		{"ssh port", map[string]any{"url": "http://public.test:22/"}},
		{"redis port", map[string]any{"url": "http://public.test:6379/"}},
		{"relative", map[string]any{"url": "/internal"}},
		{"method trace", map[string]any{"url": "http://public.test/ok", "method": "TRACE"}},
		{"method post not allowed", map[string]any{"url": "http://public.test/ok", "method": "POST"}},
		{"host header", map[string]any{"url": "http://public.test/ok", "headers": map[string]string{"Host": "127.0.0.1"}}},
		{"proxy header", map[string]any{"url": "http://public.test/ok", "headers": map[string]string{"Proxy-Authorization": "x"}}},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d hostile URLs; the bar is 30", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := request(t, h, tc.args)
			if !errors.Is(err, platform.ErrRequestRefused) && !errors.Is(err, platform.ErrAddressRefused) {
				t.Fatalf("err = %v (result %+v), want a refusal", err, res)
			}
		})
	}
	if bad := n.badDials(); len(bad) > 0 {
		t.Errorf("dialled refused addresses: %v", bad)
	}
	if th.internal != 0 {
		t.Errorf("/internal was reached %d times", th.internal)
	}
	t.Logf("%d hostile URLs and redirects: 0 reached a loopback, private or metadata address (%d dials, all to %s)", len(cases), len(n.dialled), publicIP)
}

func TestHTTPRebinding(t *testing.T) {
	th := &testHandler{}
	n := newFakeNet(t, th)
	h := newHTTP(t, n, nil)
	// The first lookup answers a public address: the request goes through.
	res, err := request(t, h, map[string]any{"url": "http://rebind.test/ok"})
	if err != nil || res.Status != 200 {
		t.Fatalf("first request: %+v, %v", res, err)
	}
	// The name now answers loopback: the next request is refused when it dials.
	if _, err := request(t, h, map[string]any{"url": "http://rebind.test/internal"}); !errors.Is(err, platform.ErrAddressRefused) {
		t.Fatalf("second request: %v, want ErrAddressRefused", err)
	}
	if bad := n.badDials(); len(bad) > 0 || th.internal != 0 {
		t.Errorf("rebinding reached %v (internal hits %d)", bad, th.internal)
	}
}

func TestHTTPRequests(t *testing.T) {
	th := &testHandler{}
	n := newFakeNet(t, th)
	var logs bytes.Buffer
	h := newHTTP(t, n, func(c *platform.HTTPConfig) {
		c.AllowMethods = []string{"GET", "POST"}
		c.MaxResponseBytes = 1000
		c.SecretHeaders = map[string]http.Header{"api.test": {"Authorization": {"Bearer s3cr3t-token"}}}
		c.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	tests := []struct {
		name string
		args map[string]any
		want platform.HTTPResult
	}{
		{"get", map[string]any{"url": "http://public.test/ok?token=abc"}, platform.HTTPResult{Status: 200, URL: "http://public.test/ok",
			Headers: map[string]string{"Content-Type": "text/plain", "Content-Length": "22"}, Body: "hello from public.test", Encoding: "utf-8"}},
		{"post", map[string]any{"url": "http://public.test/echo-body", "method": "post", "body": "ping"}, platform.HTTPResult{Status: 200, URL: "http://public.test/echo-body",
			Headers: map[string]string{"Content-Type": "text/plain; charset=utf-8", "Content-Length": "9"}, Body: "POST ping", Encoding: "utf-8"}},
		{"not found is a result", map[string]any{"url": "http://public.test/nope"}, platform.HTTPResult{Status: 404, URL: "http://public.test/nope",
			Headers: map[string]string{"Content-Type": "text/plain; charset=utf-8", "Content-Length": "19"}, Body: "404 page not found\n", Encoding: "utf-8"}},
		{"redirect followed", map[string]any{"url": "http://public.test/redirect?to=http://other.test/ok"}, platform.HTTPResult{Status: 200, URL: "http://other.test/ok",
			Headers: map[string]string{"Content-Type": "text/plain", "Content-Length": "21"}, Body: "hello from other.test", Encoding: "utf-8"}},
		{"truncated", map[string]any{"url": "http://public.test/big"}, platform.HTTPResult{Status: 200, URL: "http://public.test/big",
			Headers: map[string]string{"Content-Type": "text/plain; charset=utf-8"}, Body: strings.Repeat("x", 1000), Encoding: "utf-8", Truncated: true}},
		{"binary", map[string]any{"url": "http://public.test/binary"}, platform.HTTPResult{Status: 200, URL: "http://public.test/binary",
			Headers: map[string]string{"Content-Type": "application/octet-stream", "Content-Length": "3"}, Body: "/wD+", Encoding: "base64"}},
		{"secret header sent to its host", map[string]any{"url": "http://api.test/echo-auth", "headers": map[string]string{"Authorization": "Bearer model-guess"}},
			platform.HTTPResult{Status: 200, URL: "http://api.test/echo-auth", Headers: map[string]string{"Content-Type": "text/plain; charset=utf-8", "Content-Length": "4"}, Body: "seen", Encoding: "utf-8"}},
		{"secret header not carried by a redirect", map[string]any{"url": "http://api.test/redirect?to=http://other.test/echo-auth"},
			platform.HTTPResult{Status: 200, URL: "http://other.test/echo-auth", Headers: map[string]string{"Content-Type": "text/plain; charset=utf-8", "Content-Length": "4"}, Body: "seen", Encoding: "utf-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := request(t, h, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if b, _ := json.Marshal(got); strings.Contains(string(b), "s3cr3t") {
				t.Errorf("the result holds the secret: %s", b)
			}
		})
	}
	if diff := cmp.Diff([]string{"api.test Bearer s3cr3t-token", "other.test "}, th.auth); diff != "" {
		t.Errorf("Authorization seen by the server (-want +got):\n%s", diff)
	}
	if _, err := request(t, h, map[string]any{"url": "http://api.test/redirect?to=http://127.0.0.1/internal"}); err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("refused redirect error: %v", err)
	}
	if strings.Contains(logs.String(), "s3cr3t") || strings.Contains(logs.String(), "token=abc") {
		t.Errorf("logs hold a secret or a query:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), `"host":"public.test"`) {
		t.Errorf("no request was logged:\n%s", logs.String())
	}
}

func TestHTTPAllowLists(t *testing.T) {
	n := newFakeNet(t, &testHandler{})
	h := newHTTP(t, n, func(c *platform.HTTPConfig) {
		c.AllowHosts = []string{"*.test"}
		c.AllowPrefixes = []netip.Prefix{netip.MustParsePrefix("10.1.2.3/32"), netip.MustParsePrefix("169.254.0.0/16")}
	})
	// An allowed prefix lets the internal name through the address policy (the fake
	// network then has no route to it); metadata stays refused inside an allowed prefix.
	if _, err := request(t, h, map[string]any{"url": "http://internal.test/ok"}); err == nil || errors.Is(err, platform.ErrAddressRefused) {
		t.Errorf("internal.test with its prefix allowed: %v, want a dial failure, not a refusal", err)
	}
	if _, err := request(t, h, map[string]any{"url": "http://metadata.google.internal/"}); !errors.Is(err, platform.ErrRequestRefused) {
		t.Errorf("host outside the allow-list: %v, want ErrRequestRefused", err)
	}
	h2 := newHTTP(t, n, func(c *platform.HTTPConfig) {
		c.AllowPrefixes = []netip.Prefix{netip.MustParsePrefix("169.254.0.0/16")}
	})
	if _, err := request(t, h2, map[string]any{"url": "http://169.254.169.254/"}); !errors.Is(err, platform.ErrAddressRefused) {
		t.Errorf("metadata inside an allowed prefix: %v, want ErrAddressRefused", err)
	}
	if _, err := platform.NewHTTP(platform.HTTPConfig{AllowMethods: []string{"CONNECT"}}); !errors.Is(err, platform.ErrInvalidConfig) {
		t.Errorf("CONNECT allowed: %v, want ErrInvalidConfig", err)
	}
	if _, err := platform.NewHTTP(platform.HTTPConfig{AllowPorts: []int{70000}}); !errors.Is(err, platform.ErrInvalidConfig) {
		t.Errorf("port 70000: %v, want ErrInvalidConfig", err)
	}
}
