package composiosource_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/composiosource"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

// catalogue is a small Composio catalogue written for these tests: three toolkits, five
// tools, with and without hint tags.
func catalogue() composiotest.Catalog {
	params := func(props string, required ...string) json.RawMessage {
		r, _ := json.Marshal(required)
		if required == nil {
			r = []byte("[]")
		}
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(r) + `}`)
	}
	return composiotest.Catalog{
		Toolkits: []composio.Toolkit{
			{Slug: "gmail", Name: "Gmail", AuthSchemes: []string{"OAUTH2"}, ComposioManagedAuthSchemes: []string{"OAUTH2"},
				Meta: composio.ToolkitMeta{Description: "Email by Google.", Logo: "https://logos.example/gmail.png", Version: "20260101_00", ToolsCount: 3, TriggersCount: 1,
					Categories: []composio.Category{{ID: "communication", Name: "communication"}}}},
			{Slug: "github", Name: "GitHub", AuthSchemes: []string{"OAUTH2"},
				Meta: composio.ToolkitMeta{Description: "Code hosting.", Version: "20251201_02", ToolsCount: 1}},
			{Slug: "hackernews", Name: "Hacker News", AuthSchemes: []string{"NO_AUTH"}, NoAuth: true,
				Meta: composio.ToolkitMeta{Description: "Tech news.", ToolsCount: 1}},
		},
		Tools: []composio.Tool{
			{Slug: "GMAIL_SEND_EMAIL", Name: "Send email", Description: "Sends an email to one or more recipients.", Toolkit: composio.ToolkitRef{Slug: "gmail"},
				Version: "20260101_00", Tags: []string{"openWorldHint"},
				InputParameters: params(`"recipient_email":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}`, "recipient_email", "body")},
			{Slug: "GMAIL_FETCH_EMAILS", Name: "Fetch emails", Description: "Lists the newest emails in the mailbox.", Toolkit: composio.ToolkitRef{Slug: "gmail"},
				Version: "20260101_00", Tags: []string{"readOnlyHint"},
				InputParameters: params(`"max_results":{"type":"integer","default":10}`)},
			{Slug: "GMAIL_DELETE_MESSAGE", Name: "Delete message", Description: "Permanently deletes one message.", Toolkit: composio.ToolkitRef{Slug: "gmail"},
				Version: "20260101_00", Tags: []string{"destructiveHint"},
				InputParameters: params(`"message_id":{"type":"string"}`, "message_id")},
			{Slug: "GITHUB_CREATE_AN_ISSUE", Name: "Create an issue", Description: "Opens an issue in a repository.", Toolkit: composio.ToolkitRef{Slug: "github"},
				InputParameters: params(`"owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string"}`, "owner", "repo", "title")},
			{Slug: "HACKERNEWS_GET_TOP_STORIES", Name: "Top stories", Description: "Gets the current top stories.", Toolkit: composio.ToolkitRef{Slug: "hackernews"},
				NoAuth: true, Tags: []string{"readOnlyHint"}, InputParameters: params(`"limit":{"type":"integer"}`)},
		},
	}
}

func newServer(t *testing.T) *composiotest.Server {
	t.Helper()
	return composiotest.NewServer(t, composiotest.WithCatalog(catalogue()))
}

