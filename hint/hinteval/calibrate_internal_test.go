package hinteval

import (
	"math"
	"testing"

	"github.com/toolhint/toolhint/hint"
)

// TestCalibrate: on outcomes whose first piece of evidence (the score) predicts whether the
// first action is right, the fitted probability rises with the score, and the threshold
// it sets keeps the observations above it right at least the precision asked for.
func TestCalibrate(t *testing.T) {
	n := len(hint.CalibrationNames()) - 1
	var obs []observation
	for i := 0; i < 400; i++ {
		score := float64(i%20) / 2 // 0 … 9.5
		ev := make([]float64, n)
		ev[0] = score
		ev[1] = float64(i % 3) // noise
		// Right from score 6 up, and one in four below it.
		right := score >= 6 || i%4 == 0
		obs = append(obs, observation{ev: ev, right: right, weight: 1})
	}
	w := calibrate(hint.NeutralWeights(), obs, 0.95)
	names := hint.CalibrationNames()
	p := func(score float64) float64 {
		z, _ := w.Get(names[0])
		c, _ := w.Get(names[1])
		return 1 / (1 + math.Exp(-(z + c*score)))
	}
	if !(p(9) > p(6) && p(6) > p(2)) {
		t.Errorf("probability does not rise with the score: %.3f %.3f %.3f", p(2), p(6), p(9))
	}
	at, _ := w.Get("confident_p")
	right, sure := 0, 0
	for _, o := range obs {
		z, _ := w.Get(names[0])
		for k, v := range o.ev {
			c, _ := w.Get(names[k+1])
			z += c * v
		}
		if 1/(1+math.Exp(-z)) >= at {
			sure++
			if o.right {
				right++
			}
		}
	}
	if sure == 0 || float64(right) < 0.95*float64(sure) {
		t.Errorf("threshold %.3f: %d of %d right", at, right, sure)
	}
	if sure < 100 {
		t.Errorf("threshold %.3f is confident on only %d observations; about 160 are sure", at, sure)
	}
	// With nothing to calibrate on, no hint is confident.
	if w := calibrate(hint.NeutralWeights(), nil, 0.95); func() float64 { v, _ := w.Get("confident_p"); return v }() <= 1 {
		t.Error("no observations: a threshold a probability can reach")
	}
}

// TestCaseWeights: each group weighs its Weight (its size without one), shared by its
// cases, and all the weights add up to the number of cases.
func TestCaseWeights(t *testing.T) {
	groups := []Labelled{
		{Cases: make([]Case, 10), Weight: 1},
		{Cases: make([]Case, 30), Weight: 1},
		{Cases: make([]Case, 20)},
	}
	w := caseWeights(groups)
	sum := func(xs []float64) (s float64) {
		for _, x := range xs {
			s += x
		}
		return s
	}
	total := sum(w[0]) + sum(w[1]) + sum(w[2])
	if math.Abs(total-60) > 1e-9 {
		t.Errorf("weights add up to %v, want 60", total)
	}
	// Groups 0 and 1 weigh the same in all; group 2 weighs 20 to their 1 each.
	if math.Abs(sum(w[0])-sum(w[1])) > 1e-9 || math.Abs(sum(w[2])/sum(w[0])-20) > 1e-9 {
		t.Errorf("group totals %v %v %v", sum(w[0]), sum(w[1]), sum(w[2]))
	}
}
