package hint

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/cache"
)

// TestPromptRecallReadsEveryWord: the whole prompt's ranking reads each of the prompt's own
// words once and alike, whatever clause it is in and however that clause weighs it: a word
// of a sentence that only sets the scene counts as much as what the request asks for.
func TestPromptRecallReadsEveryWord(t *testing.T) {
	metas := metasOf([]cache.Action{
		{App: "quiz", Slug: "QUIZ_GET_RIDDLES", DisplayName: "Get riddles", Description: "Returns riddles."},
		{App: "school", Slug: "SCHOOL_GET_TEACHERS", DisplayName: "Get teachers", Description: "Returns teachers."},
		{App: "notes", Slug: "NOTES_GET_NOTES", DisplayName: "Get notes", Description: "Returns notes."},
	})
	b := New(Config{})
	sc := &scratch{}
	r := b.rankPrepare(Request{AgentID: 1}, newAnalysis("As a teacher, I am preparing a class. Can you find me some riddles?", []string{"quiz", "school", "notes"}), metas, sc, nil, nil)
	if r == nil {
		t.Fatal("no ranking")
	}
	for _, w := range []string{"teacher", "riddl", "prepar", "class"} {
		if k := slices.Index(r.table, w); k < 0 || r.said&(1<<k) == 0 {
			t.Errorf("%s: not among the prompt's words read by recall (table %v)", w, r.table)
		}
	}
	score := map[string]float64{}
	for j, i := range sc.touched {
		score[metas[i].Action] = sc.promptBM[j]
	}
	riddles, teachers := score["QUIZ_GET_RIDDLES"], score["SCHOOL_GET_TEACHERS"]
	if riddles <= 0 || math.Abs(riddles-teachers) > 1e-9 {
		t.Errorf("BM25F for the whole prompt: riddles %.4f, teachers %.4f; want the same, above zero", riddles, teachers)
	}
	if score["NOTES_GET_NOTES"] != 0 {
		t.Errorf("an action that holds none of the prompt's words scores %.4f", score["NOTES_GET_NOTES"])
	}
}

// TestPromptAppShare: the share of an app's name the prompt says, by IDF, a name word the
// prompt does not say counting as the rarest; words that say what to do or when name no
// app.
func TestPromptAppShare(t *testing.T) {
	var idf [maxTerms]float64
	idf[0], idf[1] = 0.8, 0.4
	rn := &run{appTerms: []string{"live", "golf", "data"}, appMask: 1}
	if got, want := promptAppShare(rn, 1, &idf), float32(0.8/2.8); math.Abs(float64(got-want)) > 1e-6 {
		t.Errorf("one of three name words said: share %v, want %v", got, want)
	}
	if got := promptAppShare(rn, 2, &idf); got != 0 {
		t.Errorf("no name word said: share %v, want 0", got)
	}
	rn = &run{appTerms: []string{"golf"}, appMask: 1}
	if got := promptAppShare(rn, 3, &idf); got != 1 {
		t.Errorf("the whole name said: share %v, want 1", got)
	}

	metas := metasOf([]cache.Action{
		{App: "search", Slug: "SEARCH_SEARCH", DisplayName: "search", Description: "Courses and workshops."},
		{App: "art_collection", Slug: "ART_COLLECTION_ART_COLLECTION", DisplayName: "art collection", Description: "Finds a piece of art in a museum."},
	})
	r := New(Config{}).rankPrepare(Request{AgentID: 1}, newAnalysis("help me search for a piece of art", []string{"search", "art_collection"}), metas, &scratch{}, nil, nil)
	if r == nil {
		t.Fatal("no ranking")
	}
	for w, names := range map[string]bool{"search": false, "art": true} {
		k := slices.Index(r.table, w)
		if k < 0 || r.said&(1<<k) == 0 {
			t.Errorf("%s: not read by recall (table %v)", w, r.table)
			continue
		}
		if got := r.saidNames&(1<<k) != 0; got != names {
			t.Errorf("%s may name an app: %v, want %v", w, got, names)
		}
	}
}

