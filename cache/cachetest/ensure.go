package cachetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
)

// testConnectionsSameStatus checks that setting a connection to the status it is in is a
// no-op, records an account when none is recorded, and refuses another account.
func testConnectionsSameStatus(t *testing.T, st cache.Store) {
	ctx := context.Background()
	for _, s := range []cache.ConnectionStatus{cache.StatusAdded, cache.StatusPending, cache.StatusActive, cache.StatusFailed} {
		t.Run(string(s), func(t *testing.T) {
			app := "same_" + string(s)
			reach(t, st, "ws", app, s)
			before, err := st.Connection(ctx, "ws", app)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond) // a write would move UpdatedAt
			got, err := st.SetConnectionStatus(ctx, "ws", app, s, "")
			wantErr(t, "same status, no account", err, nil)
			if diff := cmp.Diff(before, got, exact); diff != "" {
				t.Errorf("same status returned a changed connection (-before +got):\n%s", diff)
			}
			after, _ := st.Connection(ctx, "ws", app)
			if diff := cmp.Diff(before, after, exact); diff != "" {
				t.Errorf("same status changed the stored connection (-before +after):\n%s", diff)
			}

			// No account recorded yet: the one given is recorded, nothing else changes.
			got, err = st.SetConnectionStatus(ctx, "ws", app, s, "ca_1")
			wantErr(t, "same status, first account", err, nil)
			want := before
			want.ConnectedAccountID = "ca_1"
			if diff := cmp.Diff(want, got, noTimes); diff != "" {
				t.Errorf("recording an account (-want +got):\n%s", diff)
			}
			if !got.ConnectedAt.Equal(before.ConnectedAt) {
				t.Errorf("recording an account moved ConnectedAt from %v to %v", before.ConnectedAt, got.ConnectedAt)
			}
			recorded, _ := st.Connection(ctx, "ws", app)
			if diff := cmp.Diff(got, recorded, exact); diff != "" {
				t.Errorf("stored connection differs from the returned one (-returned +stored):\n%s", diff)
			}

			// The same account again changes nothing; another one is a conflict.
			again, err := st.SetConnectionStatus(ctx, "ws", app, s, "ca_1")
			wantErr(t, "same status, same account", err, nil)
			if diff := cmp.Diff(recorded, again, exact); diff != "" {
				t.Errorf("same account again (-before +got):\n%s", diff)
			}
			_, err = st.SetConnectionStatus(ctx, "ws", app, s, "ca_2")
			wantErr(t, "same status, other account", err, cache.ErrConflict)
			after, _ = st.Connection(ctx, "ws", app)
			if diff := cmp.Diff(recorded, after, exact); diff != "" {
				t.Errorf("a refused account changed the connection (-before +after):\n%s", diff)
			}
		})
	}
}

// testAddConnectionTwice checks that adding a connection that is there in status added
// returns it, and that adding one in another status is a conflict that changes nothing.
func testAddConnectionTwice(t *testing.T, st cache.Store) {
	ctx := context.Background()
	first, err := st.AddConnection(ctx, "ws1", "gmail")
	wantErr(t, "AddConnection", err, nil)
	again, err := st.AddConnection(ctx, "ws1", "GMAIL")
	wantErr(t, "AddConnection twice", err, nil)
	if diff := cmp.Diff(first, again, exact); diff != "" {
		t.Errorf("adding twice (-first +again):\n%s", diff)
	}
	reach(t, st, "ws1", "slack", cache.StatusActive)
	before, _ := st.Connection(ctx, "ws1", "slack")
	_, err = st.AddConnection(ctx, "ws1", "slack")
	wantErr(t, "AddConnection over an active one", err, cache.ErrConflict)
	after, _ := st.Connection(ctx, "ws1", "slack")
	if diff := cmp.Diff(before, after, exact); diff != "" {
		t.Errorf("a refused add changed the connection (-before +after):\n%s", diff)
	}
}

