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
	src, priors, _ := b.sources(ctx, st, req, pa, metas)
	t.r = b.rankPrepare(req, pa, metas, &scratch{}, src, priors)
	return t, nil
}

// Rank returns the actions Build would list with weights w, best first, and whether the
// hint would be confident.
func (t *Trace) Rank(w Weights) (actions []string, confident bool) {
	if t.r == nil {
		return nil, false
	}
	ld := newLead()
	t.b.list(t.r, &w, func(c *cand, score float64, ci int) {
		ld.see(t.r, &w, c, score, ci)
		actions = append(actions, t.r.metas[c.i].Action)
	})
	return actions, ld.confident(t.r, &w)
}

// Considered returns every action the trace can list, whatever the weights: those the
// prompt names by slug and each clause's candidates, each once, sorted. Rank lists only
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