func TestSync(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t)
	st := cache.NewMemory()
	src := composiosource.New(srv.Client())

	rep, err := cache.Sync(ctx, st, src, cache.SyncOptions{})
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if diff := cmp.Diff(cache.ApplyResult{AppsWritten: 3, ActionsWritten: 5}, rep.Applied); diff != "" {
		t.Errorf("first sync applied (-want +got):\n%s", diff)
	}

	gmail, err := st.App(ctx, "gmail")
	if err != nil {
		t.Fatal(err)
	}
	wantApp := cache.App{Slug: "gmail", DisplayName: "Gmail", Description: "Email by Google.", Logo: "https://logos.example/gmail.png",
		Categories: []string{"communication"}, AuthSchemes: []string{"OAUTH2"}, ComposioManagedAuthSchemes: []string{"OAUTH2"},
		ActionCount: 3, TriggerCount: 1, LatestVersion: "20260101_00"}
	if diff := cmp.Diff(wantApp, gmail, cmpopts.IgnoreFields(cache.App{}, "UpdatedAt", "Status")); diff != "" {
		t.Errorf("stored gmail app (-want +got):\n%s", diff)
	}
	hn, err := st.App(ctx, "hackernews")
	if err != nil || !hn.NoAuth {
		t.Errorf("hackernews app = %+v, %v; want NoAuth", hn, err)
	}

	yes, no := true, false
	tests := []struct {
		slug                  string
		app                   string
		readOnly, destructive *bool
		version               string
	}{
		{"GMAIL_SEND_EMAIL", "gmail", &no, &no, "20260101_00"},
		{"GMAIL_FETCH_EMAILS", "gmail", &yes, &no, "20260101_00"},
		{"GMAIL_DELETE_MESSAGE", "gmail", &no, &yes, "20260101_00"},
		{"GITHUB_CREATE_AN_ISSUE", "github", nil, nil, ""},
		{"HACKERNEWS_GET_TOP_STORIES", "hackernews", &yes, &no, ""},
	}
	params := map[string]string{}
	for _, tl := range catalogue().Tools {
		params[tl.Slug] = string(tl.InputParameters)
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			a, err := st.Action(ctx, tt.slug)
			if err != nil {
				t.Fatal(err)
			}
			if a.App != tt.app || a.Version != tt.version {
				t.Errorf("app, version = %q, %q; want %q, %q", a.App, a.Version, tt.app, tt.version)
			}
			// An unknown flag (no hint tag) may be filled in by the store's classifier; a
			// hinted one is the catalogue's own.
			if tt.readOnly != nil && (a.ReadOnly == nil || *a.ReadOnly != *tt.readOnly) {
				t.Errorf("ReadOnly = %v, want %v", ptr(a.ReadOnly), *tt.readOnly)
			}
			if tt.destructive != nil && (a.Destructive == nil || *a.Destructive != *tt.destructive) {
				t.Errorf("Destructive = %v, want %v", ptr(a.Destructive), *tt.destructive)
			}
			var got, want any
			if err := json.Unmarshal(a.Parameters, &got); err != nil {
				t.Fatalf("stored parameters %s: %v", a.Parameters, err)
			}
			_ = json.Unmarshal([]byte(params[tt.slug]), &want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("parameters (-want +got):\n%s", diff)
			}
		})
	}

	// The same catalogue again: nothing to write.
	rep, err = cache.Sync(ctx, st, src, cache.SyncOptions{})
	if err != nil {
		t.Fatalf("second Sync: %v", err)
	}
	if diff := cmp.Diff(cache.ApplyResult{AppsUnchanged: 3, ActionsUnchanged: 5}, rep.Applied); diff != "" {
		t.Errorf("second sync applied (-want +got):\n%s", diff)
	}
}

func ptr(b *bool) any {
	if b == nil {
		return "unknown"
	}
	return *b
}

func TestRefreshConnections(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t)
	st := cache.NewMemory()
	src := composiosource.New(srv.Client())
	if _, err := cache.Sync(ctx, st, src, cache.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	finished := srv.AddAccount(composio.ConnectedAccount{UserID: "ws1", Status: composio.StatusInitiated, Toolkit: composio.ToolkitRef{Slug: "gmail"}})
	expired := srv.AddAccount(composio.ConnectedAccount{UserID: "ws1", Status: composio.StatusExpired, Toolkit: composio.ToolkitRef{Slug: "github"}})
	srv.AddAccount(composio.ConnectedAccount{UserID: "ws2", Status: composio.StatusActive, Toolkit: composio.ToolkitRef{Slug: "hackernews"}})
	for _, app := range []string{"gmail", "github", "hackernews"} {
		if _, err := st.AddConnection(ctx, "ws1", app); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SetConnectionStatus(ctx, "ws1", app, cache.StatusPending, ""); err != nil {
			t.Fatal(err)
		}
	}
	srv.SetAccountStatus(finished.ID, composio.StatusActive) // the user finished OAuth

	rep, err := cache.RefreshConnections(ctx, st, src, cache.RefreshOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cache.RefreshReport{Checked: 3, Activated: 1, Failed: 1, Pending: 1}, rep); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	tests := []struct {
		app    string
		status cache.ConnectionStatus
		id     string
	}{
		{"gmail", cache.StatusActive, finished.ID},
		{"github", cache.StatusFailed, expired.ID},
		{"hackernews", cache.StatusPending, ""}, // ws2's account is not ws1's
	}
	for _, tt := range tests {
		t.Run(tt.app, func(t *testing.T) {
			c, err := st.Connection(ctx, "ws1", tt.app)
			if err != nil {
				t.Fatal(err)
			}
			if c.Status != tt.status || c.ConnectedAccountID != tt.id {
				t.Errorf("status, id = %q, %q; want %q, %q", c.Status, c.ConnectedAccountID, tt.status, tt.id)
			}
		})
	}
}

