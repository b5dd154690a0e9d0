package composio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Base URLs and path prefixes of the API.
const (
	// ProductionURL is Composio's production API.
	ProductionURL = "https://backend.composio.dev"
	// PrefixV3 is the path prefix of API v3.
	PrefixV3 = "/api/v3"
	// PrefixV31 is the path prefix of API v3.1, used by the official clients since 1.36.
	// Its shapes are those of v3.
	PrefixV31 = "/api/v3.1"
)

// Defaults applied by New.
const (
	DefaultMaxResponseBytes = 64 << 20
	DefaultAuthConfigTTL    = time.Hour
	DefaultPageSize         = 1000
	DefaultTimeout          = 60 * time.Second
	DefaultSearchUserID     = "default"
)

// Config configures a Client. Only APIKey is required.
type Config struct {
	// APIKey is the project API key, sent as the x-api-key header. Required. It never
	// appears in an error, a log line or a panic of this package.
	APIKey string
	// BaseURL is the scheme and host of the API, optionally with a path. Optional. Defaults
	// to ProductionURL. A path ending in an API prefix, as Composio's documentation quotes
	// the URL ("https://backend.composio.dev/api/v3"), sets PathPrefix (New fails with
	// ErrConfig when PathPrefix names another one); any path before it, or a path without
	// one, is kept in front of the prefix (a proxy's mount point).
	BaseURL string
	// PathPrefix is PrefixV3 or PrefixV31 (any other "/api/..." prefix is accepted).
	// Optional. Defaults to the prefix in BaseURL, else PrefixV31.
	PathPrefix string
	// HTTPClient sends the requests. Optional. Defaults to a client with a 60 s timeout,
	// a 5 s connect timeout, no proxy, and redirects to another host refused (so that the
	// x-api-key header never leaves the API's host): NewHTTPClient(nil). Never http.DefaultClient.
	HTTPClient *http.Client
	// Retry is the retry policy. Optional. Defaults to DefaultRetryPolicy().
	Retry *RetryPolicy
	// Logger receives debug lines for each request and warnings for each retry, with
	// method, path, status and attempt; never headers or bodies. Optional. Defaults to
	// no logging.
	Logger *slog.Logger
	// MaxResponseBytes bounds every response body read. Optional. Defaults to
	// DefaultMaxResponseBytes (64 MiB).
	MaxResponseBytes int64
	// PageSize is the limit sent by iterators and List helpers when a filter sets none.
	// Optional. Defaults to DefaultPageSize (1000, the API's maximum).
	PageSize int
	// AuthConfigTTL is how long FindOrCreateAuthConfig remembers a toolkit's auth config.
	// Optional. Defaults to DefaultAuthConfigTTL (1 hour).
	AuthConfigTTL time.Duration
	// SearchUserID is the user id of the tool-router sessions SearchActions opens.
	// Optional. Defaults to DefaultSearchUserID ("default").
	SearchUserID string
	// Now returns the current time, for cache expiry. Optional. Defaults to time.Now.
	Now func() time.Time
}

// Client calls Composio's REST API. It is safe for concurrent use by multiple goroutines;
// create one per API key and reuse it.
type Client struct {
	key      string
	base     string // base URL + prefix, no trailing slash
	reqPath  string // the path of base: what errors and logs put before a route
	prefix   string
	httpc    *http.Client
	retry    RetryPolicy
	log      *slog.Logger
	maxBody  int64
	pageSize int
	ttl      time.Duration
	searchID string
	now      func() time.Time

	authMu       sync.Mutex
	authCache    map[string]authEntry
	authInflight map[string]*authCall

	sessMu   sync.Mutex
	sessions map[string]sessionEntry
}

// New returns a Client for cfg. It reports ErrConfig when the API key is missing or the
// base URL or prefix cannot be used.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, fmt.Errorf("%w: APIKey is required", ErrConfig)
	}
	if strings.ContainsAny(cfg.APIKey, "\r\n\x00") {
		return nil, fmt.Errorf("%w: APIKey contains control characters", ErrConfig)
	}
	base := cfg.BaseURL
	if base == "" {
		base = ProductionURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: BaseURL must be an absolute http or https URL", ErrConfig)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: BaseURL %s must not carry credentials, a query or a fragment", ErrConfig, u.Redacted())
	}
	prefix := cfg.PathPrefix
	if prefix != "" && !strings.HasPrefix(prefix, "/") {
		return nil, fmt.Errorf("%w: PathPrefix %q must start with /", ErrConfig, prefix)
	}
	prefix = strings.TrimRight(prefix, "/")
	// A BaseURL quoted with its API prefix ("https://backend.composio.dev/api/v3") gives the
	// prefix; whatever path comes before it (a proxy's mount point) is kept in front.
	mount := strings.TrimRight(u.EscapedPath(), "/")
	if i := strings.Index(mount+"/", "/api/"); i >= 0 {
		inURL := mount[i:]
		mount = mount[:i]
		switch {
		case inURL == "/api":
		case prefix == "":
			prefix = inURL
		case prefix != inURL:
			return nil, fmt.Errorf("%w: BaseURL %s ends in the API prefix %s but PathPrefix is %s; give the prefix once", ErrConfig, u.Redacted(), inURL, prefix)
		}
	}
	if prefix == "" {
		prefix = PrefixV31
	}
	c := &Client{
		key:          cfg.APIKey,
		base:         u.Scheme + "://" + u.Host + mount + prefix,
		prefix:       prefix,
		reqPath:      mount + prefix,
		httpc:        cfg.HTTPClient,
		log:          cfg.Logger,
		maxBody:      cfg.MaxResponseBytes,
		pageSize:     cfg.PageSize,
		ttl:          cfg.AuthConfigTTL,
		searchID:     cfg.SearchUserID,
		now:          cfg.Now,
		authCache:    map[string]authEntry{},
		authInflight: map[string]*authCall{},
		sessions:     map[string]sessionEntry{},
	}
	if c.httpc == nil {
		c.httpc = defaultHTTPClient()
	}
	if cfg.Retry != nil {
		c.retry = *cfg.Retry
	} else {
		c.retry = DefaultRetryPolicy()
	}
	c.retry.normalise()
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxResponseBytes
	}
	if c.pageSize <= 0 {
		c.pageSize = DefaultPageSize
	}
	if c.ttl <= 0 {
		c.ttl = DefaultAuthConfigTTL
	}
	if c.searchID == "" {
		c.searchID = DefaultSearchUserID
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
}

