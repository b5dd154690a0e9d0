package platform

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ToolHTTPRequest is the name of the HTTP tool.
const ToolHTTPRequest = "http_request"

// Defaults of HTTPConfig.
const (
	DefaultMaxRedirects     = 5
	DefaultMaxResponseBytes = 1 << 20
	DefaultMaxRequestBytes  = 1 << 20
	DefaultHTTPTimeout      = 30 * time.Second
)

// Resolver looks up the IP addresses of a host name. *net.Resolver satisfies it.
// Implementations must be safe for concurrent use.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer opens connections. *net.Dialer satisfies it. The HTTP tool only ever asks it for
// an "ip:port" it has checked, never for a name. Implementations must be safe for
// concurrent use.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// HTTPConfig configures NewHTTP. It is copied by the constructor; changing it afterwards
// has no effect.
type HTTPConfig struct {
	// AllowHosts are the host names requests may go to: exact names ("api.github.com") or
	// "*." suffixes ("*.example.com", which does not match example.com itself). Optional:
	// empty allows any host whose addresses pass the address policy.
	AllowHosts []string
	// AllowMethods are the methods the model may use. Optional. Defaults to GET and HEAD.
	AllowMethods []string
	// AllowPorts are the ports requests may go to. Optional. Defaults to 80 and 443.
	AllowPorts []int
	// AllowPrefixes are non-public address ranges the host chooses to allow, such as an
	// internal API at 10.1.2.3/32. Optional: by default loopback, private, link-local,
	// shared, reserved and multicast addresses are all refused. Cloud metadata addresses
	// (169.254.169.254 and its kin) are refused even when a prefix covers them.
	AllowPrefixes []netip.Prefix
	// SecretHeaders are headers added to requests for one exact host name, e.g. an
	// Authorization header for "api.example.com". They are added when the connection to
	// that host is made (never carried to another host by a redirect), the model cannot
	// override them, and they never appear in results, errors or logs. Optional.
	SecretHeaders map[string]http.Header
	// Resolver looks up host names. Optional. Defaults to net.DefaultResolver.
	Resolver Resolver
	// Dialer opens connections to checked addresses. Optional. Defaults to a net.Dialer
	// with a 10 s timeout.
	Dialer Dialer
	// TLSConfig is used for https requests. Optional.
	TLSConfig *tls.Config
	// MaxRedirects caps the redirects followed. Optional. Defaults to DefaultMaxRedirects;
	// negative follows none (the redirect response is returned).
	MaxRedirects int
	// MaxResponseBytes caps the body returned; longer bodies are cut and flagged truncated.
	// Optional. Defaults to DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxRequestBytes caps the body the model may send. Optional. Defaults to
	// DefaultMaxRequestBytes.
	MaxRequestBytes int
	// Timeout bounds a whole request, redirects and body included. Optional. Defaults to
	// DefaultHTTPTimeout.
	Timeout time.Duration
	// Logger gets one debug record per request (method, host, status, duration; never the
	// query, headers or bodies). Optional: nil is silent.
	Logger *slog.Logger
}

// HTTP is the http_request tool. It holds no connections between calls. It is safe for
// concurrent use.
type HTTP struct {
	cfg     HTTPConfig
	methods []string
	ports   []int
	policy  addrPolicy
	secrets map[string]http.Header // by lower-case host
	client  *http.Client
	log     *slog.Logger
	spec    registry.ToolSpec
}

// forbiddenHeaders are request headers the model may not set.
var forbiddenHeaders = []string{
	"Host", "Connection", "Proxy-Authorization", "Proxy-Connection", "Transfer-Encoding",
	"Content-Length", "Te", "Trailer", "Upgrade", "Keep-Alive", "Expect",
}