// TestFuse: the final order weighs each action's place in the clauses' list and, by
// fuse_single, fuse_multi or fuse_many (one step, two, more: times half the steps after
// the first), its place in the whole prompt's ranking; an action only that
// ranking holds joins unless it is destructive; the first action of a clause that names its
// app keeps its place; with no weight the list is as the clauses made it.
func TestFuse(t *testing.T) {
	metas := metasOf([]cache.Action{
		{App: "a", Slug: "A_ONE", DisplayName: "one"},
		{App: "a", Slug: "A_TWO", DisplayName: "two"},
		{App: "a", Slug: "A_THREE", DisplayName: "three"},
		{App: "a", Slug: "A_DELETE_FOUR", DisplayName: "delete four"},
	})
	idx := map[string]int32{}
	for i := range metas {
		idx[metas[i].Action] = int32(i)
	}
	if !metas[idx["A_DELETE_FOUR"]].Destructive {
		t.Fatal("the fixture needs a destructive action")
	}
	seq := []listed{{cand: &cand{i: idx["A_ONE"]}, ci: 0}, {cand: &cand{i: idx["A_TWO"]}, ci: 1}}
	order := func(r *ranking, w Weights) []string {
		var out []string
		for _, l := range r.fuse(slices.Clone(seq), &w) {
			out = append(out, metas[l.cand.i].Action)
		}
		return out
	}
	r := &ranking{metas: metas, clauses: make([]clauseInfo, 2), recall: []int32{idx["A_THREE"], idx["A_DELETE_FOUR"], idx["A_ONE"]}}
	w := NeutralWeights().With("fuse_multi", 1)
	// A_ONE: 1/10 + 1/12; A_THREE: 1/10; A_TWO: 1/11; A_DELETE_FOUR stays out.
	if got, want := order(r, w), []string{"A_ONE", "A_THREE", "A_TWO"}; !slices.Equal(got, want) {
		t.Errorf("fused: %v, want %v", got, want)
	}
	r.clauses[1].appStrength = 1
	if got, want := order(r, w), []string{"A_ONE", "A_TWO", "A_THREE"}; !slices.Equal(got, want) {
		t.Errorf("the second clause names its app: %v, want %v", got, want)
	}
	if got, want := order(r, w.With("fuse_multi", 0)), []string{"A_ONE", "A_TWO"}; !slices.Equal(got, want) {
		t.Errorf("no weight: %v, want %v", got, want)
	}
	r.clauses = r.clauses[:1]
	if got, want := order(r, w), []string{"A_ONE", "A_TWO"}; !slices.Equal(got, want) {
		t.Errorf("one step, fuse_single 0: %v, want %v", got, want)
	}
	r.clauses = make([]clauseInfo, 3)
	if got, want := order(r, w), []string{"A_ONE", "A_TWO"}; !slices.Equal(got, want) {
		t.Errorf("three steps, fuse_many 0: %v, want %v", got, want)
	}
	if got, want := order(r, w.With("fuse_multi", 0).With("fuse_many", 1)), []string{"A_ONE", "A_THREE", "A_TWO"}; !slices.Equal(got, want) {
		t.Errorf("three steps, fuse_many 1: %v, want %v", got, want)
	}
	// The whole prompt's ranking counts more the more steps there are: fuse_many times half
	// the steps after the first. Three steps at 0.5 (A_THREE: 0.5/10 < A_TWO: 1/11) keep
	// the clauses' order; five at 0.5 weigh as three at 1.
	half := w.With("fuse_multi", 0).With("fuse_many", 0.5)
	if got, want := order(r, half), []string{"A_ONE", "A_TWO", "A_THREE"}; !slices.Equal(got, want) {
		t.Errorf("three steps, fuse_many 0.5: %v, want %v", got, want)
	}
	r.clauses = make([]clauseInfo, 5)
	if got, want := order(r, half), []string{"A_ONE", "A_THREE", "A_TWO"}; !slices.Equal(got, want) {
		t.Errorf("five steps, fuse_many 0.5: %v, want %v", got, want)
	}
}

// metasOf classifies acts as a store would and orders them by app and slug.
func metasOf(acts []cache.Action) []cache.ActionMeta {
	c := cache.NewClassifier(nil)
	out := make([]cache.ActionMeta, 0, len(acts))
	for _, a := range acts {
		out = append(out, c.Classify(a))
	}
	slices.SortFunc(out, func(a, b cache.ActionMeta) int {
		if a.App != b.App {
			return strings.Compare(a.App, b.App)
		}
		return strings.Compare(a.Action, b.Action)
	})
	return out
}