// PathPrefix returns the path prefix the client sends, e.g. "/api/v3.1".
func (c *Client) PathPrefix() string { return c.prefix }

func defaultHTTPClient() *http.Client { return NewHTTPClient(nil) }

// NewHTTPClient returns the HTTP client New uses when Config.HTTPClient is nil: a 60 s
// timeout, no proxy, and redirects to another host refused (so that the x-api-key header
// never leaves the API's host). It sends through transport, which may wrap another for
// tracing or metrics; nil uses a transport with a 5 s connect timeout and pooled
// connections.
func NewHTTPClient(transport http.RoundTripper) *http.Client {
	if transport == nil {
		transport = &http.Transport{
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	}
	return &http.Client{
		Timeout:   DefaultTimeout,
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("composio: too many redirects")
			}
			if req.URL.Host != via[0].URL.Host {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
}

// request describes one API call.
type request struct {
	method  string
	path    string // after the prefix, starting with "/"
	query   url.Values
	body    any
	execute bool // executing a tool: retried only when it provably did not run
	once    bool // sent once: the caller retries
}

// redact removes the API key from s.
func (c *Client) redact(s string) string {
	if c.key == "" || !strings.Contains(s, c.key) {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[REDACTED]")
}

// transportError wraps an error from the HTTP client with a redacted message while keeping
// it reachable for errors.Is and errors.As.
type transportError struct {
	msg string
	err error
}

func (e *transportError) Error() string { return e.msg }
func (e *transportError) Unwrap() error { return e.err }

// Temporary reports true for connection failures, false for responses that could not be
// understood (ErrInvalidResponse).
func (e *transportError) Temporary() bool { return !errors.Is(e.err, ErrInvalidResponse) }

func (c *Client) wrapTransport(r request, err error) error {
	return &transportError{msg: c.redact(fmt.Sprintf("composio: %s %s%s: %v", r.method, c.reqPath, r.path, err)), err: err}
}

// do sends r, retrying as the policy says, and decodes a 2xx body into out (when non-nil).
func (c *Client) do(ctx context.Context, r request, out any) error {
	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(r.body); err != nil {
			return fmt.Errorf("composio: %s %s%s: encoding request: %w", r.method, c.reqPath, r.path, err)
		}
	}
	u := c.base + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("composio: %s %s%s: %w", r.method, c.reqPath, r.path, err)
		}
		status, hdr, data, err := c.send(ctx, r, u, body)
		var lastErr error
		retry := false
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return fmt.Errorf("composio: %s %s%s: %w", r.method, c.reqPath, r.path, ctx.Err())
			}
			lastErr = err
			retry = c.retry.retryTransport(err, r.execute)
		case status >= 200 && status <= 299:
			if out == nil {
				return nil
			}
			if err := decodeJSON(data, hdr, out); err != nil {
				return fmt.Errorf("composio: %s %s%s: %w", r.method, c.reqPath, r.path, c.redactErr(err))
			}
			return nil
		default:
			lastErr = c.apiError(r, status, hdr, data)
			retry = c.retry.retryStatus(status, hdr, r.execute)
		}
		if !retry || r.once || attempt >= c.retry.MaxRetries {
			return lastErr
		}
		wait := c.retry.delay(attempt, hdr)
		c.log.LogAttrs(ctx, slog.LevelWarn, "composio: retrying request",
			slog.String("method", r.method), slog.String("path", c.reqPath+r.path),
			slog.Int("status", status), slog.Int("attempt", attempt+1),
			slog.Duration("wait", wait), slog.String("error", lastErr.Error()))
		if c.retry.OnRetry != nil {
			c.onRetry(ctx, RetryEvent{Method: r.method, Path: c.reqPath + r.path, Attempt: attempt + 1, StatusCode: status, Wait: wait, Err: lastErr})
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("composio: %s %s%s: %w while waiting to retry after: %w", r.method, c.reqPath, r.path, ctx.Err(), lastErr)
		case <-t.C:
		}
	}
}

