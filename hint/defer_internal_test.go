package hint

import (
	"slices"
	"testing"
)

// TestDeferred: of several stated clauses, one whose best action scores below defer_ratio
// of the best clause's best joins the interleave a round late, and one whose best scores
// nothing after every other clause's list; a lone clause never waits.
func TestDeferred(t *testing.T) {
	list := func(scores ...float64) []scored {
		var out []scored
		for _, s := range scores {
			out = append(out, scored{score: s})
		}
		return out
	}
	w := NeutralWeights()
	for _, tc := range []struct {
		name  string
		ratio float64
		kept  [][]scored
		want  []int
	}{
		{"a weak description waits", 0.5, [][]scored{list(3, 2), list(10, 4), list(6)}, []int{1, 0, 0}},
		{"a lower ratio keeps it", 0.2, [][]scored{list(3, 2), list(10, 4)}, []int{0, 0}},
		{"one clause", 0.9, [][]scored{list(1)}, []int{0}},
		{"an empty clause", 0.5, [][]scored{nil, list(5)}, []int{0, 0}},
		{"nothing scores above zero", 0.5, [][]scored{list(-3), list(-1)}, []int{0, 0}},
		{"a clause whose best earns nothing comes after every list", 0.5, [][]scored{list(-2, -3), list(10, 4, 3), list(6)}, []int{3, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := w.With("defer_ratio", tc.ratio)
			if got := (&ranking{}).deferred(tc.kept, &w); !slices.Equal(got, tc.want) {
				t.Errorf("deferred = %v, want %v", got, tc.want)
			}
		})
	}
}
