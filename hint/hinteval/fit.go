package hinteval

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/toolhint/toolhint/hint"
)

// FitOptions configure Fit. It is plain data but for WorkspaceOf.
type FitOptions struct {
	// Start is where the search begins. Optional. Nil means hint.NeutralWeights().
	Start *hint.Weights
	// Config is the Builder configuration the weights are fitted for; its Weights field is
	// ignored. Optional.
	Config hint.Config
	// Passes bounds the rounds over all weights. Optional. Defaults to 4.
	Passes int
	// NoPairwise skips the first stage of the fit (see Fit). Optional.
	NoPairwise bool
	// Freeze names weights the fit leaves at their starting value (for ablations: start a
	// source's weights at zero and freeze them to measure what it adds). Optional.
	Freeze []string
	// Precision is the share of held-out cases with a confident hint whose top action must
	// be right; the confidence threshold (confident_p) is the lowest that reaches it.
	// Optional. Defaults to 0.95.
	Precision float64
	// CalibrationFolds is how many folds the calibration of the hint's probability holds
	// out: for each, the ranking is fitted on the others and the fold's outcomes are what
	// the probability and its threshold are fitted on (k more fits). Below 2, the training
	// cases calibrate themselves (no extra fit; for nested uses such as CrossValidate).
	// Optional.
	CalibrationFolds int
	// WorkspaceOf, when set, gives each case's request a workspace (for usage priors,
	// Config.Usage). Optional.
	WorkspaceOf func(Case) string
	// AboveBaseline is what each unit of hit@5 by which a group falls below a plain BM25's
	// on the same cases costs the objective (see Fit): weights that do well on average
	// but lose to the baseline on one catalogue are worth less. Optional: 0, no such cost.
	AboveBaseline float64
}

// FitReport says what a fit did. It is plain data.
type FitReport struct {
	Cases     int     `json:"cases"`
	Objective float64 `json:"objective"` // on the training cases, with the fitted weights
	Start     float64 `json:"start"`     // the same with the starting weights
	Passes    int     `json:"passes"`
}

// Fit fits the ranking's weights to labelled cases in two stages. First, pairwise: for every
// expected action that is a candidate, the feature weights are moved (by gradient descent
// on a logistic loss, with a penalty for straying from the start) so that it scores above
// the other candidates of its clause that score highest. Then coordinate ascent: each weight
// in turn
// takes the value, among a few steps around its current one, that most improves the
// objective (hit@5, plus the MRR and a quarter of hit@all, minus a little for every action
// listed beyond six on average, minus opt.AboveBaseline for each unit of hit@5 by which a
// group falls below a plain BM25); a step must gain at least a quarter of a case to be taken.
// Rounds repeat until none improves. The confidence threshold and margin are then set so
// that the most training cases get a confident hint while those hints are right at least
// Precision of the time. The prompts are analysed once (hint.Trace); each try only re-ranks.
func Fit(ctx context.Context, st Store, cases []Case, opt FitOptions) (hint.Weights, FitReport, error) {
	return FitSets(ctx, []Labelled{{Store: st, Cases: cases}}, opt)
}

// Labelled is a group of labelled cases and the store their catalogue is in: one set of
// several that FitSets fits together.
type Labelled struct {
	Store Store
	Cases []Case
	// Weight is the group's share of the objective relative to the others'. Optional:
	// zero means its number of cases (every case weighs the same).
	Weight float64
	// Calibrate marks the groups the hint's probability is calibrated on (requests like
	// those the host will see). Optional: when no group is marked, all are used.
	Calibrate bool
}

// FitSets is Fit over several groups of cases, each on its own catalogue: the ranking fitted
// across catalogues. Each group weighs in the objective (and the pairwise stage) by its
// Weight.
func FitSets(ctx context.Context, groups []Labelled, opt FitOptions) (hint.Weights, FitReport, error) {
	f, err := newFitter(ctx, groups, opt)
	if err != nil {
		return hint.Weights{}, FitReport{}, err
	}
	w, rep, err := f.fit(ctx, opt)
	if err != nil {
		return w, rep, err
	}
	// Calibration: outcomes of held-out folds, or of the training cases themselves, of the
	// groups marked for it.
	calibrating := f.calibrating(groups)
	var obs []observation
	if k := opt.CalibrationFolds; k > 1 {
		folds := f.folds(groups, k)
		for fold := 0; fold < k; fold++ {
			train := f.subset(func(i int) bool { return folds[i] != fold })
			held := f.subset(func(i int) bool { return folds[i] == fold && calibrating[i] })
			fw, _, err := train.fit(ctx, opt)
			if err != nil {
				return w, rep, err
			}
			obs = append(obs, held.observe(fw)...)
		}
	} else {
		obs = f.subset(func(i int) bool { return calibrating[i] }).observe(w)
	}
	w = calibrate(w, obs, opt.precision())
	return w, rep, nil
}

