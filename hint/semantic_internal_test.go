package hint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMergeSignals: two sources combine feature by feature, and either may lift.
func TestMergeSignals(t *testing.T) {
	usage := func(words string, terms []string) map[string]signal {
		return map[string]signal{"A": {Prior: 0.5, Learnt: 1}, "B": {Prior: -1}}
	}
	sem := func(words string, terms []string) map[string]signal {
		if words != "w" {
			return nil
		}
		return map[string]signal{"A": {Semantic: 0.8}, "C": {Semantic: 1, Lift: true}}
	}
	want := map[string]signal{"A": {Prior: 0.5, Learnt: 1, Semantic: 0.8}, "B": {Prior: -1}, "C": {Semantic: 1, Lift: true}}
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
