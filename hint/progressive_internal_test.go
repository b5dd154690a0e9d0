package hint

import (
	"testing"

	"github.com/toolhint/toolhint/internal/text"
)

// TestProgressive: a clause whose verb is said in its -ing form is progressive; the same
// verb said plainly, or another word in -ing, is not.
func TestProgressive(t *testing.T) {
	an := text.New()
	for _, tc := range []struct {
		prompt string
		want   bool
	}{
		{"I'm planning a trip to Lisbon", true},
		{"we are organizing a family reunion", true},
		{"plan a trip to Lisbon", false},
		{"plan a meeting about the coming launch", false},
	} {
		p := an.Prompt(tc.prompt, nil)
		if len(p.Clauses) != 1 {
			t.Fatalf("%q: %d clauses, want 1", tc.prompt, len(p.Clauses))
		}
		c := p.Clauses[0]
		if got := c.VerbWord != "" && progressive(an, c.Text, c.VerbWord); got != tc.want {
			t.Errorf("%q (verb %q, text %q): progressive = %v, want %v", tc.prompt, c.VerbWord, c.Text, got, tc.want)
		}
	}
}
