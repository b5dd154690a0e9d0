package hint

import "math"

// Calibration: a score is not a probability. A hint's confidence is the probability that
// its first action is right, a logistic function of what the ranking knows about its lead
// (the top score, its margin over the next action of the same step, whether its app is
// named, whether only recall found it, whether BM25F agrees it is the best, how many steps
// the prompt asks for, whether it has the capability and the verb the clause asks for, how
// many of its slug words the request leaves unexplained, its BM25F score for the whole
// prompt, how much of the prompt its app covers). The coefficients are weights (calib_*), fitted by hinteval on
// held-out folds; the hint says "You MUST call" from the probability confident_p, a
// threshold chosen for precision on held-out folds.

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

// probability returns the calibrated probability that the first listed action is right.
func probability(w *Weights, ev [numEvidence]float64) float64 {
	z := w.v[paramCalibBias]
	for k, v := range ev {
		z += w.v[paramCalibBias+1+k] * v
	}
	return 1 / (1 + math.Exp(-z))
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
