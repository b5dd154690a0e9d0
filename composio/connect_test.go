package composio_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/composio"
)

func TestStartConnection(t *testing.T) {
	srv, c := newClient(t, nil)
	ctx := context.Background()
	id, status, redirect, err := c.StartConnection(ctx, "ws1", "GMAIL", "https://app.example/back")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{composio.StatusInitiated, srv.URL + "/connect/" + id}, []string{status, redirect}); diff != "" {
		t.Errorf("status and redirect (-want +got):\n%s", diff)
	}
	acct, ok := srv.Account(id)
	if !ok || acct.UserID != "ws1" || acct.Toolkit.Slug != "gmail" {
		t.Errorf("account %s on the server: %+v (found %v)", id, acct, ok)
	}
	links := srv.RequestsTo("POST", "/connected_accounts/link")
	if len(links) != 1 {
		t.Fatalf("link requests: %d, want 1", len(links))
	}
	// The auth config is created once and reused from the cache.
	if _, _, _, err := c.StartConnection(ctx, "ws2", "gmail", ""); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.RequestsTo("POST", "/auth_configs")); n != 1 {
		t.Errorf("auth configs created: %d, want 1", n)
	}

	got, err := c.AccountStatus(ctx, id)
	if err != nil || got != composio.StatusInitiated {
		t.Errorf("AccountStatus = %q, %v; want INITIATED", got, err)
	}
	srv.SetAccountStatus(id, "active")
	if got, _ := c.AccountStatus(ctx, id); got != composio.StatusActive {
		t.Errorf("AccountStatus after the user authorised = %q, want ACTIVE", got)
	}
	if err := c.SetConnectedAccountEnabled(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.AccountStatus(ctx, id); got != composio.StatusInactive {
		t.Errorf("AccountStatus of a disabled account = %q, want INACTIVE", got)
	}
	if _, err := c.AccountStatus(ctx, "ca_missing"); !errors.Is(err, composio.ErrNotFound) {
		t.Errorf("AccountStatus(missing): %v, want ErrNotFound", err)
	}
	if _, _, _, err := c.StartConnection(ctx, "ws1", "hackernews", ""); !errors.Is(err, composio.ErrNoAuthRequired) {
		t.Errorf("StartConnection(no-auth toolkit): %v, want ErrNoAuthRequired", err)
	}
}
