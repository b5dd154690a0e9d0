package hint

import "math"

// Calibrate, the stage after order. A score is not a probability. A hint's confidence is
// the probability that its first action is right, a logistic function of what the ranking
// knows about its lead (the top score, its margin over the next action of the same step,
// whether its app is named, whether only recall found it, whether BM25F agrees it is the
// best, how many steps the prompt asks for, whether it has the capability and the verb the
// clause asks for, how many of its slug words the request leaves unexplained, its BM25F
// score for the whole prompt, how much of the prompt its app covers). The coefficients are
// weights (calib_*), fitted by hinteval on held-out folds; the hint says "You MUST call"
// from the probability confident_p, a threshold chosen for precision on held-out folds.
//
// It takes the actions order lists, one at a time, into a lead (lead.see, from list and
// fill in order.go), and hands back the probability and whether the hint is confident:
// list reads it to decide whether to fill a hint from recall, fill writes it into the
// Result, and render (render.go) chooses the hint's words by it.

// Evidence of a hint's lead, the inputs of its calibrated probability, in the order of the
// calib_* weights after calib_bias.
const (
	evScore       = iota // the first action's score
	evMargin             // its lead over the next action of its step (at most maxMargin)
	evNamed              // its app is one the prompt names
	evRecall             // only recall found it (it failed the clause's gate)
	evAgree              // BM25F ranks it first for its clause too
	evSteps              // the steps the prompt asks for, beyond the first
	evCapability         // it has a specific capability the clause asks for
	evVerb               // its main verb is the clause's
	evUnexplained        // its slug words the clause does not explain
	evPrompt             // its BM25F score for the whole prompt, relative to the best
	evFocus              // how much of the whole prompt its app covers, relative to the best app
	numEvidence
)

// repeatP is what an exact repeat of successful calls says: when the request repeats the
// earlier successful calls of its first action (usage_repeat's feature at least exactAt),
// the probability that the action is right is at least repeatP times how surely it repeats
// them. One successful call from the very same words gives 0.9, which makes the hint
// confident; a sibling the same words also led to, or failures, lower it.
const repeatP = 0.9

// maxMargin caps the margin evidence.
const maxMargin = 10

// lead follows, as actions are listed, what the first one says of the hint's confidence:
// its earned score, step, app and evidence, and the earned score of the next action of its
// step.
type lead struct {
	first, second            float64
	step, n                  int
	app                      string
	named, recallOnly, agree bool
	capHit, verb             bool
	// alone: no other action of its app is a candidate of its clause (see confident).
	alone bool
	// The first action's unexplained slug words, whole-prompt BM25F and app focus.
	unexplained, prompt, focus float64
	// repeat is how surely the request repeats earlier successful calls of the first
	// action (usage_repeat's feature).
	repeat float64
}

func newLead() lead { return lead{second: math.Inf(-1), step: -1} }

// see takes the next listed action.
func (l *lead) see(r *ranking, w *Weights, c *cand, score float64, ci int) {
	// The evidence is lexical: the calibration was fitted without usage, whose own say is
	// the floor of an exact repeat (see probability).
	lex := earned(c, w, score)
	switch {
	case l.n == 0:
		l.first, l.step, l.app = lex, r.step(ci), r.metas[c.i].App
		l.named, l.recallOnly, l.agree = c.named, c.recallOnly, c.f[featBM25FTop] == 1
		l.capHit, l.verb = c.capHit, c.f[featVerbSame] == 1
		l.unexplained, l.prompt, l.focus = float64(c.f[featUnexplained]), float64(c.f[featPromptBM25F]), float64(c.f[featAppFocus])
		l.repeat = float64(c.f[featRepeat])
		l.alone = r.alone(c.i, ci)
	case l.second == math.Inf(-1) && r.step(ci) == l.step:
		l.second = lex
	}
	l.n++
}

// evidence returns what the lead says, for probability.
func (l *lead) evidence(r *ranking) [numEvidence]float64 {
	var ev [numEvidence]float64
	ev[evScore] = l.first
	// A lone candidate leads nothing: its margin is over a score of zero.
	second := 0.0
	if !math.IsInf(l.second, -1) {
		second = l.second
	}
	ev[evMargin] = min(max(l.first-second, 0), maxMargin)
	if l.named {
		ev[evNamed] = 1
	}
	if l.recallOnly {
		ev[evRecall] = 1
	}
	if l.agree {
		ev[evAgree] = 1
	}
	ev[evSteps] = float64(len(r.clauses) - r.lookups - 1)
	if l.capHit {
		ev[evCapability] = 1
	}
	if l.verb {
		ev[evVerb] = 1
	}
	ev[evUnexplained], ev[evPrompt], ev[evFocus] = l.unexplained, l.prompt, l.focus
	return ev
}

// probability returns the calibrated probability that the first listed action is right.
func probability(w *Weights, ev [numEvidence]float64) float64 {
	z := w.v[paramCalibBias]
	for k, v := range ev {
		z += w.v[paramCalibBias+1+k] * v
	}
	return 1 / (1 + math.Exp(-z))
}

// probability returns the calibrated probability that the first listed action is right:
// 1 when the request names it by slug, 0 when nothing was listed.
func (l *lead) probability(r *ranking, w *Weights) float64 {
	switch {
	case l.n == 0:
		return 0
	case len(r.explicit) > 0:
		return 1
	}
	p := probability(w, l.evidence(r))
	if l.repeat >= exactAt {
		p = max(p, repeatP*l.repeat)
	}
	return p
}

// confident reports whether the listed actions earn the strong directive: the request names
// the action by slug, or the probability that the first is right reaches confident_p, no
// action passed the gate only as a guess, the first action's app is one the prompt names
// when it names any, and it is not alone (below) unless the request repeats its earlier
// successful calls exactly.
//
// A first action that is the only candidate of its app won on what its app is, not on
// which of the app's actions the request wants. That is every hint in a catalogue of one
// action per app (a host's own tools, many public benchmarks), and few over Composio's apps,
// whose requests the probability is calibrated on. There its evidence reads much surer
// than it is: the app sharing most words with a request leads the others by far, right or
// wrong (on a public benchmark of that shape, the directive was right three times in
// four). The probability is still reported; the hint does not claim it.
func (l *lead) confident(r *ranking, w *Weights) bool {
	switch {
	case l.n == 0:
		return false
	case len(r.explicit) > 0:
		return true
	}
	if l.alone && l.repeat < exactAt {
		return false
	}
	return !r.relaxed && l.probability(r, w) >= w.v[paramConfidentP] && !r.namesOtherApp(l.app)
}

// alone reports whether action i is the only action of its app among clause ci's
// candidates (an action listed from the whole prompt's ranking, ci 0, is read against the
// first clause's).
func (r *ranking) alone(i int32, ci int) bool {
	if ci >= len(r.lists) {
		return false
	}
	app := r.metas[i].App
	for k := range r.lists[ci] {
		if j := r.lists[ci][k].i; j != i && r.metas[j].App == app {
			return false
		}
	}
	return true
}
