package hinteval_test

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/hint/hinteval"
)

// TestRepeatCheck runs the repeat check on the dev set and the project's unseen2 set (apps
// no fitted weight has seen) and holds it to the bar: after one successful call from a
// request its hint missed, an expected action leads in at least 80% of the missed
// requests, after three in at least 90%; no workspace's lesson reaches another; unrelated use
// of a sibling breaks at most 2% of right hints; failed calls never promote an action.
func TestRepeatCheck(t *testing.T) {
	if *catalogPath == "" || *evalPath == "" {
		t.Skip("set -catalog/-eval or TOOLHINT_CATALOG/TOOLHINT_EVAL to run the repeat check")
	}
	ctx := context.Background()
	st := catalogStore(t, *catalogPath)
	var total hinteval.RepeatReport
	for _, path := range []string{*evalPath, "testdata/unseen2.jsonl"} {
		cases, err := hinteval.ReadCasesFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := hinteval.RepeatCheck(ctx, st, cases, hinteval.RepeatOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Cases == 0 || rep.Missed == 0 || rep.Right == 0 || rep.Missed+rep.Right != rep.Cases {
			t.Errorf("%s: %+v: the setting is degenerate", path, rep)
		}
		var buf bytes.Buffer
		rep.Print(&buf, path[strings.LastIndexByte(path, '/')+1:])
		t.Log(strings.TrimSpace(buf.String()), "; still missed:", rep.StillMissed)
		total = total.Add(rep)
	}
	if s := total.OneShare(); s < 0.80 {
		t.Errorf("right first after one call in %.3f of missed requests, want at least 0.80", s)
	}
	if s := total.ThreeShare(); s < 0.90 {
		t.Errorf("right first after three calls in %.3f of missed requests, want at least 0.90", s)
	}
	if total.Leaks != 0 {
		t.Errorf("%d requests' hints changed in another workspace, want 0", total.Leaks)
	}
	if s := total.BrokenShare(); s > 0.02 {
		t.Errorf("unrelated use broke %.3f of right hints, want at most 0.02", s)
	}
	if total.FailPromoted != 0 {
		t.Errorf("three failed calls promoted the expected action of %d requests, want 0", total.FailPromoted)
	}
}

// TestRepeatObjective: the bar and the objective read the report's shares, a broken right
// hint costing ten times what a missed request put right gains.
func TestRepeatObjective(t *testing.T) {
	good := hinteval.RepeatReport{Missed: 10, AfterOne: 9, AfterThree: 10, Unrelated: 100}
	for _, tc := range []struct {
		name  string
		r     hinteval.RepeatReport
		meets bool
		obj   float64
	}{
		{"at the bar", good, true, 1.9},
		{"too few after one", with(good, func(r *hinteval.RepeatReport) { r.AfterOne = 7 }), false, 1.7},
		{"too few after three", with(good, func(r *hinteval.RepeatReport) { r.AfterThree = 8 }), false, 1.7},
		{"two broken of 100", with(good, func(r *hinteval.RepeatReport) { r.Broken = 2 }), true, 1.7},
		{"three broken of 100", with(good, func(r *hinteval.RepeatReport) { r.Broken = 3 }), false, 1.6},
		{"a leak", with(good, func(r *hinteval.RepeatReport) { r.Leaks = 1 }), false, 0.9},
		{"failures promote", with(good, func(r *hinteval.RepeatReport) { r.FailPromoted = 1 }), false, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Meets(); got != tc.meets {
				t.Errorf("Meets() = %t, want %t", got, tc.meets)
			}
			if got := tc.r.Objective(); math.Abs(got-tc.obj) > 1e-9 {
				t.Errorf("Objective() = %.4f, want %.4f", got, tc.obj)
			}
		})
	}
}

func with(r hinteval.RepeatReport, f func(*hinteval.RepeatReport)) hinteval.RepeatReport {
	f(&r)
	return r
}

// TestFitRepeat fits the weights of repeats on part of the dev set: the fit never does
// worse than where it starts, its objective is what RepeatCheck reports with the fitted
// weights, and only usage_terms, usage_cover and usage_repeat move.
func TestFitRepeat(t *testing.T) {
	if *catalogPath == "" || *evalPath == "" {
		t.Skip("set -catalog/-eval or TOOLHINT_CATALOG/TOOLHINT_EVAL to run the repeat fit")
	}
	ctx := context.Background()
	st := catalogStore(t, *catalogPath)
	cases, err := hinteval.ReadCasesFile(*evalPath)
	if err != nil {
		t.Fatal(err)
	}
	cases = cases[:min(len(cases), 80)]
	// Start away from the shipped weights, so that the fit has something to do.
	start := hint.DefaultWeights().With("usage_repeat", 1).With("usage_cover", 2)
	w, rep, err := hinteval.FitRepeat(ctx, st, cases, hinteval.RepeatFitOptions{Start: &start, Passes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Objective < rep.Start || rep.Cases == 0 {
		t.Errorf("fit report %+v: want a non-empty fit whose objective is at least its start", rep)
	}
	check, err := hinteval.RepeatCheck(ctx, st, cases, hinteval.RepeatOptions{Config: hint.Config{Weights: &w}})
	if err != nil {
		t.Fatal(err)
	}
	if got := check.Objective(); math.Abs(got-rep.Objective) > 1e-9 {
		t.Errorf("RepeatCheck with the fitted weights scores %.4f, the fit reported %.4f", got, rep.Objective)
	}
	moved := map[string]bool{}
	for _, n := range hint.WeightNames() {
		a, _ := start.Get(n)
		b, _ := w.Get(n)
		if a != b {
			moved[n] = true
		}
	}
	for n := range moved {
		if !slices.Contains([]string{"usage_terms", "usage_cover", "usage_repeat"}, n) {
			t.Errorf("%s moved: want only the weights of repeats fitted", n)
		}
	}
	if len(moved) == 0 {
		t.Errorf("no weight moved from usage_repeat 1, usage_cover 2: %+v", rep)
	}
}
