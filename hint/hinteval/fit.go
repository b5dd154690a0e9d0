package hinteval

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/toolhint/toolhint/hint"
)

// FitOptions configure Fit. It is plain data.
type FitOptions struct {
	// Start is where the search begins. Optional. Nil means hint.NeutralWeights().
	Start *hint.Weights
	// Config is the Builder configuration the weights are fitted for; its Weights field is
	// ignored. Optional.
	Config hint.Config
	// Passes bounds the rounds over all weights. Optional. Defaults to 4.
	Passes int
	// Freeze names weights the fit leaves at their starting value (for ablations: start a
	// source's weights at zero and freeze them to measure what it adds). Optional.
	Freeze []string
	// Precision is the share of training cases with a confident hint whose top action must
	// be right; the confidence threshold and margin are those that make the most hints
	// confident while reaching it. Optional. Defaults to 0.97.
	Precision float64
}

// FitReport says what a fit did. It is plain data.
type FitReport struct {
	Cases     int     `json:"cases"`
	Objective float64 `json:"objective"` // on the training cases, with the fitted weights
	Start     float64 `json:"start"`     // the same with the starting weights
	Passes    int     `json:"passes"`
}

// Fit fits the ranking's weights to labelled cases by coordinate ascent: each weight in turn
// takes the value, among a few steps around its current one, that most improves the
// objective (hit@5, plus the MRR and a quarter of hit@all, minus a little for every action
// listed beyond six on average); a step must gain at least a quarter of a case to be taken.
// Rounds repeat until none improves. The confidence threshold and margin are then set so
// that the most training cases get a confident hint while those hints are right at least
// Precision of the time. The prompts are analysed once (hint.Trace); each try only re-ranks.
func Fit(ctx context.Context, st Store, cases []Case, opt FitOptions) (hint.Weights, FitReport, error) {
	w := hint.NeutralWeights()
	if opt.Start != nil {
		w = *opt.Start
	}
	passes := opt.Passes
	if passes <= 0 {
		passes = 4
	}
	precision := opt.Precision
	if precision <= 0 {
		precision = 0.97
	}
	cfg := opt.Config
	cfg.Weights = &w
	b := hint.New(cfg)
	traces := make([]*hint.Trace, len(cases))
	for i, c := range cases {
		t, err := b.Trace(ctx, st, request(c))
		if err != nil {
			return w, FitReport{}, fmt.Errorf("hinteval: case %s: %w", c.ID, err)
		}
		traces[i] = t
	}
	f := &fitter{cases: cases, traces: traces}
	rep := FitReport{Cases: len(cases)}
	best := f.objective(w)
	rep.Start = best
	minGain := 0.25 / math.Max(1, float64(len(cases)))
	names := hint.WeightNames()
	for pass := 0; pass < passes; pass++ {
		if err := ctx.Err(); err != nil {
			return w, rep, fmt.Errorf("hinteval: %w", err)
		}
		improved := false
		for _, name := range names {
			if name == "confident_at" || name == "confident_margin" || slices.Contains(opt.Freeze, name) {
				continue
			}
			cur, _ := w.Get(name)
			bestV, bestObj := cur, best
			for _, v := range steps(name, cur) {
				if obj := f.objective(w.With(name, v)); obj > bestObj+minGain {
					bestV, bestObj = v, obj
				}
			}
			if bestV != cur {
				w, best, improved = w.With(name, bestV), bestObj, true
			}
		}
		rep.Passes = pass + 1
		if !improved {
			break
		}
	}
	rep.Objective = best
	at, margin := f.threshold(w, precision)
	w = w.With("confident_at", at).With("confident_margin", margin)
	return w, rep, nil
}

// FitFolds is a CVOptions.Fit that fits weights on each fold's training cases with opt.
func FitFolds(st Store, opt FitOptions) func(ctx context.Context, train []Case) (Options, error) {
	return func(ctx context.Context, train []Case) (Options, error) {
		w, _, err := Fit(ctx, st, train, opt)
		if err != nil {
			return Options{}, err
		}
		cfg := opt.Config
		cfg.Weights = &w
		return Options{Builder: hint.New(cfg)}, nil
	}
}

