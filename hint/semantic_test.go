package hint_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// embedded returns the semantic test store with the fake model's vectors.
func embedded(t *testing.T, emb *fakeEmbedder) *cache.Memory {
	t.Helper()
	ctx := context.Background()
	st, err := semanticStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hint.EmbedCatalog(ctx, st, emb, hint.EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	return st
}

var semApps = []string{"gmail", "todoist"}

const vaguePrompt = "nudge me about the dentist tomorrow"

// TestSemanticLifts: a prompt that shares no word with the action it needs gets it from
// the semantic tier, with one Embed call per Build; a prompt the lexical ranking serves
// keeps its first action.
func TestSemanticLifts(t *testing.T) {
	ctx := context.Background()
	emb := &fakeEmbedder{}
	st := embedded(t, emb)
	lexical := hint.New(hint.Config{})
	semantic := hint.New(hint.Config{Embedder: emb})

	req := hint.Request{AgentID: 1, Apps: semApps, Prompt: vaguePrompt}
	lex, err := lexical.Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(lex.MatchedActions, "TODOIST_CREATE_TASK") {
		t.Fatalf("the lexical ranking finds TODOIST_CREATE_TASK for %q (%v): the test needs a prompt it misses", vaguePrompt, lex.MatchedActions)
	}
	calls := emb.embedCalls()
	res, err := semantic.Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MatchedActions) == 0 || res.MatchedActions[0] != "TODOIST_CREATE_TASK" {
		t.Errorf("semantic ranking: %v, want TODOIST_CREATE_TASK first", res.MatchedActions)
	}
	if !res.Semantic || len(res.Fallbacks) != 0 || res.Confident {
		t.Errorf("Semantic %v, Fallbacks %v, Confident %v: want used, none, not confident", res.Semantic, res.Fallbacks, res.Confident)
	}
	if after := emb.embedCalls(); after-calls != 1 {
		t.Errorf("Build made %d Embed calls, want 1", after-calls)
	}

	req.Prompt = "send an email to dana about the offsite"
	lex, _ = lexical.Build(ctx, st, req)
	res, err = semantic.Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(lex.MatchedActions) == 0 || len(res.MatchedActions) == 0 || res.MatchedActions[0] != lex.MatchedActions[0] {
		t.Errorf("semantic %v and lexical %v disagree on the first action of %q", res.MatchedActions, lex.MatchedActions, req.Prompt)
	}
}

// slowReader is a store whose vector reads wait for the context to end.
type slowReader struct{ *cache.Memory }

func (s slowReader) Vectors(ctx context.Context, model string, apps []string) ([]cache.ActionVector, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestSemanticFallback: whatever goes wrong in the semantic tier, Build gives the lexical
// hint, within the tier's deadline, and says why.
func TestSemanticFallback(t *testing.T) {
	ctx := context.Background()
	good := &fakeEmbedder{}
	st := embedded(t, good)
	other := &fakeEmbedder{model: "another-model"}
	tests := []struct {
		name string
		emb  *fakeEmbedder
		st   hint.Store
		want string // in the fallback
	}{
		{"embedder fails", &fakeEmbedder{faults: faults{fail: errors.New("502 bad gateway")}}, st, "embedder: 502 bad gateway"},
		{"embedder too slow", &fakeEmbedder{faults: faults{slow: true}}, st, "did not answer within 50ms"},
		{"embedder panics", &fakeEmbedder{faults: faults{panic: true}}, st, "panic: fake embedder broke"},
		{"too few vectors", &fakeEmbedder{short: true}, st, "0 vectors for 1 texts"},
		{"no vectors of the model", other, st, `no vectors of model "another-model"`},
		{"store without vectors", good, newFake(), "the store keeps no vectors"},
		{"vector read too slow", good, slowReader{st}, "reading vectors: context deadline exceeded"},
	}
	for _, p := range []string{vaguePrompt, "send an email to dana about the offsite"} {
		req := hint.Request{AgentID: 1, Apps: semApps, Prompt: p}
		for _, tt := range tests {
			t.Run(strings.Fields(p)[0]+"/"+tt.name, func(t *testing.T) {
				want, err := hint.New(hint.Config{}).Build(ctx, tt.st, req)
				if err != nil {
					t.Fatal(err)
				}
				b := hint.New(hint.Config{Embedder: tt.emb, EmbedTimeout: 50 * time.Millisecond})
				start := time.Now()
				got, err := b.Build(ctx, tt.st, req)
				if err != nil {
					t.Fatal(err)
				}
				// A generous bound: the point is that Build does not wait for the slow
				// embedder (which would take 30s), not how fast it is.
				if el := time.Since(start); el > 10*time.Second {
					t.Errorf("Build took %v", el)
				}
				if len(got.Fallbacks) != 1 || !strings.Contains(got.Fallbacks[0], tt.want) {
					t.Errorf("Fallbacks = %q, want one with %q", got.Fallbacks, tt.want)
				}
				if got.Semantic {
					t.Error("Semantic is set")
				}
				got.Fallbacks = nil
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("fallback hint differs from the lexical one (-lexical +got):\n%s", diff)
				}
			})
		}
	}
}

