package hinteval_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/hint/hinteval"
)

// TestReplay runs the usage replay on the dev set: no gain passes its ceiling, usage never
// costs the prompts whose expected actions were never used more than 0.01 of
// hit@5, and calls of other apps alone cost held-out apps no more either.
func TestReplay(t *testing.T) {
	if *catalogPath == "" || *evalPath == "" {
		t.Skip("set -catalog/-eval or TOOLHINT_CATALOG/TOOLHINT_EVAL to run the replay")
	}
	ctx := context.Background()
	st := catalogStore(t, *catalogPath)
	cases, err := hinteval.ReadCasesFile(*evalPath)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := hinteval.Replay(ctx, st, cases, hinteval.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Before.Cases != len(cases) || rep.After.Cases != len(cases) {
		t.Errorf("replay scored %d and %d of %d cases", rep.Before.Cases, rep.After.Cases, len(cases))
	}
	// A prompt none of whose expected actions was called cannot gain: priors favour only
	// called actions.
	if rep.NeverUsedAfter.Hit1 > rep.NeverUsedBefore.Hit1+1e-9 {
		t.Errorf("never-used gold: hit@1 %.3f -> %.3f, want no gain", rep.NeverUsedBefore.Hit1, rep.NeverUsedAfter.Hit1)
	}
	if rep.Calls == 0 || rep.NeverUsedBefore.Cases == 0 || rep.NeverUsedBefore.Cases >= rep.Before.Cases {
		t.Errorf("replay recorded %d calls, %d of %d prompts never used: the setting is degenerate", rep.Calls, rep.NeverUsedBefore.Cases, rep.Before.Cases)
	}
	// Priors only favour called actions: only a prompt whose expected action another
	// prompt called can gain.
	if rep.Ceiling <= 0 || rep.Gain() > rep.Ceiling+1e-9 {
		t.Errorf("hit@1 gain %.3f, ceiling %.3f: want a positive ceiling no gain passes", rep.Gain(), rep.Ceiling)
	}
	if g := rep.OtherFolds.Hit1 - rep.Before.Hit1; g > rep.OtherFoldsCeiling+1e-9 {
		t.Errorf("other folds' calls: hit@1 gain %.3f, ceiling %.3f", g, rep.OtherFoldsCeiling)
	}
	if c := rep.NeverUsedChange(); c < -0.01 {
		t.Errorf("hit@5 on never-used gold changed by %.3f, want at least -0.01", c)
	}
	if d := rep.OtherFolds.Hit5 - rep.Before.Hit5; d < -0.01 {
		t.Errorf("other folds' calls change held-out hit@5 by %.3f, want at least -0.01", d)
	}
	if s := rep.CeilingShare(); s < 0 || s > 1+1e-9 {
		t.Errorf("share of the ceiling reached %.3f, want in [0, 1]", s)
	}
	var buf bytes.Buffer
	rep.Print(&buf)
	if !strings.HasPrefix(buf.String(), "replay: hit@1 gain ") || strings.Count(buf.String(), "\n") != 1 {
		t.Errorf("Print wrote %q, want one line starting \"replay: hit@1 gain \"", buf.String())
	}
	t.Log(strings.TrimSpace(buf.String()))
}