func request(c Case) hint.Request {
	return hint.Request{AgentID: 1, Prompt: c.Prompt, Apps: c.Apps, RecipeMode: c.Mode == "recipe"}
}

// steps returns the values a weight is tried at around its current value.
func steps(name string, cur float64) []float64 {
	var ds []float64
	switch name {
	case "keep_ratio":
		ds = []float64{-0.2, -0.1, -0.05, 0.05, 0.1, 0.2}
	case "min_score":
		ds = []float64{-0.3, -0.1, 0.1, 0.3}
	default:
		ds = []float64{-1, -0.4, -0.15, -0.05, 0.05, 0.15, 0.4, 1}
	}
	out := make([]float64, 0, len(ds)+1)
	for _, d := range ds {
		v := math.Round((cur+d)*1000) / 1000
		if name == "keep_ratio" && (v < minKeepRatio || v > 1) {
			continue
		}
		out = append(out, v)
	}
	if cur != 0 && name != "keep_ratio" && name != "min_score" {
		out = append(out, 0)
	}
	return out
}

// minKeepRatio is the least keep_ratio a fit may choose: listing actions that score below a
// third of the best one lengthens hints more than it helps the model.
const minKeepRatio = 0.35

type fitter struct {
	cases  []Case
	traces []*hint.Trace
}

// objective scores weights on the cases: hit@5 + MRR + hit@all/4, minus 0.01 per action
// listed beyond six on average.
func (f *fitter) objective(w hint.Weights) float64 {
	n := len(f.cases)
	if n == 0 {
		return 0
	}
	workers := min(runtime.GOMAXPROCS(0), n)
	sums := make([][4]float64, workers)
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < n; i += workers {
				listed, _ := f.traces[i].Rank(w)
				h5, ha, rr := caseScore(ranks(f.cases[i].Expect, listed))
				sums[g][0] += h5
				sums[g][1] += rr
				sums[g][2] += ha
				sums[g][3] += float64(len(listed))
			}
		}(g)
	}
	wg.Wait()
	var t [4]float64
	for _, s := range sums {
		for k := range t {
			t[k] += s[k]
		}
	}
	nf := float64(n)
	return t[0]/nf + t[1]/nf + 0.25*t[2]/nf - 0.01*math.Max(0, t[3]/nf-6)
}

// caseScore gives one case's hit@5 and hit@all (0 or 1) and its reciprocal rank.
func caseScore(r []int) (hit5, hitAll, rr float64) {
	hit5, hitAll = 1, 1
	for _, x := range r {
		if x == 0 {
			hit5, hitAll = 0, 0
			continue
		}
		if x > 5 {
			hit5 = 0
		}
		rr += 1 / float64(x)
	}
	return hit5, hitAll, rr / float64(max(1, len(r)))
}

// threshold returns the confidence threshold and margin that make the most cases' hints
// confident while the confident ones (at least five) have the right top action at least
// precision of the time; a threshold above every score when none does.
func (f *fitter) threshold(w hint.Weights, precision float64) (at, margin float64) {
	at, margin = 1e9, 0
	best := 0
	for t := 2.0; t <= 12; t += 0.5 {
		for m := 0.0; m <= 4; m += 0.25 {
			w := w.With("confident_at", t).With("confident_margin", m)
			right, sure := 0, 0
			for i, tr := range f.traces {
				listed, conf := tr.Rank(w)
				if !conf {
					continue
				}
				sure++
				if slices.Contains(ranks(f.cases[i].Expect, listed), 1) {
					right++
				}
			}
			if sure >= 5 && sure > best && float64(right) >= precision*float64(sure) {
				at, margin, best = t, m, sure
			}
		}
	}
	return at, margin
}
