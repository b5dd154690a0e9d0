package cache_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

func TestEnsureConnection(t *testing.T) {
	stores := map[string]func(t *testing.T) cache.Store{
		"memory":   func(t *testing.T) cache.Store { return cache.NewMemory() },
		"postgres": func(t *testing.T) cache.Store { return cachetest.OpenPostgres(t) },
	}
	type want struct {
		Status cache.ConnectionStatus
		ID     string
		err    error
	}
	tests := []struct {
		name string
		// setup is the path the connection takes first (nil: no connection); the last step's
		// connected account id is "ca_old".
		setup []cache.ConnectionStatus
		to    cache.ConnectionStatus
		id    string
		want  want
	}{
		{"missing, to active", nil, cache.StatusActive, "ca_1", want{cache.StatusActive, "ca_1", nil}},
		{"missing, to added", nil, cache.StatusAdded, "", want{cache.StatusAdded, "", nil}},
		{"added, to added", []cache.ConnectionStatus{cache.StatusAdded}, cache.StatusAdded, "", want{cache.StatusAdded, "", nil}},
		{"active, to active, same account", []cache.ConnectionStatus{cache.StatusAdded, cache.StatusActive}, cache.StatusActive, "ca_old", want{cache.StatusActive, "ca_old", nil}},
		{"active, to active, no account given", []cache.ConnectionStatus{cache.StatusAdded, cache.StatusActive}, cache.StatusActive, "", want{cache.StatusActive, "ca_old", nil}},
		{"active, to active, other account", []cache.ConnectionStatus{cache.StatusAdded, cache.StatusActive}, cache.StatusActive, "ca_new", want{err: cache.ErrConflict}},
		{"failed, to active", []cache.ConnectionStatus{cache.StatusAdded, cache.StatusPending, cache.StatusFailed}, cache.StatusActive, "ca_1", want{cache.StatusActive, "ca_1", nil}},
		{"pending, to active", []cache.ConnectionStatus{cache.StatusAdded, cache.StatusPending}, cache.StatusActive, "ca_1", want{cache.StatusActive, "ca_1", nil}},
		{"active, to pending", []cache.ConnectionStatus{cache.StatusAdded, cache.StatusActive}, cache.StatusPending, "", want{cache.StatusPending, "ca_old", nil}},
		{"active, to added", []cache.ConnectionStatus{cache.StatusAdded, cache.StatusActive}, cache.StatusAdded, "", want{err: cache.ErrTransition}},
		{"unknown status", nil, cache.ConnectionStatus("gone"), "", want{err: cache.ErrInvalid}},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			ctx := context.Background()
			for i, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					ws := "ws" + string(rune('a'+i))
					for j, s := range tt.setup {
						var err error
						if j == 0 {
							_, err = st.AddConnection(ctx, ws, "slack")
						} else {
							id := ""
							if j == len(tt.setup)-1 {
								id = "ca_old"
							}
							_, err = st.SetConnectionStatus(ctx, ws, "slack", s, id)
						}
						if err != nil {
							t.Fatalf("setup step %d (%s): %v", j, s, err)
						}
					}
					for run := 1; run <= 2; run++ { // a second run changes nothing
						c, err := cache.EnsureConnection(ctx, st, ws, "slack", tt.to, tt.id)
						if tt.want.err != nil {
							if !errors.Is(err, tt.want.err) {
								t.Fatalf("run %d: error = %v, want %v", run, err, tt.want.err)
							}
							continue
						}
						if err != nil {
							t.Fatalf("run %d: %v", run, err)
						}
						stored, err := st.Connection(ctx, ws, "slack")
						if err != nil {
							t.Fatal(err)
						}
						if diff := cmp.Diff(stored, c); diff != "" {
							t.Errorf("run %d: returned connection differs from the stored one (-stored +returned):\n%s", run, diff)
						}
						if diff := cmp.Diff(want{Status: tt.want.Status, ID: tt.want.ID}, want{Status: c.Status, ID: c.ConnectedAccountID}, cmpopts.IgnoreUnexported(want{})); diff != "" {
							t.Errorf("run %d (-want +got):\n%s", run, diff)
						}
					}
				})
			}
		})
	}
}

// TestEnsureConnectionNoWrites checks that a connection already in place is not written
// again (its UpdatedAt stays).
func TestEnsureConnectionNoWrites(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	first, err := cache.EnsureConnection(ctx, st, "acme", "github", cache.StatusActive, "ca_1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := cache.EnsureConnection(ctx, st, "acme", "github", cache.StatusActive, "ca_1")
	if err != nil {
		t.Fatal(err)
	}
	if !again.UpdatedAt.Equal(first.UpdatedAt) {
		t.Errorf("UpdatedAt moved from %v to %v: the second ensure wrote", first.UpdatedAt, again.UpdatedAt)
	}
}
