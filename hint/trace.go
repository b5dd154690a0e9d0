package hint

import (
	"context"
	"fmt"
	"slices"

	"github.com/toolhint/toolhint/cache"
)

// Trace is the part of a Build that does not depend on the weights: the analysed prompt and
// every candidate action with its features. Rank replays the ranking with other weights in a
// fraction of a Build's time, which is what fitting weights needs (see hinteval.Fit). A
// Trace is immutable and safe for concurrent use; it holds the store's metadata for the
// request's apps.
type Trace struct {
	b *Builder
	r *ranking // nil when no action can match
}

// Trace analyses req as Build does, up to the weights. The errors are Build's; a failed
// store read is always an error (a trace never degrades).
func (b *Builder) Trace(ctx context.Context, st Store, req Request) (*Trace, error) {
	if err := b.check(ctx, st, req); err != nil {
		return nil, err
	}
	b = b.over(ctx, st)
	prompt := req.Prompt
	if len(prompt) > MaxPromptLen {
		prompt = prompt[:MaxPromptLen]
	}
	apps, enabled, err := b.resolveApps(ctx, st, req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStoreUnavailable, err)
	}
	t := &Trace{b: b}
	if len(apps) == 0 {
		return t, nil
	}
	metas, err := storeRead(func() ([]cache.ActionMeta, error) { return st.ActionMeta(ctx, apps) })
	if err != nil {
		return nil, fmt.Errorf("%w: action metadata: %w", ErrStoreUnavailable, err)
	}
	metas = filterEnabled(metas, enabled)
	// A scratch of its own: the trace keeps pointing into it.
	pa := newAnalysis(prompt, apps)
	src, use, _ := b.sources(ctx, st, req, pa, metas)
	t.r = b.rankPrepare(req, pa, metas, &scratch{}, src, use)
	return t, nil
}

// Rank returns the actions Build would list with weights w, best first, and whether the
// hint would be confident.
func (t *Trace) Rank(w Weights) (actions []string, confident bool) {
	r := t.Ranked(w)
	return r.Actions, r.Confident
}

// Ranked is what a Trace ranked with some weights: the actions listed, the calibrated
// probability that the first is right and whether the hint is confident, and the evidence
// the probability is computed from (one value per calib_* weight after calib_bias, in
// the order of CalibrationNames; nil when the request names the action by slug or nothing
// is listed). It is plain data.
type Ranked struct {
	Actions     []string
	Confident   bool
	Probability float64
	Evidence    []float64
}

// CalibrationNames lists the weights of the calibrated probability: the bias, then one per
// value of Ranked.Evidence.
func CalibrationNames() []string {
	return append([]string(nil), weightNames[paramCalibBias:paramCalibBias+1+numEvidence]...)
}

// Ranked ranks the trace with weights w (see Rank), with the hint's calibration.
func (t *Trace) Ranked(w Weights) Ranked {
	var out Ranked
	if t.r == nil {
		return out
	}
	ld := newLead()
	t.b.list(t.r, &w, func(c *cand, score float64, ci int) {
		ld.see(t.r, &w, c, score, ci)
		out.Actions = append(out.Actions, t.r.metas[c.i].Action)
	})
	out.Confident, out.Probability = ld.confident(t.r, &w), ld.probability(t.r, &w)
	if ld.n > 0 && len(t.r.explicit) == 0 {
		ev := ld.evidence(t.r)
		out.Evidence = ev[:]
	}
	return out
}

// Considered returns every action the trace can list, whatever the weights: those the
// prompt names by slug, each clause's candidates and the whole prompt's recall list that
// fills a hint, each once, sorted. Rank lists only
// actions of this set, so the share of expected actions it holds bounds what any weights
// can reach.
func (t *Trace) Considered() []string {
	if t.r == nil {
		return nil
	}
	var out []string
	for _, i := range t.r.explicit {
		out = append(out, t.r.metas[i].Action)
	}
	for _, l := range t.r.lists {
		for k := range l {
			out = append(out, t.r.metas[l[k].i].Action)
		}
	}
	for _, i := range t.r.recall {
		out = append(out, t.r.metas[i].Action)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Candidate is one action a clause of a traced prompt considers, with its features: one
// value per weight of FeatureNames, in that order. It is plain data.
type Candidate struct {
	Action string
	// Named reports whether the clause names the action's app: such actions are listed
	// before the others whatever their scores.
	Named    bool
	Features []float64
}

// FeatureNames lists the weights that multiply features, in the order of
// Candidate.Features; the other weights of WeightNames are selection parameters.
func FeatureNames() []string { return append([]string(nil), weightNames[:numFeatures]...) }

// Candidates returns the candidate actions of each clause of the prompt (the steps it
// implies after the stated ones), in no particular order. The slices are new; the caller
// may keep them.
func (t *Trace) Candidates() [][]Candidate {
	if t.r == nil {
		return nil
	}
	out := make([][]Candidate, len(t.r.lists))
	for ci, l := range t.r.lists {
		out[ci] = make([]Candidate, len(l))
		for k := range l {
			c := &l[k]
			f := make([]float64, numFeatures)
			for i, v := range c.f {
				f[i] = float64(v)
			}
			out[ci][k] = Candidate{Action: t.r.metas[c.i].Action, Named: c.named, Features: f}
		}
	}
	return out
}
