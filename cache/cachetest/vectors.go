package cachetest

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
)

// vectorStore returns st as a VectorStore, skipping the test when it is none.
func vectorStore(t *testing.T, st cache.Store) cache.VectorStore {
	t.Helper()
	vs, ok := st.(cache.VectorStore)
	if !ok {
		t.Skip("the store keeps no vectors (cache.VectorStore)")
	}
	return vs
}

// embedAll computes a vector for every stored action (of the given apps) as of now, the
// way a host's embedding step does: the vector depends on the slug, so tests can tell
// which action it belongs to.
func embedAll(t *testing.T, st cache.Store, apps ...string) []cache.ActionVector {
	t.Helper()
	as, err := st.Actions(context.Background(), cache.ActionFilter{Apps: apps})
	if err != nil {
		t.Fatal(err)
	}
	var out []cache.ActionVector
	for _, a := range as {
		// Of length one, as the store keeps them.
		x, y := float32(len(a.Slug)%5)/10, float32(a.Slug[0]%4)/10
		out = append(out, cache.ActionVector{Action: a.Slug, Version: a.UpdatedAt, Vector: []float32{x, y, float32(math.Sqrt(float64(1 - x*x - y*y)))}})
	}
	return out
}

// vectorKeys lists the actions of vs with their apps.
func vectorKeys(vs []cache.ActionVector) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.App+"/"+v.Action)
	}
	return out
}

func getVectors(t *testing.T, vs cache.VectorStore, model string, apps ...string) []cache.ActionVector {
	t.Helper()
	got, err := vs.Vectors(context.Background(), model, apps)
	if err != nil {
		t.Fatalf("Vectors(%q, %v): %v", model, apps, err)
	}
	return got
}

// testVectorsRoundTrip: vectors come back per model, for the apps asked, ordered by app and
// action, with their values and versions.
func testVectorsRoundTrip(t *testing.T, st cache.Store) {
	vs := vectorStore(t, st)
	ctx := context.Background()
	if got := getVectors(t, vs, "m1"); len(got) != 0 {
		t.Fatalf("empty store has vectors: %v", vectorKeys(got))
	}
	loadFixture(t, st)
	in := embedAll(t, st)
	n, err := vs.PutVectors(ctx, "m1", in)
	if err != nil || n != len(in) {
		t.Fatalf("PutVectors = %d, %v; want %d", n, err, len(in))
	}
	got := getVectors(t, vs, "m1")
	want := make([]cache.ActionVector, len(in))
	for i, v := range in {
		a, err := st.Action(ctx, v.Action)
		if err != nil {
			t.Fatal(err)
		}
		v.App = a.App
		want[i] = v
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
		cmp.Comparer(func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-6 })); diff != "" {
		t.Errorf("Vectors (-want +got):\n%s", diff)
	}
	// Vectors are kept scaled to length one.
	scaled := []cache.ActionVector{{Action: in[0].Action, Version: in[0].Version, Vector: []float32{3, 4}}}
	if n, err := vs.PutVectors(ctx, "m3", scaled); err != nil || n != 1 {
		t.Fatalf("PutVectors(m3) = %d, %v", n, err)
	}
	if got := getVectors(t, vs, "m3"); len(got) != 1 || math.Abs(float64(got[0].Vector[0])-0.6) > 1e-6 || math.Abs(float64(got[0].Vector[1])-0.8) > 1e-6 {
		t.Errorf("stored [3 4] reads back as %v, want [0.6 0.8]", got)
	} else if scaled[0].Vector[0] != 3 {
		t.Errorf("PutVectors modified its input: %v", scaled[0].Vector)
	}
	if n, err := vs.PutVectors(ctx, "m1", in[:1]); err != nil || n != 1 {
		t.Fatalf("PutVectors(m1) again = %d, %v", n, err)
	}
	got = getVectors(t, vs, "m1", "SLACK", "gmail", "slack", "nosuchapp")
	wantKeys := []string{"gmail/GMAIL_DELETE_MESSAGE", "gmail/GMAIL_FETCH_EMAILS", "gmail/GMAIL_SEND_EMAIL",
		"slack/SLACK_CREATE_CHANNEL", "slack/SLACK_LIST_CHANNELS", "slack/SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"}
	if diff := cmp.Diff(wantKeys, vectorKeys(got)); diff != "" {
		t.Errorf("Vectors for gmail and slack (-want +got):\n%s", diff)
	}
	if got := getVectors(t, vs, "m2"); len(got) != 0 {
		t.Errorf("another model's vectors: %v", vectorKeys(got))
	}
	// Writing the same action with another model replaces its vector.
	if n, err := vs.PutVectors(ctx, "m2", in[:1]); err != nil || n != 1 {
		t.Fatalf("PutVectors(m2) = %d, %v", n, err)
	}
	if got := getVectors(t, vs, "m2"); len(got) != 1 || got[0].Action != in[0].Action {
		t.Errorf("m2 vectors: %v", vectorKeys(got))
	}
	if got := getVectors(t, vs, "m1"); len(got) != len(in)-1 {
		t.Errorf("m1 keeps %d vectors after one was replaced, want %d", len(got), len(in)-1)
	}
}

