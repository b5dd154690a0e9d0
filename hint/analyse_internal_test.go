package hint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/internal/text"
)

// TestLookups: a clause that acts on something existing it names by kind, not by ID, implies
// a step that finds it first: a list (a search for an item known by a quoted name) that
// serves the clause; a prompt that states its read step, and recipe mode, imply none.
func TestLookups(t *testing.T) {
	b := New(Config{})
	type lookup struct {
		Verb string
		Of   int
	}
	for _, tc := range []struct {
		name   string
		prompt string
		recipe bool
		want   []lookup
	}{
		{"a draft to send", "send out the draft I wrote", false, []lookup{{text.VerbList, 0}}},
		{"a quoted name", `delete the file called "Q3 plan"`, false, []lookup{{text.VerbSearch, 0}}},
		{"a stated read step", "find the draft I wrote and send it", false, nil},
		{"recipe mode", "send out the draft I wrote", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newAnalysis(tc.prompt, []string{"gmail"}).get(b.an)
			r := &ranking{objectsOf: func(string) []string { return nil }}
			b.analyseClauses(Request{RecipeMode: tc.recipe}, p, r)
			var got []lookup
			for k, lk := range r.clauses[len(r.clauses)-r.lookups:] {
				got = append(got, lookup{lk.c.Verb, r.of[k]})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lookups (-want +got):\n%s", diff)
			}
		})
	}
}