// TestFaults: failures worth a later try are marked transient and the sync gets past
// them; other failures surface as errors and nothing is written.
func TestFaults(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		times     int // 0: every request
		fault     composiotest.Fault
		wantErr   error // nil: the sync recovers
		transient bool
	}{
		{name: "429 beyond the client's retries", path: "/tools", times: 3, fault: composiotest.RateLimited(0)},
		{name: "503 beyond the client's retries", path: "/toolkits", times: 3, fault: composiotest.ServerError(503)},
		{name: "429 every time", path: "/tools", fault: composiotest.RateLimited(0), wantErr: composio.ErrRateLimited, transient: true},
		{name: "404", path: "/tools", times: 1, fault: composiotest.ServerError(404), wantErr: composio.ErrNotFound},
		{name: "401", path: "/toolkits", times: 1, fault: composiotest.ServerError(401), wantErr: composio.ErrUnauthorized},
		{name: "malformed JSON", path: "/toolkits", fault: composiotest.MalformedJSON(), wantErr: composio.ErrInvalidResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t)
			srv.FailPage(tt.path, 1, tt.times, tt.fault)
			st := cache.NewMemory()
			rep, err := cache.Sync(context.Background(), st, composiosource.New(srv.Client()), cache.SyncOptions{RetryDelay: time.Millisecond})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Sync: %v", err)
				}
				if rep.Applied.ActionsWritten != 5 {
					t.Errorf("applied %+v, want 5 actions written", rep.Applied)
				}
				if n := len(srv.RequestsTo("GET", tt.path)); n != tt.times+1 {
					t.Errorf("%d requests to %s, want %d (the client's, then one more by the sync)", n, tt.path, tt.times+1)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || errors.Is(err, cache.ErrTransient) != tt.transient {
				t.Errorf("Sync error = %v; want %v, transient %v", err, tt.wantErr, tt.transient)
			}
			if acts, _ := st.Actions(context.Background(), cache.ActionFilter{}); len(acts) != 0 {
				t.Errorf("%d actions written by a failed sync", len(acts))
			}
		})
	}

	t.Run("connected accounts", func(t *testing.T) {
		ctx := context.Background()
		srv := newServer(t)
		st := cache.NewMemory()
		if _, err := st.AddConnection(ctx, "ws1", "gmail"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SetConnectionStatus(ctx, "ws1", "gmail", cache.StatusPending, ""); err != nil {
			t.Fatal(err)
		}
		srv.AddAccount(composio.ConnectedAccount{UserID: "ws1", Toolkit: composio.ToolkitRef{Slug: "gmail"}})
		srv.AddFault(composiotest.Rule{Path: "/connected_accounts", Fault: composiotest.ServerError(500)})
		rep, err := cache.RefreshConnections(ctx, st, composiosource.New(srv.Client()), cache.RefreshOptions{})
		if !errors.Is(err, composio.ErrServer) || !errors.Is(err, cache.ErrTransient) {
			t.Errorf("RefreshConnections error = %v, want a transient server error", err)
		}
		if diff := cmp.Diff(cache.RefreshReport{Checked: 1, Pending: 1}, rep); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
		if c, err := st.Connection(ctx, "ws1", "gmail"); err != nil || c.Status != cache.StatusPending {
			t.Errorf("connection = %+v, %v; want it left pending", c, err)
		}
	})
}

func TestCancelledIsNotTransient(t *testing.T) {
	srv := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := composiosource.New(srv.Client()).AppsPage(ctx, "")
	if !errors.Is(err, context.Canceled) || errors.Is(err, cache.ErrTransient) {
		t.Errorf("AppsPage error = %v, want context.Canceled and not transient", err)
	}
}

func TestNoClient(t *testing.T) {
	ctx := context.Background()
	src := composiosource.New(nil)
	calls := map[string]func() error{
		"AppsPage":          func() error { _, err := src.AppsPage(ctx, ""); return err },
		"ActionsPage":       func() error { _, err := src.ActionsPage(ctx, cache.SourceActionQuery{}); return err },
		"AppActions":        func() error { _, err := src.AppActions(ctx, "gmail"); return err },
		"ConnectedAccounts": func() error { _, err := src.ConnectedAccounts(ctx, "ws1", nil); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(); !errors.Is(err, composiosource.ErrNoClient) {
				t.Errorf("error = %v, want ErrNoClient", err)
			}
		})
	}
}
