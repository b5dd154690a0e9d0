package hint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMergeSignals: two sources combine feature by feature, and either may lift.
func TestMergeSignals(t *testing.T) {
	usage := func(words string, terms []string) map[string]signal {
		return map[string]signal{"A": {Learnt: 0.5}, "B": {Learnt: 1}}
	}
	sem := func(words string, terms []string) map[string]signal {
		if words != "w" {
			return nil
		}
		return map[string]signal{"A": {Semantic: 0.8}, "C": {Semantic: 1, Lift: true}}
	}
	want := map[string]signal{"A": {Learnt: 0.5, Semantic: 0.8}, "B": {Learnt: 1}, "C": {Semantic: 1, Lift: true}}
	if diff := cmp.Diff(want, mergeSignals(usage, sem)("w", nil)); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(usage("", nil), mergeSignals(usage, sem)("other", nil)); diff != "" {
		t.Errorf("one source silent (-want +got):\n%s", diff)
	}
	if mergeSignals(nil, nil) != nil {
		t.Error("merging no sources gives a source")
	}
	if got := mergeSignals(nil, sem)("w", nil); len(got) != 2 {
		t.Errorf("one source: %v", got)
	}
}

// TestSemanticEarnsNoConfidence: semantic similarity may put an action first, but the
// strong directive needs lexical evidence, however heavy the semantic weight.
func TestSemanticEarnsNoConfidence(t *testing.T) {
	w := DefaultWeights().With("semantic", 100)
	b := New(Config{Weights: &w})
	metas := signalFixture()
	build := func(prompt string, src signalSource) Result {
		var res Result
		if r := b.rankPrepare(Request{AgentID: 1}, newAnalysis(prompt, []string{"gmail", "todoist"}), metas, &scratch{}, src, nil); r != nil {
			b.fill(r, &b.weights, &res)
		}
		return res
	}
	tested := 0
	for _, p := range []string{"email dana", "look at my tasks", "send an email to dana", "close the dentist task"} {
		lex := build(p, nil)
		if len(lex.MatchedActions) == 0 {
			continue
		}
		top := lex.MatchedActions[0]
		sem := build(p, func(string, []string) map[string]signal { return map[string]signal{top: {Semantic: 1}} })
		if sem.MatchedActions[0] != top || sem.Matches[0].Score < lex.Matches[0].Score+99 {
			t.Fatalf("%q: the semantic signal did not raise %s: %v", p, top, sem.Matches[0])
		}
		if sem.Confident != lex.Confident {
			t.Errorf("%q: confident %v with similarity, %v without", p, sem.Confident, lex.Confident)
		}
		if !lex.Confident {
			tested++
		}
	}
	if tested == 0 {
		t.Fatal("no prompt with a hint that is not confident: the test checks nothing")
	}
}