func (opt FitOptions) precision() float64 {
	if opt.Precision <= 0 {
		return 0.95
	}
	return opt.Precision
}

// newFitter traces every case of every group with the starting weights.
func newFitter(ctx context.Context, groups []Labelled, opt FitOptions) (*fitter, error) {
	w := hint.NeutralWeights()
	if opt.Start != nil {
		w = *opt.Start
	}
	cfg := opt.Config
	cfg.Weights = &w
	b := hint.New(cfg)
	f := &fitter{start: w, floor: opt.AboveBaseline, groups: len(groups)}
	weights := caseWeights(groups)
	for gi, g := range groups {
		var bm *bm25
		if f.floor > 0 {
			var err error
			if bm, err = newBM25(ctx, g.Store); err != nil {
				return nil, err
			}
		}
		for ci, c := range g.Cases {
			base := 0.0
			if bm != nil {
				base, _, _ = caseScore(ranks(c.Expect, bm.rank(c.Prompt, c.Apps, baselineDepth)))
			}
			f.group = append(f.group, gi)
			f.base = append(f.base, base)
			req := request(c, opt.WorkspaceOf)
			t, err := b.Trace(ctx, g.Store, req)
			if err != nil {
				return nil, fmt.Errorf("hinteval: case %s: %w", c.ID, err)
			}
			f.cases = append(f.cases, c)
			f.traces = append(f.traces, t)
			f.weight = append(f.weight, weights[gi][ci])
		}
	}
	return f, nil
}

// folds gives each case of f (in order) one of k folds, app-grouped within each group.
func (f *fitter) folds(groups []Labelled, k int) []int {
	var out []int
	for _, g := range groups {
		_, of := AppFolds(g.Cases, k)
		out = append(out, of...)
	}
	return out
}

// calibrating reports, per case of f, whether its group is one to calibrate on.
func (f *fitter) calibrating(groups []Labelled) []bool {
	any := slices.ContainsFunc(groups, func(g Labelled) bool { return g.Calibrate })
	var out []bool
	for _, g := range groups {
		for range g.Cases {
			out = append(out, g.Calibrate || !any)
		}
	}
	return out
}

// subset returns the fitter over the cases keep selects.
func (f *fitter) subset(keep func(i int) bool) *fitter {
	s := &fitter{start: f.start, floor: f.floor, groups: f.groups}
	for i := range f.cases {
		if keep(i) {
			s.group = append(s.group, f.group[i])
			s.base = append(s.base, f.base[i])
			s.cases = append(s.cases, f.cases[i])
			s.traces = append(s.traces, f.traces[i])
			s.weight = append(s.weight, f.weight[i])
		}
	}
	return s
}

// fit fits the ranking's weights to f's cases: the pairwise stage, then coordinate ascent
// (see Fit). The calibration weights are left as they start.
func (f *fitter) fit(ctx context.Context, opt FitOptions) (hint.Weights, FitReport, error) {
	w := f.start
	passes := opt.Passes
	if passes <= 0 {
		passes = 4
	}
	rep := FitReport{Cases: len(f.cases)}
	rep.Start = f.objective(w)
	best := rep.Start
	if !opt.NoPairwise {
		w = f.pairwise(w, opt.Freeze)
		best = f.objective(w)
	}
	minGain := 0.25 / math.Max(1, float64(len(f.cases)))
	calib := hint.CalibrationNames()
	var names []string
	for _, name := range hint.WeightNames() {
		if name != "confident_p" && !slices.Contains(calib, name) && !slices.Contains(opt.Freeze, name) {
			names = append(names, name)
		}
	}
	w, best, n, err := ascend(ctx, w, best, names, passes, minGain, func(w hint.Weights) (float64, error) { return f.objective(w), nil })
	rep.Objective, rep.Passes = best, n
	return w, rep, err
}