// TestEmbedCatalog: vectors are computed once, again only for what a re-sync changed, and
// all again for a new model.
func TestEmbedCatalog(t *testing.T) {
	ctx := context.Background()
	st, err := semanticStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	emb := &fakeEmbedder{}
	run := func(e hint.Embedder, opt hint.EmbedOptions) hint.EmbedReport {
		t.Helper()
		rep, err := hint.EmbedCatalog(ctx, st, e, opt)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if diff := cmp.Diff(hint.EmbedReport{Actions: 6, Embedded: 6, Batches: 3}, run(emb, hint.EmbedOptions{BatchSize: 2})); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(hint.EmbedReport{Actions: 6, Current: 6}, run(emb, hint.EmbedOptions{})); diff != "" {
		t.Errorf("second run (-want +got):\n%s", diff)
	}
	// A re-sync that changes one action.
	a, err := st.Action(ctx, "TODOIST_CLOSE_TASK")
	if err != nil {
		t.Fatal(err)
	}
	a.Description = "Marks a task as done."
	time.Sleep(2 * time.Microsecond) // versions have microsecond precision
	if _, err := st.Apply(ctx, cache.Batch{Actions: []cache.Action{a}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hint.EmbedReport{Actions: 6, Current: 5, Embedded: 1, Batches: 1}, run(emb, hint.EmbedOptions{})); diff != "" {
		t.Errorf("after a change (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(hint.EmbedReport{Actions: 3, Embedded: 3, Batches: 1}, run(&fakeEmbedder{model: "m2"}, hint.EmbedOptions{Apps: []string{"gmail"}})); diff != "" {
		t.Errorf("a new model (-want +got):\n%s", diff)
	}
	// A failing embedder stores nothing and says so.
	if _, err := hint.EmbedCatalog(ctx, st, &fakeEmbedder{model: "m3", faults: faults{fail: errors.New("boom")}}, hint.EmbedOptions{}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("failing embedder: %v", err)
	}
	if _, err := hint.EmbedCatalog(ctx, st, nil, hint.EmbedOptions{}); !errors.Is(err, hint.ErrInvalidRequest) {
		t.Errorf("no embedder: %v", err)
	}
	if got := hint.ActionText(a); got != "todoist close task. Close task. Marks a task as done." {
		t.Errorf("ActionText = %q", got)
	}
}

// TestEmbedCatalogProgress: the callback sees each stored batch and then the final counts
// once, nothing for a batch that failed.
func TestEmbedCatalogProgress(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		emb  *fakeEmbedder
		opt  hint.EmbedOptions
		want []hint.EmbedReport
		fail bool
	}{
		{
			name: "batches of two",
			emb:  &fakeEmbedder{},
			opt:  hint.EmbedOptions{BatchSize: 2},
			want: []hint.EmbedReport{
				{Actions: 2, Embedded: 2, Batches: 1},
				{Actions: 4, Embedded: 4, Batches: 2},
				{Actions: 6, Embedded: 6, Batches: 3},
			},
		},
		{
			name: "a last short batch",
			emb:  &fakeEmbedder{},
			opt:  hint.EmbedOptions{BatchSize: 4},
			want: []hint.EmbedReport{
				{Actions: 4, Embedded: 4, Batches: 1},
				{Actions: 6, Embedded: 6, Batches: 2},
			},
		},
		{
			name: "one app",
			emb:  &fakeEmbedder{},
			opt:  hint.EmbedOptions{Apps: []string{"gmail"}},
			want: []hint.EmbedReport{{Actions: 3, Embedded: 3, Batches: 1}},
		},
		{
			name: "a failing embedder",
			emb:  &fakeEmbedder{faults: faults{fail: errors.New("boom")}},
			opt:  hint.EmbedOptions{BatchSize: 2},
			fail: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := semanticStore(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []hint.EmbedReport
			tt.opt.Progress = func(r hint.EmbedReport) { got = append(got, r) }
			rep, err := hint.EmbedCatalog(ctx, st, tt.emb, tt.opt)
			if (err != nil) != tt.fail {
				t.Fatalf("EmbedCatalog error = %v, want failure %v", err, tt.fail)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("progress (-want +got):\n%s", diff)
			}
			if !tt.fail && rep != got[len(got)-1] {
				t.Errorf("last progress %+v, report %+v", got[len(got)-1], rep)
			}
			if tt.fail {
				return
			}
			// A second run has nothing to embed: one call with the final counts.
			got = nil
			rep, err = hint.EmbedCatalog(ctx, st, tt.emb, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			want := []hint.EmbedReport{{Actions: rep.Actions, Current: rep.Actions}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("second run's progress (-want +got):\n%s", diff)
			}
		})
	}
}
