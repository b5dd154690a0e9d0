package hint_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/hint"
)

// TestShippedWeights: weights.json names every weight, and DefaultWeights is what it says
// (a broken file would otherwise fall back to the neutral weights unnoticed).
func TestShippedWeights(t *testing.T) {
	raw, err := os.ReadFile("weights.json")
	if err != nil {
		t.Fatal(err)
	}
	var w hint.Weights
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatalf("weights.json: %v", err)
	}
	if w != hint.DefaultWeights() {
		t.Error("DefaultWeights differs from weights.json")
	}
	if w == hint.NeutralWeights() {
		t.Error("weights.json holds the neutral weights: it was never fitted")
	}
	for _, n := range hint.WeightNames() {
		if _, ok := w.Get(n); !ok {
			t.Errorf("no weight %q", n)
		}
	}
}

func TestWeightsJSON(t *testing.T) {
	w := hint.NeutralWeights().With("slug", 1.25)
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var back hint.Weights
	if err := json.Unmarshal(b, &back); err != nil || back != w {
		t.Fatalf("round trip: %v, equal %v", err, back == w)
	}
	if v, _ := back.Get("slug"); v != 1.25 {
		t.Errorf("slug = %v, want 1.25", v)
	}
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(map[string]float64){
		"unknown": func(m map[string]float64) { m["nonsense"] = 1 },
		"missing": func(m map[string]float64) { delete(m, "slug") },
	} {
		t.Run(name, func(t *testing.T) {
			c := map[string]float64{}
			for k, v := range m {
				c[k] = v
			}
			edit(c)
			b, _ := json.Marshal(c)
			if err := json.Unmarshal(b, &back); err == nil {
				t.Errorf("accepted %s weights", name)
			}
		})
	}
	if err := json.Unmarshal([]byte(strings.Replace(string(b), `"slug":1.25`, `"slug":"x"`, 1)), &back); err == nil {
		t.Error("accepted a non-number")
	}
	if _, ok := w.Get("nonsense"); ok {
		t.Error("Get found an unknown weight")
	}
	if w.With("nonsense", 3) != w {
		t.Error("With changed the weights for an unknown name")
	}
}
