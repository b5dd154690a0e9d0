package composio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

func TestToolkits(t *testing.T) {
	ctx := context.Background()
	_, c := newClient(t, nil)
	tests := []struct {
		name string
		f    composio.ToolkitFilter
		want []string
	}{
		{"all", composio.ToolkitFilter{}, []string{"ably", "github", "gmail", "hackernews"}},
		{"search", composio.ToolkitFilter{Search: "mail"}, []string{"gmail"}},
		{"category", composio.ToolkitFilter{Category: "developer-tools"}, []string{"github"}},
		{"managed", composio.ToolkitFilter{ManagedBy: "composio"}, []string{"github", "gmail"}},
		{"small pages", composio.ToolkitFilter{Limit: 1}, []string{"ably", "github", "gmail", "hackernews"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ListToolkits(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var slugs []string
			for _, tk := range got {
				slugs = append(slugs, tk.Slug)
			}
			if diff := cmp.Diff(tt.want, slugs); diff != "" {
				t.Errorf("toolkits (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("get one", func(t *testing.T) {
		tk, err := c.Toolkit(ctx, "GMAIL", "")
		if err != nil {
			t.Fatal(err)
		}
		if tk.Slug != "gmail" || tk.NeedsNoAuth() || len(tk.AuthConfigDetails) != 2 || tk.AuthConfigDetails[0].Mode != "OAUTH2" {
			t.Errorf("toolkit = %+v", tk)
		}
		hn, err := c.Toolkit(ctx, "hackernews", "")
		if err != nil || !hn.NeedsNoAuth() {
			t.Errorf("hackernews = %+v, %v; want NO_AUTH", hn, err)
		}
		if _, err := c.Toolkit(ctx, "nope", ""); !errors.Is(err, composio.ErrNotFound) {
			t.Errorf("unknown toolkit: error = %v", err)
		}
	})
	t.Run("categories", func(t *testing.T) {
		got, err := c.Categories(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []composio.Category{{ID: "communication", Name: "communication"}, {ID: "developer-tools", Name: "developer tools"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("categories (-want +got):\n%s", diff)
		}
	})
}

func TestToolGetAndEnum(t *testing.T) {
	ctx := context.Background()
	_, c := newClient(t, nil)
	tool, err := c.Tool(ctx, "gmail_send_email", "")
	if err != nil {
		t.Fatal(err)
	}
	if tool.Slug != "GMAIL_SEND_EMAIL" || tool.Toolkit.Slug != "gmail" || !json.Valid(tool.InputParameters) {
		t.Errorf("tool = %+v", tool)
	}
	if _, err := c.Tool(ctx, "GMAIL_NOPE", ""); !errors.Is(err, composio.ErrNotFound) {
		t.Errorf("unknown tool: error = %v", err)
	}
	all, err := c.ToolSlugs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ABLY_PUBLISH", "GITHUB_CREATE_ISSUE", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL", "HACKERNEWS_GET_USER"}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("enum (-want +got):\n%s", diff)
	}
	tools, err := c.ToolkitTools(ctx, "GMAIL")
	if err != nil || len(tools) != 2 {
		t.Errorf("ToolkitTools = %d tools, %v", len(tools), err)
	}
}

func TestSearchActions(t *testing.T) {
	ctx := context.Background()
	srv, c := newClient(t, nil)
	t.Run("default ranking", func(t *testing.T) {
		got, err := c.SearchActions(ctx, "send an email to my boss", []string{"GMAIL"}, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0] != "GMAIL_SEND_EMAIL" {
			t.Errorf("slugs = %v, want GMAIL_SEND_EMAIL first", got)
		}
		for _, s := range got {
			if !strings.HasPrefix(s, "GMAIL_") {
				t.Errorf("slug %s outside the requested toolkit", s)
			}
		}
	})
	t.Run("primary then related, deduplicated and limited", func(t *testing.T) {
		srv.HandleSearch(func(useCase string, toolkits []string) ([]string, []string) {
			return []string{"GITHUB_CREATE_ISSUE", "gmail_send_email"}, []string{"GMAIL_SEND_EMAIL", "ABLY_PUBLISH", "HACKERNEWS_GET_USER"}
		})
		defer srv.HandleSearch(nil)
		got, err := c.SearchActions(ctx, "anything", nil, 3)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"GITHUB_CREATE_ISSUE", "GMAIL_SEND_EMAIL", "ABLY_PUBLISH"}, got); diff != "" {
			t.Errorf("slugs (-want +got):\n%s", diff)
		}
	})
	t.Run("session reused per toolkit set", func(t *testing.T) {
		srv.ResetRequests()
		for range 3 {
			if _, err := c.SearchActions(ctx, "issue", []string{"github", "GITHUB"}, 0); err != nil {
				t.Fatal(err)
			}
		}
		if got := len(srv.RequestsTo("POST", "/tool_router/session")); got != 1 {
			t.Errorf("%d sessions opened, want 1", got)
		}
	})
	t.Run("empty query", func(t *testing.T) {
		if _, err := c.SearchActions(ctx, " ", nil, 0); !errors.Is(err, composio.ErrInvalidArgument) {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("session API", func(t *testing.T) {
		s, err := c.CreateSession(ctx, composio.SessionRequest{UserID: "u", Toolkits: []string{"gmail"}})
		if err != nil || s.ID == "" || s.MCPURL == "" {
			t.Fatalf("session = %+v, %v", s, err)
		}
		resp, err := c.SearchSession(ctx, s.ID, []composio.SearchQuery{{UseCase: "fetch emails"}, {UseCase: "send email"}})
		if err != nil || !resp.Success || len(resp.Results) != 2 || resp.Results[1].Index != 2 {
			t.Fatalf("search = %+v, %v", resp, err)
		}
		if _, err := c.SearchSession(ctx, "trs_missing", []composio.SearchQuery{{UseCase: "x"}}); !errors.Is(err, composio.ErrNotFound) {
			t.Errorf("unknown session: error = %v", err)
		}
	})
}

// TestSecretsNeverLeak makes the server echo the API key everywhere it can and checks
// that no error string and no log line contains it.
func TestSecretsNeverLeak(t *testing.T) {
	const key = "sk-live-SECRET-0123456789abcdef"
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rc := &retryCounter{}
	srv, c := newClient(t, func(cfg *composio.Config) {
		cfg.Logger = logger
		cfg.Retry = fastRetry(rc)
	}, composiotest.WithAPIKey(key))
	srv.HandleAllExecute(func(_ context.Context, call composiotest.ExecuteCall) (any, error) {
		if call.Text != "" {
			return nil, &composio.APIError{StatusCode: 500, Message: "bad key " + key, SuggestedFix: "rotate " + key}
		}
		return nil, errors.New("upstream rejected key " + key)
	})
	ctx := context.Background()
	var errs []string
	record := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	faults := []composiotest.Fault{
		{Status: 500, Body: `{"error":{"message":"invalid key ` + key + `","code":1,"status":500,"request_id":"` + key + `","suggested_fix":"` + key + `","errors":["` + key + `"]}}`},
		{Status: 502, Body: "<html>proxy saw x-api-key: " + key + "</html>", ContentType: "text/html"},
		{Body: "not json " + key},
		{Body: `{"items":[{"slug":"` + key},
		{Status: 418, Body: `{"detail":"` + key + `"}`},
	}
	for _, f := range faults {
		srv.FailNext(3, f)
		_, err := c.ListTools(ctx, composio.ToolFilter{})
		record(err)
		srv.ClearFaults()
	}
	res, err := c.Execute(ctx, "GMAIL_SEND_EMAIL", composio.ExecuteRequest{UserID: "u"})
	record(err)
	errs = append(errs, res.Error)
	_, err = c.Execute(ctx, "GMAIL_SEND_EMAIL", composio.ExecuteRequest{Text: "x"})
	record(err)
	// A search that answers 200 with an error field echoing the key.
	sess, err := c.CreateSession(ctx, composio.SessionRequest{UserID: "u"})
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	srv.FailNext(1, composiotest.Fault{Body: `{"success":false,"error":"search refused for key ` + key + `","results":[]}`})
	sres, err := c.SearchSession(ctx, sess.ID, []composio.SearchQuery{{UseCase: "send an email"}})
	record(err)
	if sres.Error == "" {
		t.Errorf("SearchSession: the search's error text was lost (err %v)", err)
	}
	errs = append(errs, sres.Error)
	bad, err := composio.New(composio.Config{APIKey: key + "\n"})
	if bad != nil {
		t.Error("New accepted a key with a newline")
	}
	record(err)
	if len(errs) < 7 {
		t.Fatalf("only %d errors collected: %q", len(errs), errs)
	}
	for _, e := range errs {
		if strings.Contains(e, key) {
			t.Errorf("error leaks the API key: %s", e)
		}
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("logs leak the API key:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Errorf("expected retry log lines, got:\n%s", logs.String())
	}
	// The key did reach the server, as a header only.
	for _, r := range srv.Requests() {
		if r.Header.Get("x-api-key") != key {
			t.Fatalf("request %s %s without the key", r.Method, r.Path)
		}
		if strings.Contains(r.Query.Encode(), key) || bytes.Contains(r.Body, []byte(key)) {
			t.Errorf("key sent outside the header in %s %s", r.Method, r.Path)
		}
	}
}

func TestRedirectToOtherHostKeepsKey(t *testing.T) {
	var leaked bool
	other := composiotest.NewServer(t)
	otherURL := other.URL
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(redirector.Close)
	c, err := composio.New(composio.Config{APIKey: "k-123", BaseURL: redirector.URL, Retry: &composio.RetryPolicy{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListToolkits(context.Background(), composio.ToolkitFilter{})
	for _, r := range other.Requests() {
		if r.Header.Get("x-api-key") != "" {
			leaked = true
		}
	}
	if leaked {
		t.Error("the default client followed a cross-host redirect with the API key")
	}
	if err == nil {
		t.Error("a redirect answer should be an error")
	}
}
