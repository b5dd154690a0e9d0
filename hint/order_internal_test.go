package hint

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
)

// TestKeep: a clause keeps the actions of an app it names first, then an exact repeat of a
// successful call, then the rest by score (ties to the plainer action), within keep_ratio
// of its first action and above min_score; a clause whose best is below min_score still
// lists its best few, and no app has more than MaxDBRowsPerApp of its actions kept.
func TestKeep(t *testing.T) {
	w := Weights{}.With("slug", 1).With("keep_ratio", 0.5).With("min_score", 0.3)
	type action struct {
		slug   string // its app is the slug's first word
		score  float32
		named  bool
		repeat float32
	}
	for _, tc := range []struct {
		name    string
		actions []action
		perApp  int
		want    []string
	}{
		{"by score within keep_ratio", []action{{slug: "X_A", score: 4}, {slug: "X_B", score: 1}, {slug: "X_C", score: 3}}, 0,
			[]string{"X_A", "X_C"}},
		{"a named app first", []action{{slug: "X_A", score: 4}, {slug: "Y_N", score: 1, named: true}, {slug: "X_B", score: 0.4}}, 0,
			[]string{"Y_N", "X_A"}},
		{"an exact repeat after the named app", []action{{slug: "X_A", score: 4}, {slug: "X_R", score: 2.5, repeat: 1}, {slug: "Y_N", score: 1, named: true}}, 0,
			[]string{"Y_N", "X_R", "X_A"}},
		{"ties to the plainer action", []action{{slug: "X_LIST_ALL_ITEMS", score: 2}, {slug: "X_LIST_ITEMS", score: 2}}, 0,
			[]string{"X_LIST_ITEMS", "X_LIST_ALL_ITEMS"}},
		{"a weak clause lists its best few", []action{{slug: "X_A", score: 0.1}, {slug: "X_B", score: 0.2}, {slug: "X_C", score: 0.05}, {slug: "X_D", score: 0.15}}, 0,
			[]string{"X_B", "X_D", "X_A"}},
		{"actions per app", []action{{slug: "X_A", score: 4}, {slug: "X_B", score: 3.8}, {slug: "Y_C", score: 3}}, 1,
			[]string{"X_A", "Y_C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &ranking{}
			var cands []cand
			for i, a := range tc.actions {
				words := strings.Split(strings.ToLower(a.slug), "_")
				r.metas = append(r.metas, cache.ActionMeta{App: words[0], Action: a.slug, SlugTerms: words[1:]})
				c := cand{i: int32(i), named: a.named}
				c.f[featSlug], c.f[featRepeat] = a.score, a.repeat
				cands = append(cands, c)
			}
			lim := Limits{MaxDBRowsPerApp: tc.perApp}.withDefaults()
			var got []string
			for _, s := range r.keep(cands, &w, lim) {
				got = append(got, r.metas[s.cand.i].Action)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
		})
	}
}