// NewHTTP returns the HTTP tool. It fails with ErrInvalidConfig for an unknown method, a
// port out of range or an invalid prefix.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	h := &HTTP{cfg: cfg, policy: addrPolicy{allow: slices.Clone(cfg.AllowPrefixes)}, secrets: map[string]http.Header{}}
	for _, m := range cfg.AllowMethods {
		m = strings.ToUpper(strings.TrimSpace(m))
		switch m {
		case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
			h.methods = append(h.methods, m)
		default:
			return nil, fmt.Errorf("%w: method %q", ErrInvalidConfig, m)
		}
	}
	if len(h.methods) == 0 {
		h.methods = []string{"GET", "HEAD"}
	}
	for _, p := range cfg.AllowPorts {
		if p <= 0 || p > 65535 {
			return nil, fmt.Errorf("%w: port %d", ErrInvalidConfig, p)
		}
	}
	h.ports = slices.Clone(cfg.AllowPorts)
	if len(h.ports) == 0 {
		h.ports = []int{80, 443}
	}
	for _, p := range cfg.AllowPrefixes {
		if !p.IsValid() {
			return nil, fmt.Errorf("%w: invalid address prefix", ErrInvalidConfig)
		}
	}
	for host, hdr := range cfg.SecretHeaders {
		h.secrets[strings.ToLower(strings.TrimSuffix(host, "."))] = hdr.Clone()
	}
	if h.cfg.Resolver == nil {
		h.cfg.Resolver = net.DefaultResolver
	}
	if h.cfg.Dialer == nil {
		h.cfg.Dialer = &net.Dialer{Timeout: 10 * time.Second}
	}
	if h.cfg.MaxRedirects == 0 {
		h.cfg.MaxRedirects = DefaultMaxRedirects
	}
	if h.cfg.MaxResponseBytes <= 0 {
		h.cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if h.cfg.MaxRequestBytes <= 0 {
		h.cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if h.cfg.Timeout <= 0 {
		h.cfg.Timeout = DefaultHTTPTimeout
	}
	h.log = cfg.Logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	tr := &http.Transport{
		Proxy:                  nil, // never a proxy from the environment: it would dial for us
		DialContext:            h.dial,
		TLSClientConfig:        cfg.TLSConfig,
		DisableKeepAlives:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	h.client = &http.Client{Transport: secretTransport{h: h, next: tr}, CheckRedirect: h.checkRedirect, Timeout: h.cfg.Timeout}
	var err error
	h.spec, err = registry.Typed(registry.ToolSpec{
		Name:     ToolHTTPRequest,
		Category: registry.CategoryHTTP,
		Security: registry.SecurityMedium,
		Timeout:  h.cfg.Timeout + 5*time.Second,
		Description: "Make an HTTP request to a public web address and get the status, main headers and body. " +
			"Methods: " + strings.Join(h.methods, ", ") + h.hostsDescription() + ".",
	}, h.run)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	return h, nil
}

func (h *HTTP) hostsDescription() string {
	if len(h.cfg.AllowHosts) == 0 {
		return ""
	}
	return ". Hosts: " + strings.Join(h.cfg.AllowHosts, ", ")
}

// Tool returns http_request, in registry.CategoryHTTP with SecurityMedium.
func (h *HTTP) Tool() registry.ToolSpec { return h.spec }

// checkURL applies the URL policy: scheme, credentials, host name, port and host
// allow-list.
func (h *HTTP) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q; only http and https", ErrRequestRefused, schema.Excerpt(u.Scheme))
	}
	if u.User != nil {
		return fmt.Errorf("%w: credentials in the URL", ErrRequestRefused)
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return fmt.Errorf("%w: the URL has no host", ErrRequestRefused)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%w: host %q is this machine", ErrRequestRefused, schema.Excerpt(host))
	}
	if _, err := netip.ParseAddr(host); err != nil && numericHost(host) {
		return fmt.Errorf("%w: host %q is a number but not a canonical IP address", ErrRequestRefused, schema.Excerpt(host))
	}
	port := 80
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return fmt.Errorf("%w: port %q", ErrRequestRefused, schema.Excerpt(p))
		}
		port = n
	}
	if !slices.Contains(h.ports, port) {
		return fmt.Errorf("%w: port %d is not allowed", ErrRequestRefused, port)
	}
	if len(h.cfg.AllowHosts) > 0 && !hostAllowed(h.cfg.AllowHosts, host) {
		return fmt.Errorf("%w: host %q is not allowed", ErrRequestRefused, schema.Excerpt(host))
	}
	return nil
}

func hostAllowed(allow []string, host string) bool {
	for _, a := range allow {
		a = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(a), "."))
		if suffix, ok := strings.CutPrefix(a, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == a {
			return true
		}
	}
	return false
}

// dial resolves addr's host, checks every address it resolves to, and connects to a
// checked address: what is dialled is exactly what was checked, so a resolver that
// answers differently the second time (DNS rebinding) gains nothing.
func (h *HTTP) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	portNum, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("%w: port %q", ErrRequestRefused, port)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		if numericHost(host) {
			return nil, fmt.Errorf("%w: host %q is a number but not a canonical IP address", ErrRequestRefused, schema.Excerpt(host))
		}
		if ips, err = h.cfg.Resolver.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, fmt.Errorf("platform: resolving %q: %w", schema.Excerpt(host), err)
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("platform: resolving %q: no addresses", schema.Excerpt(host))
		}
	}
	// Refuse the name when any of its addresses is refused: a name that mixes public and
	// private addresses is a rebinding setup, not a service.
	for _, ip := range ips {
		if why := h.policy.check(ip); why != "" {
			return nil, fmt.Errorf("%w: %q resolves to %s", ErrAddressRefused, schema.Excerpt(host), why)
		}
	}
	var last error
	for _, ip := range ips {
		conn, err := h.cfg.Dialer.DialContext(ctx, "tcp", netip.AddrPortFrom(ip.Unmap().WithZone(""), uint16(portNum)).String())
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, last
}

// checkRedirect applies the URL and method policies to every redirect and caps them.
func (h *HTTP) checkRedirect(req *http.Request, via []*http.Request) error {
	if h.cfg.MaxRedirects < 0 {
		return http.ErrUseLastResponse
	}
	if len(via) > h.cfg.MaxRedirects {
		return fmt.Errorf("%w: more than %d redirects", ErrRequestRefused, h.cfg.MaxRedirects)
	}
	if err := h.checkURL(req.URL); err != nil {
		return fmt.Errorf("redirect: %w", err)
	}
	if !slices.Contains(h.methods, req.Method) {
		return fmt.Errorf("%w: redirect: method %s is not allowed", ErrRequestRefused, req.Method)
	}
	return nil
}