// testEnsureConnection runs cache.EnsureConnection from every starting point twice: the
// second run returns the same connection and writes nothing.
func testEnsureConnection(t *testing.T, st cache.Store) {
	ctx := context.Background()
	type want struct {
		Status cache.ConnectionStatus
		ID     string
	}
	added, pending := cache.StatusAdded, cache.StatusPending
	active, failed := cache.StatusActive, cache.StatusFailed
	tests := []struct {
		name string
		// setup is the path the connection takes first (nil: no connection); the last
		// step's connected account id is "ca_old" (none when the path is only added).
		setup   []cache.ConnectionStatus
		to      cache.ConnectionStatus
		id      string
		want    want
		wantErr error
	}{
		{"missing, to active", nil, active, "ca_1", want{active, "ca_1"}, nil},
		{"missing, to added", nil, added, "", want{added, ""}, nil},
		{"added, to added", []cache.ConnectionStatus{added}, added, "", want{added, ""}, nil},
		{"active, to active, same account", []cache.ConnectionStatus{added, active}, active, "ca_old", want{active, "ca_old"}, nil},
		{"active, to active, no account given", []cache.ConnectionStatus{added, active}, active, "", want{active, "ca_old"}, nil},
		{"active, to active, other account", []cache.ConnectionStatus{added, active}, active, "ca_new", want{}, cache.ErrConflict},
		{"failed, to active", []cache.ConnectionStatus{added, pending, failed}, active, "ca_1", want{active, "ca_1"}, nil},
		{"pending, to active", []cache.ConnectionStatus{added, pending}, active, "ca_1", want{active, "ca_1"}, nil},
		{"active, to pending", []cache.ConnectionStatus{added, active}, pending, "", want{pending, "ca_old"}, nil},
		{"active, to added", []cache.ConnectionStatus{added, active}, added, "", want{}, cache.ErrTransition},
		{"unknown status", nil, cache.ConnectionStatus("gone"), "", want{}, cache.ErrInvalid},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fmt.Sprintf("ensure%d", i)
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
			var first cache.Connection
			for run := 1; run <= 2; run++ {
				c, err := cache.EnsureConnection(ctx, st, ws, "slack", tt.to, tt.id)
				if tt.wantErr != nil {
					wantErr(t, fmt.Sprintf("run %d", run), err, tt.wantErr)
					continue
				}
				if err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				stored, err := st.Connection(ctx, ws, "slack")
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(stored, c, exact); diff != "" {
					t.Errorf("run %d: returned connection differs from the stored one (-stored +returned):\n%s", run, diff)
				}
				if diff := cmp.Diff(tt.want, want{c.Status, c.ConnectedAccountID}); diff != "" {
					t.Errorf("run %d (-want +got):\n%s", run, diff)
				}
				if run == 1 {
					first = c
					time.Sleep(2 * time.Millisecond) // a write would move UpdatedAt
				} else if diff := cmp.Diff(first, c, exact); diff != "" {
					t.Errorf("the second run changed the connection (-first +second):\n%s", diff)
				}
			}
		})
	}
}

// testEnsureAssignment checks cache.EnsureAssignment: a missing assignment is written, the
// same one again is not, a different one is updated with its CreatedAt kept.
func testEnsureAssignment(t *testing.T, st cache.Store) {
	ctx := context.Background()
	a := cache.Assignment{AgentID: 7, App: "Slack", Type: "composio", Active: true}
	first, err := cache.EnsureAssignment(ctx, st, a)
	wantErr(t, "EnsureAssignment", err, nil)
	want := cache.Assignment{AgentID: 7, App: "slack", Type: "composio", Active: true}
	if diff := cmp.Diff(want, first, noTimes); diff != "" {
		t.Errorf("EnsureAssignment (-want +got):\n%s", diff)
	}
	if first.CreatedAt.IsZero() {
		t.Error("CreatedAt not set")
	}
	stored, err := st.AgentApps(ctx, 7)
	wantErr(t, "AgentApps", err, nil)
	if diff := cmp.Diff([]cache.Assignment{first}, stored, exact); diff != "" {
		t.Errorf("stored assignments (-returned +stored):\n%s", diff)
	}
	time.Sleep(2 * time.Millisecond)
	again, err := cache.EnsureAssignment(ctx, st, a)
	wantErr(t, "EnsureAssignment again", err, nil)
	if diff := cmp.Diff(first, again, exact); diff != "" {
		t.Errorf("the second run changed the assignment (-first +second):\n%s", diff)
	}

	a.Active = false
	off, err := cache.EnsureAssignment(ctx, st, a)
	wantErr(t, "EnsureAssignment(inactive)", err, nil)
	want.Active = false
	if diff := cmp.Diff(want, off, noTimes); diff != "" {
		t.Errorf("EnsureAssignment(inactive) (-want +got):\n%s", diff)
	}
	if !off.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("updating moved CreatedAt from %v to %v", first.CreatedAt, off.CreatedAt)
	}

	_, err = cache.EnsureAssignment(ctx, st, cache.Assignment{AgentID: 0, App: "slack"})
	wantErr(t, "EnsureAssignment(agent 0)", err, cache.ErrInvalid)
	_, err = cache.EnsureAssignment(ctx, st, cache.Assignment{AgentID: 7, App: " "})
	wantErr(t, "EnsureAssignment(empty app)", err, cache.ErrInvalid)
}
