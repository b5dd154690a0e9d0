package hinteval_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

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
