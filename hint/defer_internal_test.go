package hint

import (
	"slices"
	"testing"
)

// TestSchedule: of several stated clauses, one whose best action scores below defer_ratio
// of the best clause's best joins the interleave a round late, and one whose best scores
// nothing after every other clause's list; one below lead_ratio takes its turns after the
// others; a lone clause never waits, and the implied steps come last.
func TestSchedule(t *testing.T) {
	list := func(scores ...float64) []scored {
		var out []scored
		for _, s := range scores {
			out = append(out, scored{score: s})
		}
		return out
	}
	w := NeutralWeights()
	for _, tc := range []struct {
		name        string
		defer_, led float64
		kept        [][]scored
		implied     int
		delay       []int
		order       []int
	}{
		{"a weak description waits", 0.5, 0, [][]scored{list(3, 2), list(10, 4), list(6)}, 0, []int{1, 0, 0}, []int{0, 1, 2}},
		{"a lower ratio keeps it", 0.2, 0, [][]scored{list(3, 2), list(10, 4)}, 0, []int{0, 0}, []int{0, 1}},
		{"one clause", 0.9, 0.9, [][]scored{list(1)}, 0, []int{0}, []int{0}},
		{"an empty clause", 0.5, 0, [][]scored{nil, list(5)}, 0, []int{0, 0}, []int{1, 0}},
		{"nothing scores above zero", 0.5, 0.9, [][]scored{list(-3), list(-1)}, 0, []int{0, 0}, []int{0, 1}},
		{"a clause whose best earns nothing comes after every list", 0.5, 0, [][]scored{list(-2, -3), list(10, 4, 3), list(6)}, 0, []int{3, 0, 0}, []int{1, 2, 0}},
		{"the clearest step leads", 0.3, 0.85, [][]scored{list(5, 2), list(10, 4), list(9)}, 0, []int{0, 0, 0}, []int{1, 2, 0}},
		{"a clause with nothing follows", 0.3, 0.85, [][]scored{nil, list(10)}, 0, []int{0, 0}, []int{1, 0}},
		{"implied steps come last", 0.3, 0.85, [][]scored{list(5), list(10), list(20)}, 1, []int{0, 0}, []int{1, 0, 2}},
		{"lead_ratio 0 keeps the prompt's order", 0.3, 0, [][]scored{list(5), list(10)}, 0, []int{0, 0}, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := w.With("defer_ratio", tc.defer_).With("lead_ratio", tc.led)
			delay, order := (&ranking{}).schedule(tc.kept, len(tc.kept)-tc.implied, &w)
			if !slices.Equal(delay, tc.delay) || !slices.Equal(order, tc.order) {
				t.Errorf("schedule = %v, %v; want %v, %v", delay, order, tc.delay, tc.order)
			}
		})
	}
}
