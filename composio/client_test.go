package composio_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

func TestNewConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  composio.Config
		ok   bool
	}{
		{"minimal", composio.Config{APIKey: "k"}, true},
		{"no key", composio.Config{}, false},
		{"blank key", composio.Config{APIKey: "  "}, false},
		{"newline in key", composio.Config{APIKey: "k\nx"}, false},
		{"relative base", composio.Config{APIKey: "k", BaseURL: "backend.composio.dev"}, false},
		{"ftp base", composio.Config{APIKey: "k", BaseURL: "ftp://x"}, false},
		{"bad prefix", composio.Config{APIKey: "k", PathPrefix: "api/v3"}, false},
		{"v3", composio.Config{APIKey: "k", PathPrefix: composio.PrefixV3}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := composio.New(tt.cfg)
			if tt.ok != (err == nil) {
				t.Fatalf("New() error = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, composio.ErrConfig) {
				t.Errorf("error %v does not match ErrConfig", err)
			}
			if c != nil && tt.cfg.PathPrefix == "" && c.PathPrefix() != composio.PrefixV31 {
				t.Errorf("default prefix = %q, want %q", c.PathPrefix(), composio.PrefixV31)
			}
		})
	}
}

// TestBaseURLWithPath accepts a BaseURL quoted with its API prefix (as Composio's
// documentation writes it) or behind a proxy's mount point, sends each request to the URL
// that was meant, and names that URL in errors.
func TestBaseURLWithPath(t *testing.T) {
	srv := composiotest.NewServer(t, composiotest.WithCatalog(fixture()))
	var mu sync.Mutex
	var proxied []string
	// The proxy mounts the API under /composio and forwards to the fake.
	target, _ := url.Parse(srv.URL)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		proxied = append(proxied, r.URL.Path)
		mu.Unlock()
		rest, ok := strings.CutPrefix(r.URL.Path, "/composio")
		if !ok {
			http.NotFound(w, r)
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, target.String()+rest+"?"+r.URL.RawQuery, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer proxy.Close()

	tests := []struct {
		name, base, prefix string
		wantPrefix         string // the prefix the fake saw
		wantErrPath        string // the path a 404 names
		wantProxied        string
	}{
		{"prefix in the URL", srv.URL + "/api/v3", "", composio.PrefixV3, "/api/v3/tools/NOPE_X", ""},
		{"prefix in the URL with a slash", srv.URL + "/api/v3.1/", "", composio.PrefixV31, "/api/v3.1/tools/NOPE_X", ""},
		{"same prefix twice", srv.URL + "/api/v3", composio.PrefixV3, composio.PrefixV3, "/api/v3/tools/NOPE_X", ""},
		{"mount point", proxy.URL + "/composio", composio.PrefixV3, composio.PrefixV3, "/composio/api/v3/tools/NOPE_X", "/composio/api/v3/tools/NOPE_X"},
		{"mount point and prefix", proxy.URL + "/composio/api/v3", "", composio.PrefixV3, "/composio/api/v3/tools/NOPE_X", "/composio/api/v3/tools/NOPE_X"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.ResetRequests()
			mu.Lock()
			proxied = nil
			mu.Unlock()
			cfg := srv.Config()
			cfg.BaseURL, cfg.PathPrefix = tt.base, tt.prefix
			c, err := composio.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if c.PathPrefix() != tt.wantPrefix {
				t.Errorf("PathPrefix() = %q, want %q", c.PathPrefix(), tt.wantPrefix)
			}
			if _, err := c.Tool(context.Background(), "GMAIL_SEND_EMAIL", ""); err != nil {
				t.Fatalf("Tool: %v", err)
			}
			_, err = c.Tool(context.Background(), "NOPE_X", "")
			var apiErr *composio.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
				t.Fatalf("Tool(NOPE_X) error = %v, want a 404 APIError", err)
			}
			if apiErr.Path != tt.wantErrPath || !strings.Contains(err.Error(), tt.wantErrPath) {
				t.Errorf("404 names %q (%v), want %q", apiErr.Path, err, tt.wantErrPath)
			}
			for _, r := range srv.Requests() {
				if r.Prefix != tt.wantPrefix {
					t.Errorf("fake saw prefix %q for %s, want %q", r.Prefix, r.Path, tt.wantPrefix)
				}
			}
			if tt.wantProxied != "" {
				mu.Lock()
				defer mu.Unlock()
				if len(proxied) != 2 || proxied[1] != tt.wantProxied {
					t.Errorf("proxy saw %q, want the second request at %q", proxied, tt.wantProxied)
				}
			}
		})
	}

	bad := []struct{ name, base, prefix string }{
		{"two different prefixes", srv.URL + "/api/v3", composio.PrefixV31},
		{"query", srv.URL + "?x=1", ""},
		{"credentials", "https://user:secret@backend.composio.dev", ""},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := composio.New(composio.Config{APIKey: "k", BaseURL: tt.base, PathPrefix: tt.prefix})
			if !errors.Is(err, composio.ErrConfig) {
				t.Fatalf("New() error = %v, want ErrConfig", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q shows the password in the URL", err)
			}
		})
	}
}

