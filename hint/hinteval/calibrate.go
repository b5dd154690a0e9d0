package hinteval

import (
	"cmp"
	"math"
	"slices"

	"github.com/toolhint/toolhint/hint"
)

// observation is one case's outcome for calibration: the evidence of its hint's lead,
// whether its first action was right, and the case's weight.
type observation struct {
	ev     []float64
	right  bool
	weight float64
}

// observe ranks f's cases with w and returns their outcomes (cases whose hint names its
// action by slug, or lists nothing, carry no evidence and are left out).
func (f *fitter) observe(w hint.Weights) []observation {
	var out []observation
	for i, t := range f.traces {
		r := t.Ranked(w)
		if r.Evidence == nil {
			continue
		}
		out = append(out, observation{ev: r.Evidence, right: hitAt1(ranks(f.cases[i].Expect, r.Actions)), weight: f.weight[i]})
	}
	return out
}

// calibrate fits the calib_* weights of w to the observations by weighted logistic
// regression (gradient descent on the mean log loss, a little L2 on the coefficients), then
// sets confident_p to the lowest probability from which the observations' weighted
// precision is at least precision (with at least minConfident of them above it); above
// every probability when none is.
func calibrate(w hint.Weights, obs []observation, precision float64) hint.Weights {
	const (
		iterations   = 3000
		rate         = 0.5
		l2           = 1e-3
		minConfident = 10
	)
	names := hint.CalibrationNames()
	if len(obs) == 0 {
		return w.With("confident_p", 1.01)
	}
	// Standardise the evidence so one rate suits every coefficient.
	n := len(names) - 1
	mean, sd := make([]float64, n), make([]float64, n)
	for _, o := range obs {
		for k, v := range o.ev {
			mean[k] += v / float64(len(obs))
		}
	}
	for _, o := range obs {
		for k, v := range o.ev {
			sd[k] += (v - mean[k]) * (v - mean[k]) / float64(len(obs))
		}
	}
	for k := range sd {
		sd[k] = math.Max(math.Sqrt(sd[k]), 1e-6)
	}
	total := 0.0
	for _, o := range obs {
		total += o.weight
	}
	beta := make([]float64, n+1) // bias, then standardised coefficients
	grad := make([]float64, n+1)
	for it := 0; it < iterations; it++ {
		clear(grad)
		for _, o := range obs {
			z := beta[0]
			for k, v := range o.ev {
				z += beta[k+1] * (v - mean[k]) / sd[k]
			}
			p := 1 / (1 + math.Exp(-z))
			y := 0.0
			if o.right {
				y = 1
			}
			g := (p - y) * o.weight / total
			grad[0] += g
			for k, v := range o.ev {
				grad[k+1] += g * (v - mean[k]) / sd[k]
			}
		}
		for k := range beta {
			if k > 0 {
				grad[k] += l2 * beta[k]
			}
			beta[k] -= rate * grad[k]
		}
	}
	// Back to the evidence's own units.
	bias := beta[0]
	for k := 0; k < n; k++ {
		c := beta[k+1] / sd[k]
		bias -= c * mean[k]
		w = w.With(names[k+1], round4(c))
	}
	w = w.With(names[0], round4(bias))
	// The threshold, on the probabilities the rounded weights give.
	type pr struct {
		p      float64
		right  bool
		weight float64
	}
	ps := make([]pr, len(obs))
	for i, o := range obs {
		z, _ := w.Get(names[0])
		for k, v := range o.ev {
			c, _ := w.Get(names[k+1])
			z += c * v
		}
		ps[i] = pr{1 / (1 + math.Exp(-z)), o.right, o.weight}
	}
	slices.SortFunc(ps, func(a, b pr) int { return cmp.Compare(b.p, a.p) })
	at := 1.01
	right, sure := 0.0, 0.0
	for i, x := range ps {
		sure += x.weight
		if x.right {
			right += x.weight
		}
		// A threshold sits between distinct probabilities.
		if i+1 < len(ps) && ps[i+1].p == x.p {
			continue
		}
		if i+1 >= minConfident && right >= precision*sure {
			at = x.p
		}
	}
	return w.With("confident_p", round4(at))
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
