package hint

import (
	"testing"

	"github.com/toolhint/toolhint/cache"
)

// TestLeadEvidence: the evidence of a hint's lead is its first action's, and an action with
// slug words the request does not explain, outside the whole prompt's best and of an app
// that covers less of it, is less probably right.
func TestLeadEvidence(t *testing.T) {
	r := &ranking{clauses: make([]clauseInfo, 1)}
	w := DefaultWeights()
	lead := func(unexplained, prompt, focus float32) lead {
		c := &cand{}
		c.f[featUnexplained], c.f[featPromptBM25F], c.f[featAppFocus] = unexplained, prompt, focus
		c.f[featSlug] = 1
		other := &cand{}
		l := newLead()
		r.metas = make([]cache.ActionMeta, 1)
		l.see(r, &w, c, 6, 0)
		l.see(r, &w, other, 2, 0)
		return l
	}
	good, bad := lead(0, 1, 1), lead(3, 0.2, 0.3)
	ev := bad.evidence(r)
	if ev[evUnexplained] != 3 || ev[evPrompt] != float64(float32(0.2)) || ev[evFocus] != float64(float32(0.3)) {
		t.Errorf("evidence %v does not carry the first action's unexplained words, prompt score and app focus", ev)
	}
	if pg, pb := probability(&w, good.evidence(r)), probability(&w, bad.evidence(r)); pg <= pb {
		t.Errorf("probability %.3f for an action the request explains, %.3f for one it does not; want the first higher", pg, pb)
	}
}