func TestHeadersAndPrefixes(t *testing.T) {
	for _, prefix := range []string{composio.PrefixV3, composio.PrefixV31} {
		t.Run(prefix, func(t *testing.T) {
			srv, c := newClient(t, func(cfg *composio.Config) { cfg.PathPrefix = prefix })
			if _, err := c.Tool(context.Background(), "gmail_send_email", ""); err != nil {
				t.Fatal(err)
			}
			srv.HandleExecute("GMAIL_SEND_EMAIL", func(context.Context, composiotest.ExecuteCall) (any, error) { return nil, nil })
			if _, err := c.Execute(context.Background(), "GMAIL_SEND_EMAIL", composio.ExecuteRequest{UserID: "u"}); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("got %d requests, want 2", len(reqs))
			}
			for _, r := range reqs {
				if r.Prefix != prefix {
					t.Errorf("%s %s: prefix %q, want %q", r.Method, r.Path, r.Prefix, prefix)
				}
				if got := r.Header.Get("x-api-key"); got != srv.APIKey() {
					t.Errorf("%s %s: x-api-key %q, want the configured key", r.Method, r.Path, got)
				}
				if got := r.Header.Get("Accept"); got != "application/json" {
					t.Errorf("%s %s: Accept %q", r.Method, r.Path, got)
				}
			}
			if got := reqs[0].Path; got != "/tools/GMAIL_SEND_EMAIL" {
				t.Errorf("get tool path = %q", got)
			}
			if got := reqs[1].Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("execute Content-Type = %q", got)
			}
		})
	}
}

func TestWrongAPIKey(t *testing.T) {
	_, c := newClient(t, func(cfg *composio.Config) { cfg.APIKey = "wrong-key" })
	_, err := c.ListToolkits(context.Background(), composio.ToolkitFilter{})
	var apiErr *composio.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, composio.ErrUnauthorized) {
		t.Fatalf("err = %v, want *APIError matching ErrUnauthorized", err)
	}
	if apiErr.StatusCode != 401 || apiErr.Code == 0 || apiErr.Message == "" || apiErr.RequestID == "" || apiErr.SuggestedFix == "" {
		t.Errorf("APIError fields not parsed from the envelope: %+v", apiErr)
	}
}