// testVectorsResync: a re-sync that leaves an action unchanged keeps its vector; one that
// changes it, or deletes it, drops it; a vector computed from an action that has changed
// since is not stored.
func testVectorsResync(t *testing.T, st cache.Store) {
	vs := vectorStore(t, st)
	ctx := context.Background()
	loadFixture(t, st)
	old := embedAll(t, st)
	if _, err := vs.PutVectors(ctx, "m1", old); err != nil {
		t.Fatal(err)
	}
	// The same catalogue again: every vector survives.
	apply(t, st, fixtureBatch())
	if got := getVectors(t, vs, "m1"); len(got) != len(old) {
		t.Fatalf("after an unchanged re-sync %d vectors, want %d", len(got), len(old))
	}
	// One action changes, one is deleted.
	b := fixtureBatch()
	for i := range b.Actions {
		if b.Actions[i].Slug == "GMAIL_SEND_EMAIL" {
			b.Actions[i].Description += " Now with attachments."
		}
	}
	b.DeleteActions = []string{"JIRA_GET_ISSUE"}
	time.Sleep(2 * time.Microsecond) // versions have microsecond precision
	apply(t, st, b)
	got := vectorKeys(getVectors(t, vs, "m1"))
	for _, k := range got {
		if k == "gmail/GMAIL_SEND_EMAIL" || k == "jira/JIRA_GET_ISSUE" {
			t.Errorf("vector of %s survived a change", k)
		}
	}
	if len(got) != len(old)-2 {
		t.Errorf("after the change %d vectors, want %d: %v", len(got), len(old)-2, got)
	}
	// The old vector of the changed action is refused; a new one is taken.
	var stale []cache.ActionVector
	for _, v := range old {
		if v.Action == "GMAIL_SEND_EMAIL" || v.Action == "JIRA_GET_ISSUE" {
			stale = append(stale, v)
		}
	}
	if n, err := vs.PutVectors(ctx, "m1", stale); err != nil || n != 0 {
		t.Errorf("PutVectors(stale) = %d, %v; want 0 stored", n, err)
	}
	fresh := embedAll(t, st, "gmail")
	if n, err := vs.PutVectors(ctx, "m1", fresh); err != nil || n != len(fresh) {
		t.Errorf("PutVectors(fresh) = %d, %v; want %d", n, err, len(fresh))
	}
	if got := getVectors(t, vs, "m1"); len(got) != len(old)-1 {
		t.Errorf("after re-embedding %d vectors, want %d", len(got), len(old)-1)
	}
	// Deleting an app drops its actions' vectors.
	apply(t, st, cache.Batch{DeleteApps: []string{"gmail"}})
	if got := getVectors(t, vs, "m1", "gmail"); len(got) != 0 {
		t.Errorf("vectors of a deleted app: %v", vectorKeys(got))
	}
}

// testVectorsInvalid: bad writes are refused whole with ErrInvalid.
func testVectorsInvalid(t *testing.T, st cache.Store) {
	vs := vectorStore(t, st)
	ctx := context.Background()
	loadFixture(t, st)
	good := embedAll(t, st, "gmail")
	nan := append([]cache.ActionVector(nil), good...)
	nan[1].Vector = []float32{1, float32(math.NaN()), 0}
	ragged := append([]cache.ActionVector(nil), good...)
	ragged[2].Vector = []float32{1}
	empty := append([]cache.ActionVector(nil), good...)
	empty[0].Vector = nil
	zero := append([]cache.ActionVector(nil), good...)
	zero[1].Vector = []float32{0, 0, 0}
	badSlug := append([]cache.ActionVector(nil), good...)
	badSlug[0].Action = "no spaces"
	for _, tt := range []struct {
		name, model string
		vs          []cache.ActionVector
	}{
		{"no model", "", good},
		{"long model", strings.Repeat("m", cache.MaxModelLen+1), good},
		{"not finite", "m", nan},
		{"ragged", "m", ragged},
		{"empty vector", "m", empty},
		{"zero vector", "m", zero},
		{"bad slug", "m", badSlug},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := vs.PutVectors(ctx, tt.model, tt.vs); !errors.Is(err, cache.ErrInvalid) {
				t.Errorf("PutVectors = %v, want ErrInvalid", err)
			}
			// Nothing is stored, under the model written nor under another.
			for _, model := range []string{tt.model, "m"} {
				if got := getVectors(t, vs, model); len(got) != 0 {
					t.Errorf("a refused write stored %v under %.20q", vectorKeys(got), model)
				}
			}
		})
	}
	if _, err := vs.Vectors(ctx, "m", []string{"not an app!"}); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("Vectors(bad app) = %v, want ErrInvalid", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := vs.PutVectors(cctx, "m", good); err == nil {
		t.Error("PutVectors with a cancelled context: no error")
	}
	if _, err := vs.Vectors(cctx, "m", nil); err == nil {
		t.Error("Vectors with a cancelled context: no error")
	}
}
