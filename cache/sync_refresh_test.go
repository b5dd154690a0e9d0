package cache_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
)

// fakeAccounts is a hand-written cache.AccountSource: accounts per user id, with an
// injectable failure per user.
type fakeAccounts struct {
	mu       sync.Mutex
	accounts map[string][]cache.SourceAccount
	fail     map[string]error
	calls    []string // "user:app,app"
}

func (f *fakeAccounts) ConnectedAccounts(ctx context.Context, userID string, apps []string) ([]cache.SourceAccount, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, userID+":"+joinComma(apps))
	if err := f.fail[userID]; err != nil {
		return nil, err
	}
	var out []cache.SourceAccount
	for _, a := range f.accounts[userID] {
		if slices.Contains(apps, a.App) {
			out = append(out, a)
		}
	}
	return out, nil
}

func joinComma(list []string) string {
	s := ""
	for i, v := range list {
		if i > 0 {
			s += ","
		}
		s += v
	}
	return s
}

func TestRefreshConnections(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	forEachStore(t, func(t *testing.T, newStore func(*testing.T) cache.Store) {
		ctx := context.Background()
		st := newStore(t)
		apps, actions := testCatalogue(8, 1)
		if _, err := st.Apply(ctx, cache.Batch{Apps: apps, Actions: actions}); err != nil {
			t.Fatal(err)
		}
		// ws1: app00 named account now ACTIVE; app01 newest account ACTIVE; app02 still
		// INITIATED; app03 EXPIRED; app04 no account; app05 already active (not checked).
		// ws2: its listing fails. ws3: app00 named account REVOKED.
		pend := func(ws, app, connID string) {
			t.Helper()
			if _, err := st.AddConnection(ctx, ws, app); err != nil {
				t.Fatal(err)
			}
			if _, err := st.SetConnectionStatus(ctx, ws, app, cache.StatusPending, connID); err != nil {
				t.Fatal(err)
			}
		}
		pend("ws1", "app00", "ca_named")
		pend("ws1", "app01", "")
		pend("ws1", "app02", "")
		pend("ws1", "app03", "")
		pend("ws1", "app04", "")
		if _, err := st.AddConnection(ctx, "ws1", "app05"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SetConnectionStatus(ctx, "ws1", "app05", cache.StatusActive, "ca_old"); err != nil {
			t.Fatal(err)
		}
		pend("ws2", "app00", "")
		pend("ws3", "app00", "ca_gone")

		src := &fakeAccounts{
			accounts: map[string][]cache.SourceAccount{
				"user-ws1": {
					{ID: "ca_other", App: "app00", Status: "FAILED"},
					{ID: "ca_named", App: "app00", Status: "ACTIVE"},
					{ID: "ca_1old", App: "app01", Status: "ACTIVE", UpdatedAt: t0},
					{ID: "ca_1new", App: "app01", Status: "ACTIVE", UpdatedAt: t0.Add(time.Hour)},
					{ID: "ca_1failed", App: "app01", Status: "FAILED", UpdatedAt: t0.Add(2 * time.Hour)},
					{ID: "ca_2", App: "app02", Status: "INITIATED"},
					{ID: "ca_2old", App: "app02", Status: "FAILED"},
					{ID: "ca_3", App: "app03", Status: "expired"},
				},
				"user-ws3": {{ID: "ca_gone", App: "app00", Status: "REVOKED"}},
			},
			fail: map[string]error{"user-ws2": errors.New("fake: 503")},
		}
		rep, err := cache.RefreshConnections(ctx, st, src, cache.RefreshOptions{UserID: func(ws string) string { return "user-" + ws }})
		if err == nil || !errors.Is(err, src.fail["user-ws2"]) {
			t.Errorf("RefreshConnections error = %v, want ws2's failure", err)
		}
		want := cache.RefreshReport{Checked: 7, Activated: 2, Failed: 2, Pending: 3}
		if diff := cmp.Diff(want, rep); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
		type state struct {
			Status cache.ConnectionStatus
			ID     string
		}
		wantStates := map[[2]string]state{
			{"ws1", "app00"}: {cache.StatusActive, "ca_named"},
			{"ws1", "app01"}: {cache.StatusActive, "ca_1new"},
			{"ws1", "app02"}: {cache.StatusPending, ""},
			{"ws1", "app03"}: {cache.StatusFailed, "ca_3"},
			{"ws1", "app04"}: {cache.StatusPending, ""},
			{"ws1", "app05"}: {cache.StatusActive, "ca_old"},
			{"ws2", "app00"}: {cache.StatusPending, ""},
			{"ws3", "app00"}: {cache.StatusFailed, "ca_gone"},
		}
		for k, w := range wantStates {
			c, err := st.Connection(ctx, k[0], k[1])
			if err != nil {
				t.Fatalf("Connection(%v): %v", k, err)
			}
			got := state{c.Status, c.ConnectedAccountID}
			if w.ID == "" {
				got.ID = "" // a pending connection may keep what it had
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("connection %v (-want +got):\n%s", k, diff)
			}
			if c.Status == cache.StatusActive && c.ConnectedAt.IsZero() {
				t.Errorf("connection %v is active without ConnectedAt", k)
			}
		}
		if diff := cmp.Diff([]string{"user-ws1:app00,app01,app02,app03,app04", "user-ws2:app00", "user-ws3:app00"}, src.calls); diff != "" {
			t.Errorf("source calls (-want +got):\n%s", diff)
		}

		// One workspace only, and nothing left to do there: no source call.
		src.calls = nil
		rep, err = cache.RefreshConnections(ctx, st, src, cache.RefreshOptions{WorkspaceID: "ws3"})
		if err != nil || rep != (cache.RefreshReport{}) || len(src.calls) != 0 {
			t.Errorf("ws3 again: %+v, %v, calls %v", rep, err, src.calls)
		}
	})
}

func TestRefreshConnectionsBadArguments(t *testing.T) {
	if _, err := cache.RefreshConnections(context.Background(), nil, &fakeAccounts{}, cache.RefreshOptions{}); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("nil store: %v, want ErrInvalid", err)
	}
	if _, err := cache.RefreshConnections(context.Background(), cache.NewMemory(), nil, cache.RefreshOptions{}); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("nil source: %v, want ErrInvalid", err)
	}
}
