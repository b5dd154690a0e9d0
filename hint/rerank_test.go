package hint_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/hint"
)

// fakeReranker returns the candidates reversed (or order, when set), and records what it
// was given.
type fakeReranker struct {
	order []string
	faults

	mu     sync.Mutex
	calls  int
	prompt string
	cands  []hint.RerankCandidate
}

func (f *fakeReranker) Rerank(ctx context.Context, prompt string, cands []hint.RerankCandidate) ([]string, error) {
	f.mu.Lock()
	f.calls++
	f.prompt, f.cands = prompt, slices.Clone(cands)
	f.mu.Unlock()
	if err := f.faults.apply(ctx, "reranker broke"); err != nil {
		return nil, err
	}
	if f.order != nil {
		return f.order, nil
	}
	var out []string
	for i := len(cands) - 1; i >= 0; i-- {
		out = append(out, cands[i].Action)
	}
	return out, nil
}

// TestRerank: the reranker is called only for a hint that is not confident, with the top
// K actions and their descriptions; its order replaces the ranking's for those K only.
func TestRerank(t *testing.T) {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	apps := []string{"slack", "gmail", "github", "jira", "notion", "linear"}
	lexical := hint.New(hint.Config{})
	// A prompt the ranking is not sure of, with more than K actions listed.
	req := hint.Request{AgentID: 1, Apps: apps, Prompt: "tell the team about the new issue"}
	lex, err := lexical.Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	const k = 2
	if lex.Confident || len(lex.MatchedActions) <= k {
		t.Fatalf("lexical hint confident %v with %v: the test needs an unsure one with more than %d actions", lex.Confident, lex.MatchedActions, k)
	}
	rr := &fakeReranker{}
	b := hint.New(hint.Config{Reranker: rr, RerankTop: k})
	res, err := b.Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(lex.MatchedActions)
	slices.Reverse(want[:k])
	if diff := cmp.Diff(want, res.MatchedActions); diff != "" {
		t.Errorf("reranked actions (-want +got):\n%s", diff)
	}
	if !res.Reranked || len(res.Fallbacks) != 0 || rr.calls != 1 || rr.prompt != req.Prompt {
		t.Errorf("Reranked %v, Fallbacks %v, calls %d, prompt %q", res.Reranked, res.Fallbacks, rr.calls, rr.prompt)
	}
	for i, c := range rr.cands {
		if c.Action != lex.MatchedActions[i] || c.Description == "" || strings.Contains(c.Description, "\n") {
			t.Errorf("candidate %d = %+v, want %s with a one-line description", i, c, lex.MatchedActions[i])
		}
	}
	for i, m := range res.Matches {
		if m.Action != res.MatchedActions[i] {
			t.Errorf("Matches[%d] is %s, MatchedActions[%d] %s", i, m.Action, i, res.MatchedActions[i])
		}
	}
	if !strings.Contains(res.Text, res.MatchedActions[0]) || strings.Index(res.Text, res.MatchedActions[0]) > strings.Index(res.Text, res.MatchedActions[1]) {
		t.Errorf("the text does not follow the new order:\n%s", res.Text)
	}

	// Partial and foreign answers: named candidates first, the rest in the ranking's
	// order, slugs that are not candidates ignored.
	rr2 := &fakeReranker{order: []string{"GMAIL_DELETE_EVERYTHING", lex.MatchedActions[1]}}
	res, err = hint.New(hint.Config{Reranker: rr2, RerankTop: k}).Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	want = append([]string{lex.MatchedActions[1], lex.MatchedActions[0]}, lex.MatchedActions[k:]...)
	if diff := cmp.Diff(want, res.MatchedActions); diff != "" {
		t.Errorf("partial answer (-want +got):\n%s", diff)
	}

	// A confident hint is not re-ranked.
	rr3 := &fakeReranker{}
	conf := hint.Request{AgentID: 1, Apps: apps, Prompt: "use GITHUB_CREATE_AN_ISSUE to file the bug"}
	res, err = hint.New(hint.Config{Reranker: rr3}).Build(ctx, st, conf)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Confident || rr3.calls != 0 || res.Reranked {
		t.Errorf("confident %v: reranker called %d times, Reranked %v", res.Confident, rr3.calls, res.Reranked)
	}
}

// TestRerankFallback: a reranker that fails, panics, answers nothing useful or too late
// leaves the ranking's order, within its deadline, and the hint says why.
func TestRerankFallback(t *testing.T) {
	ctx := context.Background()
	st, err := loadTestdata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req := hint.Request{AgentID: 1, Apps: []string{"slack", "gmail", "github", "jira"}, Prompt: "tell the team about the new issue"}
	want, err := hint.New(hint.Config{}).Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		rr   *fakeReranker
		want string
	}{
		{"fails", &fakeReranker{faults: faults{fail: errors.New("model overloaded")}}, "rerank: model overloaded"},
		{"panics", &fakeReranker{faults: faults{panic: true}}, "rerank: panic: reranker broke"},
		{"too slow", &fakeReranker{faults: faults{slow: true}}, "did not answer within 50ms"},
		{"no candidate", &fakeReranker{order: []string{"NOPE"}}, "returned none of the candidates"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, err := hint.New(hint.Config{Reranker: tt.rr, RerankTimeout: 50 * time.Millisecond}).Build(ctx, st, req)
			if err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("Build took %v", el) // the slow reranker would take 30s
			}
			if len(got.Fallbacks) != 1 || !strings.Contains(got.Fallbacks[0], tt.want) || got.Reranked {
				t.Errorf("Fallbacks %q (want one with %q), Reranked %v", got.Fallbacks, tt.want, got.Reranked)
			}
			got.Fallbacks = nil
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fallback hint differs from the lexical one (-lexical +got):\n%s", diff)
			}
		})
	}
}
