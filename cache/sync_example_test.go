package cache_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhint/toolhint/cache"
)

// staticSource serves a fixed catalogue in one page. A real program syncs from Composio
// through composiosource.New(client).
type staticSource struct {
	apps    []cache.App
	actions []cache.Action
}

func (s staticSource) AppsPage(ctx context.Context, cursor string) (cache.SourceAppPage, error) {
	return cache.SourceAppPage{Apps: s.apps, Total: len(s.apps)}, nil
}

func (s staticSource) ActionsPage(ctx context.Context, q cache.SourceActionQuery) (cache.SourceActionPage, error) {
	return cache.SourceActionPage{Actions: s.actions, Total: len(s.actions)}, nil
}

func (s staticSource) AppActions(ctx context.Context, app string) ([]cache.Action, error) {
	var out []cache.Action
	for _, a := range s.actions {
		if a.App == app {
			out = append(out, a)
		}
	}
	return out, nil
}

func ExampleSync() {
	ctx := context.Background()
	st := cache.NewMemory()
	params := json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}`)
	src := staticSource{
		apps: []cache.App{{Slug: "gmail", DisplayName: "Gmail"}, {Slug: "slack", DisplayName: "Slack"}},
		actions: []cache.Action{
			{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Sends an email.", Parameters: params},
			{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "Lists recent emails."},
			{App: "slack", Slug: "SLACK_SEND_MESSAGE", DisplayName: "Send message", Description: "Posts to a channel.", Parameters: params},
		},
	}

	rep, err := cache.Sync(ctx, st, src, cache.SyncOptions{
		Progress: func(p cache.SyncProgress) {
			if p.Phase == cache.PhaseActions && p.ActionsTotal > 0 && p.Actions == p.ActionsTotal {
				fmt.Printf("listed %d/%d actions\n", p.Actions, p.ActionsTotal)
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("job %s: %d apps and %d actions written\n", rep.Job.Status, rep.Applied.AppsWritten, rep.Applied.ActionsWritten)

	// Nothing changed at the source: nothing is written.
	rep, _ = cache.Sync(ctx, st, src, cache.SyncOptions{})
	fmt.Printf("re-sync: %d written, %d unchanged\n", rep.Applied.ActionsWritten, rep.Applied.ActionsUnchanged)

	// An empty listing (an outage, say) would delete everything: refused.
	_, err = cache.Sync(ctx, st, staticSource{}, cache.SyncOptions{})
	fmt.Println(errors.Is(err, cache.ErrTooManyDeletions))
	fmt.Println(err)
	// Output:
	// listed 3/3 actions
	// job succeeded: 2 apps and 3 actions written
	// re-sync: 0 written, 3 unchanged
	// true
	// cache: sync would delete too much of the catalogue: it would delete 3 of 3 actions and 2 of 2 apps, over the limit of 20% (set Force if the catalogue really shrank)
}

// accountsFunc adapts a function to cache.AccountSource.
type accountsFunc func(ctx context.Context, userID string, apps []string) ([]cache.SourceAccount, error)

func (f accountsFunc) ConnectedAccounts(ctx context.Context, userID string, apps []string) ([]cache.SourceAccount, error) {
	return f(ctx, userID, apps)
}

func ExampleRefreshConnections() {
	ctx := context.Background()
	st := cache.NewMemory()
	if _, err := st.Apply(ctx, cache.Batch{Apps: []cache.App{{Slug: "gmail"}, {Slug: "slack"}}}); err != nil {
		fmt.Println(err)
		return
	}
	for _, app := range []string{"gmail", "slack"} {
		st.AddConnection(ctx, "ws-1", app)
		st.SetConnectionStatus(ctx, "ws-1", app, cache.StatusPending, "")
	}
	// The user finished authorising Gmail; Slack's authorisation is still under way.
	remote := accountsFunc(func(ctx context.Context, userID string, apps []string) ([]cache.SourceAccount, error) {
		return []cache.SourceAccount{
			{ID: "ca_gmail", App: "gmail", Status: "ACTIVE"},
			{ID: "ca_slack", App: "slack", Status: "INITIATED"},
		}, nil
	})
	rep, err := cache.RefreshConnections(ctx, st, remote, cache.RefreshOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d checked, %d active, %d still pending\n", rep.Checked, rep.Activated, rep.Pending)
	c, _ := st.Connection(ctx, "ws-1", "gmail")
	fmt.Println(c.App, c.Status, c.ConnectedAccountID)
	// Output:
	// 2 checked, 1 active, 1 still pending
	// gmail active ca_gmail
}