// onRetry calls the host's OnRetry, logging a panic in it instead of letting it through:
// the retry goes ahead either way.
func (c *Client) onRetry(ctx context.Context, e RetryEvent) {
	defer func() {
		if v := recover(); v != nil {
			c.log.LogAttrs(ctx, slog.LevelError, "composio: host callback panicked",
				slog.String("callback", "RetryPolicy.OnRetry"), slog.String("panic", fmt.Sprint(v)))
		}
	}()
	c.retry.OnRetry(e)
}

func (c *Client) redactErr(err error) error {
	msg := err.Error()
	if red := c.redact(msg); red != msg {
		return &transportError{msg: red, err: ErrInvalidResponse}
	}
	return err
}

// send performs one attempt. A non-nil error is a transport failure (including a body read
// that failed part-way), already redacted.
func (c *Client) send(ctx context.Context, r request, u string, body []byte) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, rd)
	if err != nil {
		return 0, nil, nil, c.wrapTransport(r, err)
	}
	req.Header.Set("x-api-key", c.key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "toolhint-composio-go")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := c.httpc.Do(req)
	if err != nil {
		return 0, nil, nil, c.wrapTransport(r, err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if n := resp.ContentLength; n > 0 && n <= c.maxBody {
		buf.Grow(int(n) + bytes.MinRead)
	}
	_, err = buf.ReadFrom(io.LimitReader(resp.Body, c.maxBody+1))
	data := buf.Bytes()
	if err != nil {
		return 0, nil, nil, c.wrapTransport(r, fmt.Errorf("reading response body: %w", err))
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "composio: request",
		slog.String("method", r.method), slog.String("path", c.reqPath+r.path),
		slog.Int("status", resp.StatusCode), slog.Int("bytes", len(data)),
		slog.Duration("elapsed", time.Since(start)))
	if int64(len(data)) > c.maxBody {
		if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			return resp.StatusCode, resp.Header, nil, &transportError{
				msg: fmt.Sprintf("composio: %s %s%s: %v: body larger than %d bytes", r.method, c.reqPath, r.path, ErrInvalidResponse, c.maxBody),
				err: errTooLarge,
			}
		}
		data = data[:c.maxBody]
	}
	return resp.StatusCode, resp.Header, data, nil
}

// errTooLarge marks an oversized 2xx body: it is an invalid response and is not retried.
var errTooLarge = fmt.Errorf("%w: response body too large", ErrInvalidResponse)

// decodeJSON decodes a 2xx body, telling a non-JSON body apart from malformed JSON.
func decodeJSON(data []byte, hdr http.Header, out any) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return fmt.Errorf("%w: empty body", ErrInvalidResponse)
	}
	if trimmed[0] != '{' && trimmed[0] != '[' {
		return fmt.Errorf("%w: body is not JSON (content-type %q): %s", ErrInvalidResponse, hdr.Get("Content-Type"), snippet(trimmed))
	}
	if err := json.Unmarshal(trimmed, out); err != nil {
		return fmt.Errorf("%w: malformed JSON (%d bytes): %v", ErrInvalidResponse, len(data), err)
	}
	return nil
}

func snippet(b []byte) string {
	const max = 120
	s := strings.ToValidUTF8(string(b), "?")
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// apiError builds the *APIError of a non-2xx response.
func (c *Client) apiError(r request, status int, hdr http.Header, data []byte) *APIError {
	e := &APIError{StatusCode: status, Method: r.method, Path: c.reqPath + r.path, RequestID: c.redact(hdr.Get("x-request-id"))}
	e.retryAfter, _ = retryAfter(hdr, time.Now())
	var env struct {
		Error *struct {
			Message      string          `json:"message"`
			Code         json.Number     `json:"code"`
			RequestID    string          `json:"request_id"`
			SuggestedFix string          `json:"suggested_fix"`
			Errors       json.RawMessage `json:"errors"`
		} `json:"error"`
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(trimmed, &env) == nil && env.Error != nil {
		e.Message = c.redact(env.Error.Message)
		if n, err := env.Error.Code.Int64(); err == nil {
			e.Code = int(n)
		}
		if env.Error.RequestID != "" {
			e.RequestID = c.redact(env.Error.RequestID)
		}
		e.SuggestedFix = c.redact(env.Error.SuggestedFix)
		var list []string
		if json.Unmarshal(env.Error.Errors, &list) == nil {
			for _, s := range list {
				e.Details = append(e.Details, c.redact(s))
			}
		}
		return e
	}
	if len(trimmed) == 0 {
		e.Message = "empty body"
		return e
	}
	if trimmed[0] == '{' {
		// JSON, but not the envelope: keep a short excerpt.
		e.Message = c.redact("unexpected error body: " + snippet(trimmed))
		return e
	}
	e.notJSON = true
	e.Message = c.redact(fmt.Sprintf("response is not JSON (content-type %q): %s", hdr.Get("Content-Type"), snippet(trimmed)))
	return e
}
