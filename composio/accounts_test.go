package composio_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/composio"
	"github.com/toolhint/toolhint/composio/composiotest"
)

// clock is a settable time source for cache expiry tests.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func countRequests(srv *composiotest.Server) map[string]int {
	out := map[string]int{}
	for _, r := range srv.Requests() {
		out[r.Method+" "+r.Path]++
	}
	return out
}

func TestFindOrCreateAuthConfig(t *testing.T) {
	ctx := context.Background()
	clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	srv, c := newClient(t, func(cfg *composio.Config) { cfg.Now = clk.Now })

	existing := srv.AddAuthConfig(composio.AuthConfig{Toolkit: composio.ToolkitRef{Slug: "github"}, AuthScheme: "OAUTH2", IsComposioManaged: true})
	srv.AddAuthConfig(composio.AuthConfig{Toolkit: composio.ToolkitRef{Slug: "github"}, AuthScheme: "OAUTH2", Status: "DISABLED"})

	t.Run("finds an existing config and caches it", func(t *testing.T) {
		srv.ResetRequests()
		for range 3 {
			ac, err := c.FindOrCreateAuthConfig(ctx, "GitHub")
			if err != nil {
				t.Fatal(err)
			}
			if ac.ID != existing.ID {
				t.Fatalf("got %s, want the existing %s", ac.ID, existing.ID)
			}
		}
		if diff := cmp.Diff(map[string]int{"GET /auth_configs": 1}, countRequests(srv)); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
	t.Run("creates a managed config when none exists", func(t *testing.T) {
		srv.ResetRequests()
		ac, err := c.FindOrCreateAuthConfig(ctx, "gmail")
		if err != nil {
			t.Fatal(err)
		}
		if ac.ID == "" || !ac.IsComposioManaged || ac.Toolkit.Slug != "gmail" {
			t.Errorf("created %+v", ac)
		}
		if diff := cmp.Diff(map[string]int{"GET /auth_configs": 1, "GET /toolkits/gmail": 1, "POST /auth_configs": 1}, countRequests(srv)); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
		again, err := c.FindOrCreateAuthConfig(ctx, "gmail")
		if err != nil || again.ID != ac.ID {
			t.Errorf("second call = %v, %v; want the cached %s", again.ID, err, ac.ID)
		}
		if got := len(srv.Requests()); got != 3 {
			t.Errorf("%d requests after a cache hit, want still 3", got)
		}
	})
	t.Run("expires after the TTL", func(t *testing.T) {
		srv.ResetRequests()
		clk.Add(59 * time.Minute)
		if _, err := c.FindOrCreateAuthConfig(ctx, "github"); err != nil {
			t.Fatal(err)
		}
		if got := len(srv.Requests()); got != 0 {
			t.Errorf("%d requests at 59 min, want 0", got)
		}
		clk.Add(2 * time.Minute)
		if _, err := c.FindOrCreateAuthConfig(ctx, "github"); err != nil {
			t.Fatal(err)
		}
		if got := len(srv.Requests()); got != 1 {
			t.Errorf("%d requests at 61 min, want 1", got)
		}
	})
	t.Run("NO_AUTH toolkits skip it", func(t *testing.T) {
		srv.ResetRequests()
		for range 2 {
			_, err := c.FindOrCreateAuthConfig(ctx, "hackernews")
			if !errors.Is(err, composio.ErrNoAuthRequired) {
				t.Fatalf("error = %v, want ErrNoAuthRequired", err)
			}
		}
		if diff := cmp.Diff(map[string]int{"GET /auth_configs": 1, "GET /toolkits/hackernews": 1}, countRequests(srv)); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
		if n := len(srv.AuthConfigs()); n != 3 {
			t.Errorf("%d auth configs stored, want 3 (none created for hackernews)", n)
		}
	})
	t.Run("no managed scheme", func(t *testing.T) {
		_, err := c.FindOrCreateAuthConfig(ctx, "ably")
		if !errors.Is(err, composio.ErrNoManagedAuth) {
			t.Fatalf("error = %v, want ErrNoManagedAuth", err)
		}
	})
	t.Run("unknown toolkit is not cached", func(t *testing.T) {
		srv.ResetRequests()
		for range 2 {
			if _, err := c.FindOrCreateAuthConfig(ctx, "nope"); !errors.Is(err, composio.ErrNotFound) {
				t.Fatalf("error = %v, want ErrNotFound", err)
			}
		}
		if got := len(srv.Requests()); got != 4 {
			t.Errorf("%d requests, want 4 (failures are not cached)", got)
		}
	})
	t.Run("forget", func(t *testing.T) {
		srv.ResetRequests()
		c.ForgetAuthConfig("GITHUB")
		if _, err := c.FindOrCreateAuthConfig(ctx, "github"); err != nil {
			t.Fatal(err)
		}
		if got := len(srv.Requests()); got != 1 {
			t.Errorf("%d requests after ForgetAuthConfig, want 1", got)
		}
	})
}

func TestFindOrCreateAuthConfigConcurrent(t *testing.T) {
	srv, c := newClient(t, nil)
	// Slow the list down so that every caller arrives while the first lookup runs.
	srv.AddFault(composiotest.Rule{Method: "GET", Path: "/auth_configs", Fault: composiotest.Slow(50 * time.Millisecond)})
	const callers = 20
	ids := make([]string, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ac, err := c.FindOrCreateAuthConfig(context.Background(), "gmail")
			ids[i], errs[i] = ac.ID, err
		}()
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || ids[i] == "" || ids[i] != ids[0] {
			t.Fatalf("caller %d got %q, %v; want %q", i, ids[i], errs[i], ids[0])
		}
	}
	if diff := cmp.Diff(map[string]int{"GET /auth_configs": 1, "GET /toolkits/gmail": 1, "POST /auth_configs": 1}, countRequests(srv)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if n := len(srv.AuthConfigs()); n != 1 {
		t.Errorf("%d auth configs created, want 1", n)
	}
}

func TestAuthConfigCRUD(t *testing.T) {
	ctx := context.Background()
	srv, c := newClient(t, nil)
	custom, err := c.CreateAuthConfig(ctx, composio.CreateAuthConfigRequest{Toolkit: "ABLY", Name: "mine",
		Custom: &composio.CustomAuth{AuthScheme: "api_key", Credentials: json.RawMessage(`{"api_key":"secret"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if custom.AuthScheme != "API_KEY" || custom.IsComposioManaged || custom.Toolkit.Slug != "ably" {
		t.Errorf("created %+v", custom)
	}
	got, err := c.AuthConfig(ctx, custom.ID)
	if err != nil || got.Name != "mine" || got.Type != "custom" {
		t.Errorf("AuthConfig = %+v, %v", got, err)
	}
	list, err := c.ListAuthConfigs(ctx, composio.AuthConfigFilter{Toolkits: []string{"ably"}})
	if err != nil || len(list) != 1 || list[0].ID != custom.ID {
		t.Errorf("ListAuthConfigs = %+v, %v", list, err)
	}
	if _, err := c.CreateAuthConfig(ctx, composio.CreateAuthConfigRequest{Toolkit: "ably"}); !errors.Is(err, composio.ErrBadRequest) {
		t.Errorf("managed config for a toolkit without one: error = %v, want ErrBadRequest", err)
	}
	if _, err := c.CreateAuthConfig(ctx, composio.CreateAuthConfigRequest{Toolkit: "ably", Custom: &composio.CustomAuth{AuthScheme: "API_KEY", Credentials: json.RawMessage(`"x"`)}}); !errors.Is(err, composio.ErrInvalidArgument) {
		t.Errorf("credentials not an object: error = %v", err)
	}
	if err := c.DeleteAuthConfig(ctx, custom.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AuthConfig(ctx, custom.ID); !errors.Is(err, composio.ErrNotFound) {
		t.Errorf("after delete: error = %v, want ErrNotFound", err)
	}
	if len(srv.AuthConfigs()) != 0 {
		t.Errorf("server still has %d configs", len(srv.AuthConfigs()))
	}
}

func TestConnectedAccountFlow(t *testing.T) {
	ctx := context.Background()
	srv, c := newClient(t, nil)
	ac, err := c.FindOrCreateAuthConfig(ctx, "gmail")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.InitiateConnection(ctx, composio.InitiateRequest{AuthConfigID: ac.ID, UserID: "user-1", CallbackURL: "https://app.example/after"})
	if err != nil {
		t.Fatal(err)
	}
	if conn.ID == "" || conn.Status != composio.StatusInitiated || conn.RedirectURL == "" {
		t.Fatalf("initiate = %+v, want INITIATED with a redirect URL", conn)
	}

	// The user completes the OAuth flow a few polls later.
	go func() {
		time.Sleep(30 * time.Millisecond)
		srv.SetAccountStatus(conn.ID, composio.StatusActive)
	}()
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	acct, err := c.WaitForConnection(wctx, conn.ID, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if acct.Status != composio.StatusActive || acct.UserID != "user-1" || acct.Toolkit.Slug != "gmail" || acct.AuthConfig.ID != ac.ID {
		t.Errorf("account = %+v", acct)
	}
	if polls := len(srv.RequestsTo("GET", "/connected_accounts/"+conn.ID)); polls < 2 {
		t.Errorf("%d polls, want several", polls)
	}

	list, err := c.ListConnectedAccounts(ctx, composio.ConnectedAccountFilter{UserIDs: []string{"user-1"}, Statuses: []string{"active"}})
	if err != nil || len(list) != 1 || list[0].ID != conn.ID {
		t.Errorf("list = %+v, %v", list, err)
	}
	if err := c.SetConnectedAccountEnabled(ctx, conn.ID, false); err != nil {
		t.Fatal(err)
	}
	if a, _ := c.ConnectedAccount(ctx, conn.ID); !a.IsDisabled {
		t.Error("account not disabled")
	}
	if err := c.SetConnectedAccountEnabled(ctx, conn.ID, true); err != nil {
		t.Fatal(err)
	}
	ref, err := c.RefreshConnection(ctx, conn.ID, "https://app.example/again")
	if err != nil || ref.Status != composio.StatusInitiated || ref.RedirectURL == "" {
		t.Errorf("refresh = %+v, %v", ref, err)
	}
	if err := c.DeleteConnectedAccount(ctx, conn.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConnectedAccount(ctx, conn.ID); !errors.Is(err, composio.ErrNotFound) {
		t.Errorf("after delete: error = %v, want ErrNotFound", err)
	}
}

func TestWaitForConnectionEnds(t *testing.T) {
	ctx := context.Background()
	srv, c := newClient(t, nil)
	ac := srv.AddAuthConfig(composio.AuthConfig{Toolkit: composio.ToolkitRef{Slug: "gmail"}, IsComposioManaged: true})
	t.Run("failed", func(t *testing.T) {
		conn, err := c.InitiateConnection(ctx, composio.InitiateRequest{AuthConfigID: ac.ID, UserID: "u"})
		if err != nil {
			t.Fatal(err)
		}
		srv.SetAccountStatus(conn.ID, composio.StatusFailed)
		_, err = c.WaitForConnection(ctx, conn.ID, time.Millisecond)
		if !errors.Is(err, composio.ErrAccountFailed) {
			t.Errorf("error = %v, want ErrAccountFailed", err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		conn, err := c.Link(ctx, composio.LinkRequest{AuthConfigID: ac.ID, UserID: "u"})
		if err != nil {
			t.Fatal(err)
		}
		if conn.ID == "" || conn.LinkToken == "" || conn.RedirectURL == "" || conn.Status != composio.StatusInitiated {
			t.Fatalf("link = %+v", conn)
		}
		dctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		defer cancel()
		_, err = c.WaitForConnection(dctx, conn.ID, 5*time.Millisecond)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error = %v, want DeadlineExceeded", err)
		}
	})
	t.Run("credentials make it active at once", func(t *testing.T) {
		conn, err := c.InitiateConnection(ctx, composio.InitiateRequest{AuthConfigID: ac.ID, UserID: "u",
			State: json.RawMessage(`{"authScheme":"API_KEY","val":{"api_key":"k"}}`)})
		if err != nil || conn.Status != composio.StatusActive || conn.RedirectURL != "" {
			t.Fatalf("initiate = %+v, %v", conn, err)
		}
	})
	t.Run("unknown auth config", func(t *testing.T) {
		if _, err := c.InitiateConnection(ctx, composio.InitiateRequest{AuthConfigID: "ac_nope", UserID: "u"}); !errors.Is(err, composio.ErrNotFound) {
			t.Errorf("error = %v, want ErrNotFound", err)
		}
	})
	t.Run("missing user", func(t *testing.T) {
		if _, err := c.InitiateConnection(ctx, composio.InitiateRequest{AuthConfigID: ac.ID}); !errors.Is(err, composio.ErrInvalidArgument) {
			t.Errorf("error = %v, want ErrInvalidArgument", err)
		}
	})
}

func TestFindOrCreateAuthConfigLeaderCancelled(t *testing.T) {
	srv, c := newClient(t, nil)
	srv.AddFault(composiotest.Rule{Method: "GET", Path: "/auth_configs", Times: 1, Fault: composiotest.Slow(time.Second)})
	leaderCtx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	leaderErr := make(chan error, 1)
	go func() {
		_, err := c.FindOrCreateAuthConfig(leaderCtx, "gmail")
		leaderErr <- err
	}()
	// Let the leader start its lookup, then join it with a context that lasts.
	for len(srv.RequestsTo("GET", "/auth_configs")) == 0 {
		time.Sleep(time.Millisecond)
	}
	ac, err := c.FindOrCreateAuthConfig(context.Background(), "gmail")
	if err != nil || ac.ID == "" {
		t.Fatalf("follower got %+v, %v; want a config despite the leader's timeout", ac, err)
	}
	if err := <-leaderErr; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("leader error = %v, want DeadlineExceeded", err)
	}
}