// secretTransport adds the host's secret headers to each request (redirects included) for
// the exact host it goes to.
type secretTransport struct {
	h    *HTTP
	next http.RoundTripper
}

func (t secretTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if hdr, ok := t.h.secrets[strings.ToLower(strings.TrimSuffix(req.URL.Hostname(), "."))]; ok {
		req = req.Clone(req.Context())
		for k, vs := range hdr {
			req.Header[http.CanonicalHeaderKey(k)] = slices.Clone(vs)
		}
	}
	return t.next.RoundTrip(req)
}

type httpIn struct {
	Method  string            `json:"method,omitempty" jsonschema_description:"HTTP method (default GET)."`
	URL     string            `json:"url" jsonschema_description:"Absolute http or https URL."`
	Headers map[string]string `json:"headers,omitempty" jsonschema_description:"Request headers."`
	Body    string            `json:"body,omitempty" jsonschema_description:"Request body (text)."`
}

// HTTPResult is what http_request returns. A response with any status is a result, not an
// error.
type HTTPResult struct {
	Status    int               `json:"status"`
	URL       string            `json:"url"` // the final URL after redirects, without its query
	Headers   map[string]string `json:"headers,omitempty"`
	Body      string            `json:"body"`
	Encoding  string            `json:"encoding"` // EncodingUTF8 or EncodingBase64
	Truncated bool              `json:"truncated,omitempty"`
}

// returnedHeaders are the response headers passed back to the model.
var returnedHeaders = []string{"Content-Type", "Content-Length", "Location", "Retry-After", "Etag", "Last-Modified"}

// redact drops the query and fragment of a URL for error text and logs.
func redact(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.User = "", "", nil
	return c.String()
}

func (h *HTTP) run(ctx context.Context, in httpIn) (HTTPResult, error) {
	method := strings.ToUpper(strings.TrimSpace(in.Method))
	if method == "" {
		method = "GET"
	}
	if !slices.Contains(h.methods, method) {
		return HTTPResult{}, fmt.Errorf("%w: method %q; allowed: %s", ErrRequestRefused, schema.Excerpt(method), strings.Join(h.methods, ", "))
	}
	u, err := url.Parse(in.URL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL: the model has it, and it may carry secrets
		}
		return HTTPResult{}, fmt.Errorf("%w: the URL does not parse (%v); send an absolute http or https URL", ErrRequestRefused, err)
	}
	if !u.IsAbs() {
		return HTTPResult{}, fmt.Errorf("%w: the URL has no scheme; send an absolute http or https URL", ErrRequestRefused)
	}
	if err := h.checkURL(u); err != nil {
		return HTTPResult{}, err
	}
	if len(in.Body) > h.cfg.MaxRequestBytes {
		return HTTPResult{}, fmt.Errorf("%w: the body is %d bytes, more than %d", ErrTooLarge, len(in.Body), h.cfg.MaxRequestBytes)
	}
	var body io.Reader
	if in.Body != "" {
		body = strings.NewReader(in.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return HTTPResult{}, fmt.Errorf("%w: %v", ErrRequestRefused, err)
	}
	secret := h.secrets[strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))]
	for k, v := range in.Headers {
		ck := http.CanonicalHeaderKey(k)
		if slices.Contains(forbiddenHeaders, ck) || strings.HasPrefix(ck, "Proxy-") {
			return HTTPResult{}, fmt.Errorf("%w: header %q may not be set", ErrRequestRefused, schema.Excerpt(k))
		}
		if _, ok := secret[ck]; ok {
			continue // the host's own value wins, silently
		}
		req.Header.Set(ck, v)
	}
	start := time.Now()
	resp, err := h.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		h.log.DebugContext(ctx, "platform: http request failed", "method", method, "host", u.Hostname(), "duration", time.Since(start), "error", err)
		return HTTPResult{}, fmt.Errorf("platform: %s %s to %s: %w", ToolHTTPRequest, method, schema.Excerpt(u.Host), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, h.cfg.MaxResponseBytes+1))
	if err != nil {
		return HTTPResult{}, fmt.Errorf("platform: %s %s to %s: reading the body: %w", ToolHTTPRequest, method, schema.Excerpt(u.Host), err)
	}
	out := HTTPResult{Status: resp.StatusCode, URL: redact(resp.Request.URL)}
	if int64(len(b)) > h.cfg.MaxResponseBytes {
		b, out.Truncated = b[:h.cfg.MaxResponseBytes], true
	}
	out.Body, out.Encoding = encodeContent(b)
	for _, k := range returnedHeaders {
		if v := resp.Header.Get(k); v != "" {
			if out.Headers == nil {
				out.Headers = map[string]string{}
			}
			out.Headers[k] = v
		}
	}
	h.log.DebugContext(ctx, "platform: http request", "method", method, "host", resp.Request.URL.Hostname(),
		"status", resp.StatusCode, "bytes", len(b), "duration", time.Since(start))
	return out, nil
}