// ascend is coordinate ascent from w, whose objective is best, over names: each in turn
// takes the value, among its steps, that most improves objective by more than minGain;
// rounds repeat, at most passes, until none improves. It returns the weights, their
// objective and the rounds run.
func ascend(ctx context.Context, w hint.Weights, best float64, names []string, passes int, minGain float64, objective func(hint.Weights) (float64, error)) (hint.Weights, float64, int, error) {
	for pass := 0; pass < passes; pass++ {
		if err := ctx.Err(); err != nil {
			return w, best, pass, fmt.Errorf("hinteval: %w", err)
		}
		improved := false
		for _, name := range names {
			cur, _ := w.Get(name)
			bestV, bestObj := cur, best
			for _, v := range steps(name, cur) {
				obj, err := objective(w.With(name, v))
				if err != nil {
					return w, best, pass, err
				}
				if obj > bestObj+minGain {
					bestV, bestObj = v, obj
				}
			}
			if bestV != cur {
				w, best, improved = w.With(name, bestV), bestObj, true
			}
		}
		if !improved {
			return w, best, pass + 1, nil
		}
	}
	return w, best, passes, nil
}

// caseWeights gives each case of each group its weight in the objective: a group weighs
// its Weight (its number of cases without one), shared by its cases, and the weights of all
// cases add up to their number.
func caseWeights(groups []Labelled) [][]float64 {
	total, sum := 0, 0.0
	of := func(g Labelled) float64 {
		if g.Weight > 0 {
			return g.Weight
		}
		return float64(len(g.Cases))
	}
	for _, g := range groups {
		total += len(g.Cases)
		sum += of(g)
	}
	out := make([][]float64, len(groups))
	for gi, g := range groups {
		out[gi] = make([]float64, len(g.Cases))
		for i := range out[gi] {
			out[gi][i] = of(g) / float64(len(g.Cases)) * float64(total) / sum
		}
	}
	return out
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

// request is the hint request of a case: agent 1, the case's apps and mode, and the
// workspace workspaceOf gives it, when set.
func request(c Case, workspaceOf func(Case) string) hint.Request {
	req := hint.Request{AgentID: 1, Prompt: c.Prompt, Apps: c.Apps, RecipeMode: c.Mode == "recipe"}
	if workspaceOf != nil {
		req.WorkspaceID = workspaceOf(c)
	}
	return req
}

// steps returns the values a weight is tried at around its current value.
func steps(name string, cur float64) []float64 {
	var ds []float64
	switch name {
	case "keep_ratio", "defer_ratio", "lead_ratio", "fuse_single", "fuse_multi", "fuse_many":
		ds = []float64{-0.2, -0.1, -0.05, 0.05, 0.1, 0.2}
	case "min_score":
		ds = []float64{-0.3, -0.1, 0.1, 0.3}
	default:
		ds = []float64{-1, -0.4, -0.15, -0.05, 0.05, 0.15, 0.4, 1}
	}
	out := make([]float64, 0, len(ds)+1)
	for _, d := range ds {
		v := math.Round((cur+d)*1000) / 1000
		if name == "keep_ratio" && (v < minKeepRatio || v > 1) || (name == "defer_ratio" || name == "lead_ratio") && (v < 0 || v > 1) ||
			strings.HasPrefix(name, "fuse_") && v < 0 {
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
	start  hint.Weights
	cases  []Case
	traces []*hint.Trace
	weight []float64 // each case's weight in the objective and the pairwise loss
	// group is each case's group, of groups; base is each case's hit@5 by the BM25
	// baseline (when floor > 0); floor is FitOptions.AboveBaseline.
	group  []int
	base   []float64
	groups int
	floor  float64
}

// baselineDepth is how many actions the BM25 baseline lists (as Run's default).
const baselineDepth = 15

// objective scores weights on the cases: hit@5 + MRR + hit@all/4, minus 0.01 per action
// listed beyond six on average, minus f.floor times each group's shortfall in hit@5 below
// the BM25 baseline's.
func (f *fitter) objective(w hint.Weights) float64 {
	n := len(f.cases)
	if n == 0 {
		return 0
	}
	workers := min(runtime.GOMAXPROCS(0), n)
	sums := make([][4]float64, workers)
	// Per worker and group: the ranking's hit@5 less the baseline's, and the cases.
	gap := make([][]float64, workers)
	count := make([]int, f.groups)
	for i := range n {
		count[f.group[i]]++
	}
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		gap[g] = make([]float64, f.groups)
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < n; i += workers {
				listed, _ := f.traces[i].Rank(w)
				h5, ha, rr := caseScore(ranks(f.cases[i].Expect, listed))
				cw := f.weight[i]
				sums[g][0] += cw * h5
				sums[g][1] += cw * rr
				sums[g][2] += cw * ha
				sums[g][3] += cw * float64(len(listed))
				gap[g][f.group[i]] += h5 - f.base[i]
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
	obj := t[0]/nf + t[1]/nf + 0.25*t[2]/nf - 0.01*math.Max(0, t[3]/nf-6)
	if f.floor > 0 {
		for gi := range f.groups {
			d := 0.0
			for g := range gap {
				d += gap[g][gi]
			}
			if count[gi] > 0 && d < 0 {
				obj += f.floor * d / float64(count[gi])
			}
		}
	}
	return obj
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

// pairwise fits the feature weights so that each expected candidate outscores its clause's
// strongest wrong candidates: three rounds of choosing those (with the weights so far) and
// 200 steps of gradient descent on the mean logistic loss of the pairs, each case weighing
// the same, plus an L2 pull towards the starting weights.
func (f *fitter) pairwise(w hint.Weights, freeze []string) hint.Weights {
	const (
		rounds    = 3
		steps     = 200
		rate      = 0.05
		pull      = 0.01 // L2 weight towards the start
		negatives = 20   // strongest wrong candidates per expected action
	)
	names := hint.FeatureNames()
	start := make([]float64, len(names))
	frozen := make([]bool, len(names))
	for k, n := range names {
		start[k], _ = w.Get(n)
		frozen[k] = slices.Contains(freeze, n)
	}
	cur := slices.Clone(start)
	dot := func(x []float64) float64 {
		s := 0.0
		for k, v := range x {
			s += v * cur[k]
		}
		return s
	}
	type pair struct {
		d      []float64 // positive minus negative features
		weight float64
	}
	cands := make([][][]hint.Candidate, len(f.traces))
	for i, tr := range f.traces {
		cands[i] = tr.Candidates()
	}
	for round := 0; round < rounds; round++ {
		var pairs []pair
		for i, c := range f.cases {
			var mine []pair
			for _, g := range c.Expect {
				for _, l := range cands[i] {
					pos := -1
					for k := range l {
						if slices.Contains(g, l[k].Action) && (pos < 0 || dot(l[k].Features) > dot(l[pos].Features)) {
							pos = k
						}
					}
					if pos < 0 {
						continue
					}
					var negs []int
					for k := range l {
						// The named app's actions come first whatever their scores: only
						// actions on the same side compete on score.
						if !slices.Contains(g, l[k].Action) && l[k].Named == l[pos].Named {
							negs = append(negs, k)
						}
					}
					slices.SortFunc(negs, func(a, b int) int {
						sa, sb := dot(l[a].Features), dot(l[b].Features)
						switch {
						case sa > sb:
							return -1
						case sa < sb:
							return 1
						}
						return strings.Compare(l[a].Action, l[b].Action)
					})
					if len(negs) > negatives {
						negs = negs[:negatives]
					}
					for _, k := range negs {
						d := make([]float64, len(names))
						for j := range d {
							d[j] = l[pos].Features[j] - l[k].Features[j]
						}
						mine = append(mine, pair{d: d})
					}
				}
			}
			for k := range mine {
				mine[k].weight = f.weight[i] / float64(len(mine))
			}
			pairs = append(pairs, mine...)
		}
		if len(pairs) == 0 {
			break
		}
		grad := make([]float64, len(names))
		for step := 0; step < steps; step++ {
			for k := range grad {
				grad[k] = 2 * pull * (cur[k] - start[k])
			}
			for _, p := range pairs {
				m := dot(p.d)
				// d/dw log(1+exp(-m)) = -sigmoid(-m) * d
				g := -p.weight / (1 + math.Exp(m)) / float64(len(f.cases))
				for k, v := range p.d {
					grad[k] += g * v
				}
			}
			for k := range cur {
				if !frozen[k] {
					cur[k] -= rate * grad[k]
				}
			}
		}
	}
	for k, n := range names {
		w = w.With(n, math.Round(cur[k]*1000)/1000)
	}
	return w
}