func TestQueryEncoding(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		prefix string
		call   func(c *composio.Client) error
		path   string
		want   url.Values
	}{
		{"tools zero filter", "", func(c *composio.Client) error {
			_, err := c.ToolsPage(ctx, composio.ToolFilter{}, "")
			return err
		}, "/tools", url.Values{"limit": {"1000"}, "include_deprecated": {"false"}}},
		{"tools every filter v3.1", "", func(c *composio.Client) error {
			_, err := c.ToolsPage(ctx, composio.ToolFilter{
				Toolkits: []string{"GMAIL", " github "}, Tools: []string{"gmail_send_email"}, Search: "send mail",
				Tags: []string{"readOnlyHint", "important"}, Scopes: []string{"repo"}, AuthConfigIDs: []string{"ac_1"},
				Important: true, IncludeDeprecated: true, ToolkitVersions: map[string]string{"Gmail": "20250905_00", "slack": "latest"}, Limit: 7,
			}, "")
			return err
		}, "/tools", url.Values{
			"toolkit_slug": {"gmail,github"}, "tool_slugs": {"GMAIL_SEND_EMAIL"}, "query": {"send mail"},
			"tags": {"readOnlyHint", "important"}, "scopes": {"repo"}, "auth_config_ids": {"ac_1"}, "important": {"true"},
			"include_deprecated": {"true"}, "toolkit_versions[gmail]": {"20250905_00"}, "toolkit_versions[slack]": {"latest"}, "limit": {"7"},
		}},
		{"tools search on v3", composio.PrefixV3, func(c *composio.Client) error {
			_, err := c.ToolsPage(ctx, composio.ToolFilter{Search: "issue", ToolkitVersions: map[string]string{"": "latest"}}, "")
			return err
		}, "/tools", url.Values{"search": {"issue"}, "toolkit_versions": {"latest"}, "include_deprecated": {"false"}, "limit": {"1000"}}},
		{"tools cursor", "", func(c *composio.Client) error {
			_, err := c.ToolsPage(ctx, composio.ToolFilter{Limit: 2}, "cGFnZT0yJmxpbWl0PTI=")
			return err
		}, "/tools", url.Values{"limit": {"2"}, "cursor": {"cGFnZT0yJmxpbWl0PTI="}, "include_deprecated": {"false"}}},
		{"toolkits", "", func(c *composio.Client) error {
			_, err := c.ToolkitsPage(ctx, composio.ToolkitFilter{Category: "communication", ManagedBy: "composio", SortBy: "alphabetically", Search: "mail", Type: "all", IncludeDeprecated: true, Limit: 5}, "")
			return err
		}, "/toolkits", url.Values{"category": {"communication"}, "managed_by": {"composio"}, "sort_by": {"alphabetically"}, "search": {"mail"}, "type": {"all"}, "include_deprecated": {"true"}, "limit": {"5"}}},
		{"auth configs", "", func(c *composio.Client) error {
			_, err := c.AuthConfigsPage(ctx, composio.AuthConfigFilter{Toolkits: []string{"GMAIL", "github"}, ManagedOnly: true, ShowDisabled: true, Search: "x", Limit: 3}, "")
			return err
		}, "/auth_configs", url.Values{"toolkit_slug": {"gmail,github"}, "is_composio_managed": {"true"}, "show_disabled": {"true"}, "search": {"x"}, "limit": {"3"}}},
		{"connected accounts", "", func(c *composio.Client) error {
			_, err := c.ConnectedAccountsPage(ctx, composio.ConnectedAccountFilter{
				Toolkits: []string{"Gmail", "github"}, Statuses: []string{"active", "INITIATED"}, UserIDs: []string{"u1", "u2"},
				AuthConfigIDs: []string{"ac_1"}, IDs: []string{"ca_1"}, OrderBy: "created_at", OrderDirection: "asc", Limit: 9}, "")
			return err
		}, "/connected_accounts", url.Values{
			"toolkit_slugs": {"gmail", "github"}, "statuses": {"ACTIVE", "INITIATED"}, "user_ids": {"u1", "u2"},
			"auth_config_ids": {"ac_1"}, "connected_account_ids": {"ca_1"}, "order_by": {"created_at"}, "order_direction": {"asc"}, "limit": {"9"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := newClient(t, func(cfg *composio.Config) {
				if tt.prefix != "" {
					cfg.PathPrefix = tt.prefix
				}
			})
			if err := tt.call(c); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("got %d requests, want 1", len(reqs))
			}
			if reqs[0].Path != tt.path {
				t.Errorf("path = %q, want %q", reqs[0].Path, tt.path)
			}
			if diff := cmp.Diff(tt.want, reqs[0].Query); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolsFilteringEndToEnd(t *testing.T) {
	ctx := context.Background()
	_, c := newClient(t, nil)
	tests := []struct {
		name string
		f    composio.ToolFilter
		want []string
	}{
		{"all non-deprecated", composio.ToolFilter{}, []string{"ABLY_PUBLISH", "GITHUB_CREATE_ISSUE", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL", "HACKERNEWS_GET_USER"}},
		{"with deprecated", composio.ToolFilter{Toolkits: []string{"GMAIL"}, IncludeDeprecated: true}, []string{"GMAIL_FETCH_EMAILS", "GMAIL_OLD_SEND", "GMAIL_SEND_EMAIL"}},
		{"toolkits", composio.ToolFilter{Toolkits: []string{"github", "HACKERNEWS"}}, []string{"GITHUB_CREATE_ISSUE", "HACKERNEWS_GET_USER"}},
		{"tool slugs", composio.ToolFilter{Tools: []string{"gmail_send_email", "ably_publish"}}, []string{"ABLY_PUBLISH", "GMAIL_SEND_EMAIL"}},
		{"search", composio.ToolFilter{Search: "email"}, []string{"GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}},
		{"tags", composio.ToolFilter{Tags: []string{"readOnlyHint"}}, []string{"GMAIL_FETCH_EMAILS", "HACKERNEWS_GET_USER"}},
		{"important", composio.ToolFilter{Important: true}, []string{"GITHUB_CREATE_ISSUE", "GMAIL_SEND_EMAIL"}},
		{"nothing", composio.ToolFilter{Search: "zzz"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ListTools(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, slugs(got)); diff != "" && !(len(tt.want) == 0 && len(got) == 0) {
				t.Errorf("slugs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPagination(t *testing.T) {
	ctx := context.Background()
	srv, c := newClient(t, func(cfg *composio.Config) { cfg.PageSize = 10 })
	srv.AddTools(manyTools(45)...)
	f := composio.ToolFilter{Toolkits: []string{"bulk"}}

	t.Run("to the end", func(t *testing.T) {
		srv.ResetRequests()
		got, err := c.ListTools(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(slugs(manyTools(45)), slugs(got)); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
		reqs := srv.RequestsTo("GET", "/tools")
		if len(reqs) != 5 {
			t.Fatalf("%d requests, want 5 (pages of 10)", len(reqs))
		}
		for i, r := range reqs {
			if r.Page != i+1 {
				t.Errorf("request %d asked for page %d", i, r.Page)
			}
		}
	})
	t.Run("early break", func(t *testing.T) {
		srv.ResetRequests()
		n := 0
		for tool, err := range c.Tools(ctx, f) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if tool.Slug == "BULK_TOOL_0012" {
				break
			}
		}
		if n != 13 {
			t.Errorf("saw %d tools before breaking, want 13", n)
		}
		if got := len(srv.RequestsTo("GET", "/tools")); got != 2 {
			t.Errorf("%d requests after breaking on page 2, want 2", got)
		}
	})
	t.Run("page by page", func(t *testing.T) {
		p, err := c.ToolsPage(ctx, composio.ToolFilter{Toolkits: []string{"bulk"}, Limit: 20}, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != 20 || p.NextCursor == "" || p.TotalItems != 45 || p.TotalPages != 3 || p.CurrentPage != 1 {
			t.Fatalf("page 1 = %d items, cursor %q, total %d, pages %d, current %d", len(p.Items), p.NextCursor, p.TotalItems, p.TotalPages, p.CurrentPage)
		}
		p3, err := c.ToolsPage(ctx, composio.ToolFilter{Toolkits: []string{"bulk"}, Limit: 20}, p.NextCursor)
		if err != nil {
			t.Fatal(err)
		}
		p3, err = c.ToolsPage(ctx, composio.ToolFilter{Toolkits: []string{"bulk"}, Limit: 20}, p3.NextCursor)
		if err != nil {
			t.Fatal(err)
		}
		if len(p3.Items) != 5 || p3.NextCursor != "" {
			t.Errorf("last page = %d items, cursor %q; want 5 and none", len(p3.Items), p3.NextCursor)
		}
	})
	t.Run("error stops the iteration", func(t *testing.T) {
		srv.ResetRequests()
		srv.FailPage("/tools", 3, 0, composiotest.ServerError(http.StatusBadRequest))
		defer srv.ClearFaults()
		n := 0
		var gotErr error
		for _, err := range c.Tools(ctx, f) {
			if err != nil {
				gotErr = err
				continue
			}
			n++
		}
		if n != 20 || !errors.Is(gotErr, composio.ErrBadRequest) {
			t.Errorf("got %d tools and error %v; want 20 and ErrBadRequest", n, gotErr)
		}
	})
	t.Run("cancelled between pages", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		n := 0
		var gotErr error
		for _, err := range c.Tools(ctx, f) {
			if err != nil {
				gotErr = err
				break
			}
			n++
			if n == 10 {
				cancel()
			}
		}
		if n != 10 || !errors.Is(gotErr, context.Canceled) {
			t.Errorf("got %d tools and error %v; want 10 and context.Canceled", n, gotErr)
		}
	})
}

// retryCounter records the retries a client makes.
type retryCounter struct {
	mu     sync.Mutex
	events []composio.RetryEvent
}

func (r *retryCounter) on(e composio.RetryEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *retryCounter) waits() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Duration
	for _, e := range r.events {
		out = append(out, e.Wait)
	}
	return out
}

func fastRetry(rc *retryCounter) *composio.RetryPolicy {
	p := composio.DefaultRetryPolicy()
	p.InitialDelay, p.MaxDelay, p.OnRetry = time.Millisecond, 4*time.Millisecond, rc.on
	return &p
}

func TestRetries(t *testing.T) {
	withHeader := func(f composiotest.Fault, k, v string) composiotest.Fault {
		f.Header = http.Header{}
		f.Header.Set(k, v)
		return f
	}
	tests := []struct {
		name     string
		fault    composiotest.Fault
		failures int
		requests int
		err      error // nil: the call succeeds
	}{
		{"500 once", composiotest.ServerError(500), 1, 2, nil},
		{"502 twice", composiotest.ServerError(502), 2, 3, nil},
		{"503 always", composiotest.ServerError(503), 10, 3, composio.ErrServer},
		{"408", composiotest.ServerError(408), 1, 2, nil},
		{"409", composiotest.ServerError(409), 1, 2, nil},
		{"429", composiotest.RateLimited(0), 2, 3, nil},
		{"429 always", composiotest.RateLimited(0), 10, 3, composio.ErrRateLimited},
		{"400 not retried", composiotest.ServerError(400), 1, 1, composio.ErrBadRequest},
		{"404 not retried", composiotest.ServerError(404), 1, 1, composio.ErrNotFound},
		{"x-should-retry false", withHeader(composiotest.ServerError(500), "x-should-retry", "false"), 1, 1, composio.ErrServer},
		{"x-should-retry true", withHeader(composiotest.ServerError(400), "x-should-retry", "true"), 1, 2, nil},
		{"connection dropped", composiotest.Disconnect(), 2, 3, nil},
		{"html 502 page", composiotest.HTMLError(502), 1, 2, nil},
		{"malformed JSON not retried", composiotest.MalformedJSON(), 1, 1, composio.ErrInvalidResponse},
		{"truncated JSON not retried", composiotest.TruncatedJSON(), 1, 1, composio.ErrInvalidResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := &retryCounter{}
			srv, c := newClient(t, func(cfg *composio.Config) { cfg.Retry = fastRetry(rc) })
			srv.FailNext(tt.failures, tt.fault)
			tools, err := c.ListTools(context.Background(), composio.ToolFilter{Toolkits: []string{"gmail"}})
			if tt.err == nil && (err != nil || len(tools) != 2) {
				t.Errorf("got %d tools, error %v; want 2 tools", len(tools), err)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("error = %v, want %v", err, tt.err)
			}
			if got := len(srv.Requests()); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			if got := len(rc.waits()); got != tt.requests-1 {
				t.Errorf("%d retries reported, want %d", got, tt.requests-1)
			}
		})
	}
}

func TestRetryLimits(t *testing.T) {
	for _, max := range []int{0, 1, 4} {
		t.Run("max "+string(rune('0'+max)), func(t *testing.T) {
			rc := &retryCounter{}
			srv, c := newClient(t, func(cfg *composio.Config) {
				p := fastRetry(rc)
				p.MaxRetries = max
				cfg.Retry = p
			})
			srv.FailNext(100, composiotest.ServerError(500))
			_, err := c.ListToolkits(context.Background(), composio.ToolkitFilter{})
			if !errors.Is(err, composio.ErrServer) {
				t.Fatalf("error = %v", err)
			}
			if got := len(srv.Requests()); got != max+1 {
				t.Errorf("%d requests, want %d", got, max+1)
			}
		})
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	rc := &retryCounter{}
	srv, c := newClient(t, func(cfg *composio.Config) {
		p := fastRetry(rc)
		p.MaxRetries, p.InitialDelay, p.MaxDelay = 5, 4*time.Millisecond, 16*time.Millisecond
		cfg.Retry = p
	})
	srv.FailNext(100, composiotest.ServerError(500))
	_, _ = c.ListToolkits(context.Background(), composio.ToolkitFilter{})
	// Backoff 4, 8, 16, 16, 16 ms, each with up to 25% jitter taken off.
	want := []time.Duration{4, 8, 16, 16, 16}
	got := rc.waits()
	if len(got) != len(want) {
		t.Fatalf("%d waits, want %d", len(got), len(want))
	}
	for i, w := range want {
		hi := w * time.Millisecond
		lo := hi * 3 / 4
		if got[i] < lo || got[i] > hi {
			t.Errorf("wait %d = %v, want in [%v, %v]", i, got[i], lo, hi)
		}
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	tests := []struct {
		name   string
		header string
		value  string
		want   time.Duration // 0: the backoff applies (at most MaxDelay)
	}{
		{"retry-after-ms", "retry-after-ms", "30", 30 * time.Millisecond},
		{"retry-after seconds", "retry-after", "1", time.Second},
		{"retry-after fractional", "retry-after", "0.05", 50 * time.Millisecond},
		{"retry-after date", "retry-after", "", 0}, // filled below: a date in the past means the backoff
		{"retry-after too long", "retry-after", "120", 0},
		{"retry-after garbage", "retry-after", "soon", 0},
		{"retry-after-ms negative", "retry-after-ms", "-5", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := &retryCounter{}
			srv, c := newClient(t, func(cfg *composio.Config) { cfg.Retry = fastRetry(rc) })
			f := composiotest.ServerError(http.StatusTooManyRequests)
			f.Header = http.Header{}
			v := tt.value
			if v == "" {
				v = time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
			}
			f.Header.Set(tt.header, v)
			srv.FailNext(1, f)
			if _, err := c.ListToolkits(context.Background(), composio.ToolkitFilter{}); err != nil {
				t.Fatal(err)
			}
			waits := rc.waits()
			if len(waits) != 1 {
				t.Fatalf("%d retries, want 1", len(waits))
			}
			if tt.want != 0 && waits[0] != tt.want {
				t.Errorf("wait = %v, want %v", waits[0], tt.want)
			}
			if tt.want == 0 && waits[0] > 4*time.Millisecond {
				t.Errorf("wait = %v, want the backoff (<= 4ms)", waits[0])
			}
		})
	}
}

func TestContextCancelledMidBackoff(t *testing.T) {
	rc := &retryCounter{}
	srv, c := newClient(t, func(cfg *composio.Config) { cfg.Retry = fastRetry(rc) })
	srv.FailNext(1, composiotest.RateLimited(30*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.ListToolkits(ctx, composio.ToolkitFilter{})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, composio.ErrRateLimited) {
		t.Fatalf("error = %v; want DeadlineExceeded and ErrRateLimited", err)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("returned after %v: the 30 s retry-after was not cut short", waited)
	}
	if got := rc.waits(); len(got) != 1 || got[0] != 30*time.Second {
		t.Errorf("waits = %v, want [30s]", got)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("%d requests, want 1", got)
	}
}

func TestSlowResponseHitsContext(t *testing.T) {
	srv, c := newClient(t, nil)
	srv.FailNext(1, composiotest.Slow(5*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.ListToolkits(ctx, composio.ToolkitFilter{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want DeadlineExceeded", err)
	}
	// A slow answer within the deadline is just slow.
	srv.FailNext(1, composiotest.Slow(10*time.Millisecond))
	if _, err := c.ListToolkits(context.Background(), composio.ToolkitFilter{}); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidResponses(t *testing.T) {
	tests := []struct {
		name  string
		fault composiotest.Fault
		max   int64
		is    []error
		text  string
	}{
		{"html error page", composiotest.HTMLError(502), 0, []error{composio.ErrServer, composio.ErrInvalidResponse}, "not JSON"},
		{"html 200", composiotest.Fault{Body: "<html>oops</html>", ContentType: "text/html"}, 0, []error{composio.ErrInvalidResponse}, "not JSON"},
		{"malformed", composiotest.MalformedJSON(), 0, []error{composio.ErrInvalidResponse}, "malformed JSON"},
		{"truncated", composiotest.TruncatedJSON(), 0, []error{composio.ErrInvalidResponse}, "malformed JSON"},
		{"too large", composiotest.Fault{}, 100, []error{composio.ErrInvalidResponse}, "larger than 100 bytes"},
		{"error envelope too large", composiotest.Fault{Status: 500, Body: `{"error":{"message":"` + strings.Repeat("x", 500) + `"}}`}, 100, []error{composio.ErrServer}, "500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := newClient(t, func(cfg *composio.Config) {
				cfg.Retry = &composio.RetryPolicy{}
				cfg.MaxResponseBytes = tt.max
			})
			srv.FailNext(1, tt.fault)
			_, err := c.ListTools(context.Background(), composio.ToolFilter{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tt.is {
				if !errors.Is(err, want) {
					t.Errorf("error %q does not match %v", err, want)
				}
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %q does not say %q", err, tt.text)
			}
		})
	}
}

// countingTransport counts the requests it sends.
type countingTransport struct {
	mu sync.Mutex
	n  int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestNewHTTPClient sends through the given transport and keeps the default client's
// refusal of redirects to another host.
func TestNewHTTPClient(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect to another host was followed (x-api-key %q)", r.Header.Get("x-api-key"))
	}))
	defer other.Close()
	srv := composiotest.NewServer(t, composiotest.WithCatalog(fixture()))
	redirect := httptest.NewServer(http.RedirectHandler(other.URL+"/api/v3.1/tools", http.StatusFound))
	defer redirect.Close()

	tr := &countingTransport{}
	cfg := srv.Config()
	cfg.HTTPClient = composio.NewHTTPClient(tr)
	c, err := composio.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tool(context.Background(), "GMAIL_SEND_EMAIL", ""); err != nil {
		t.Fatal(err)
	}
	cfg.BaseURL = redirect.URL
	c, err = composio.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tool(context.Background(), "GMAIL_SEND_EMAIL", ""); err == nil {
		t.Error("a redirect to another host succeeded")
	}
	if tr.n != 2 {
		t.Errorf("the transport sent %d requests, want 2", tr.n)
	}
}

// TestOnRetryPanicLogged: a panicking OnRetry is logged and the retry goes ahead.
func TestOnRetryPanicLogged(t *testing.T) {
	var logs bytes.Buffer
	calls := 0
	srv, c := newClient(t, func(cfg *composio.Config) {
		p := composio.DefaultRetryPolicy()
		p.InitialDelay, p.MaxDelay = time.Millisecond, time.Millisecond
		p.OnRetry = func(composio.RetryEvent) { calls++; panic("host hook exploded") }
		cfg.Retry = &p
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	srv.FailNext(1, composiotest.ServerError(500))
	if _, err := c.ListTools(context.Background(), composio.ToolFilter{Toolkits: []string{"gmail"}}); err != nil {
		t.Fatalf("ListTools after one retry: %v", err)
	}
	if calls != 1 || !strings.Contains(logs.String(), "RetryPolicy.OnRetry") {
		t.Errorf("OnRetry called %d times; log %q", calls, logs.String())
	}
}
