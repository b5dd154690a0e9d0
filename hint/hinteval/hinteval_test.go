package hinteval_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/hint/hinteval"
)

var (
	catalogPath = flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "catalogue JSONL (default $TOOLHINT_CATALOG)")
	evalPath    = flag.String("eval", os.Getenv("TOOLHINT_EVAL"), "labelled queries JSONL (default $TOOLHINT_EVAL)")
)

// floor is testdata/floor.json: the figures the code must keep reaching on the dev set,
// cross-validated (app-grouped, weights fitted on the other folds with the project's own
// labelled set as extra training cases) and in sample (the shipped weights). It is a
// ratchet: raise it when the code gets better, never lower it to let a change land.
type floor struct {
	CrossValidated, InSample figures
	// MaxGap bounds in-sample hit@5 minus cross-validated hit@5: the overfitting alarm.
	MaxGap float64
}

type figures struct {
	Hit1, Hit5, HitAll, MRR float64
	// HitAt5OverBaseline is the least margin of hit@5 over the BM25 baseline.
	HitAt5OverBaseline float64
	MaxListedMean      float64
	MaxDestructive     float64
}

// projectCases is the project's own labelled set: prompts written for other apps than the
// dev set's, used as extra training cases, never scored by the floor.
const projectCases = "testdata/unseen.jsonl"

func TestSelectionFloor(t *testing.T) {
	if *catalogPath == "" || *evalPath == "" {
		t.Skip("set -catalog/-eval or TOOLHINT_CATALOG/TOOLHINT_EVAL to run the selection benchmark")
	}
	raw, err := os.ReadFile("testdata/floor.json")
	if err != nil {
		t.Fatal(err)
	}
	var f floor
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("floor.json: %v", err)
	}
	ctx := context.Background()
	st := catalogStore(t, *catalogPath)
	cases, err := hinteval.ReadCasesFile(*evalPath)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := hinteval.ReadCasesFile(projectCases)
	if err != nil {
		t.Fatal(err)
	}
	in, err := hinteval.Run(ctx, st, cases, hinteval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cv, err := hinteval.CrossValidate(ctx, st, cases, hinteval.CVOptions{Fit: hinteval.FitFolds(st, hinteval.FitOptions{}), Extra: extra})
	if err != nil {
		t.Fatal(err)
	}
	recall, err := hinteval.CandidateRecall(ctx, st, cases, hinteval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	out.WriteString("cross-validated (app-grouped, 5 folds):\n")
	cv.Print(&out)
	out.WriteString("in sample (shipped weights):\n")
	in.Print(&out)
	recall.Print(&out)
	t.Logf("\n%s", out.String())
	// Weights only order and cut the considered actions: no figure can pass the recall.
	for _, rep := range []hinteval.Report{in, cv.Report} {
		if rep.Overall.HitAll > recall.Overall+1e-9 {
			t.Errorf("hit@all %.3f above the candidate recall %.3f", rep.Overall.HitAll, recall.Overall)
		}
	}
	for _, o := range in.Outcomes {
		if !slices.Contains(o.Ranks, 0) && slices.Contains(recall.Missed, o.Case.ID) {
			t.Errorf("%s: every expected step listed, yet the recall says one was never considered", o.Case.ID)
		}
	}
	checkFigures(t, "cross-validated", cv.Report, f.CrossValidated)
	checkFigures(t, "in-sample", in, f.InSample)
	if gap := in.Overall.Hit5 - cv.Overall.Hit5; gap > f.MaxGap {
		t.Errorf("in-sample hit@5 minus cross-validated = %.3f, floor says at most %.3f", gap, f.MaxGap)
	}
}

func checkFigures(t *testing.T, what string, rep hinteval.Report, f figures) {
	t.Helper()
	o, b := rep.Overall, rep.Baseline
	checks := []struct {
		name      string
		got, want float64
		atMost    bool
	}{
		{"hit@1", o.Hit1, f.Hit1, false},
		{"hit@5", o.Hit5, f.Hit5, false},
		{"hit@all", o.HitAll, f.HitAll, false},
		{"MRR", o.MRR, f.MRR, false},
		{"hit@5 over BM25", o.Hit5 - b.Hit5, f.HitAt5OverBaseline, false},
		{"actions listed (mean)", o.ListedMean, f.MaxListedMean, true},
		{"destructive listed on non-destructive cases", o.Destructive, f.MaxDestructive, true},
	}
	for _, c := range checks {
		if (!c.atMost && c.got < c.want) || (c.atMost && c.got > c.want) {
			bound := "at least"
			if c.atMost {
				bound = "at most"
			}
			t.Errorf("%s %s = %.3f, floor says %s %.3f", what, c.name, c.got, bound, c.want)
		}
	}
}

// TestAppFolds: every case is scored in exactly one fold, folds are balanced, the split does
// not depend on the cases' order, and no training case of a fold expects an action of one
// of its apps.
func TestAppFolds(t *testing.T) {
	var cases []hinteval.Case
	apps := []string{"gmail", "slack", "jira", "notion", "trello", "zoom", "asana", "figma"}
	for i := 0; i < 40; i++ {
		a, b := apps[i%len(apps)], apps[(i*3+1)%len(apps)]
		c := hinteval.Case{ID: fmt.Sprintf("c%02d", i), Apps: []string{a, b}, Expect: [][]string{{strings.ToUpper(a) + "_X"}}}
		if i%5 == 0 {
			c.Expect = append(c.Expect, []string{strings.ToUpper(b) + "_Y"})
		}
		cases = append(cases, c)
	}
	folds, of := hinteval.AppFolds(cases, 4)
	seen := map[string]int{}
	for f, fold := range folds {
		if n := len(fold.Cases); n < 8 || n > 12 {
			t.Errorf("fold %d has %d cases, want about 10", f, n)
		}
		for _, id := range fold.Cases {
			seen[id]++
		}
	}
	for i, c := range cases {
		if seen[c.ID] != 1 {
			t.Errorf("case %s scored %d times", c.ID, seen[c.ID])
		}
		if !slices.Contains(folds[of[i]].Cases, c.ID) {
			t.Errorf("case %s: fold index %d does not list it", c.ID, of[i])
		}
	}
	rev := slices.Clone(cases)
	slices.Reverse(rev)
	folds2, _ := hinteval.AppFolds(rev, 4)
	for f := range folds {
		if !slices.Equal(folds[f].Apps, folds2[f].Apps) {
			t.Errorf("fold %d apps depend on the cases' order: %v vs %v", f, folds[f].Apps, folds2[f].Apps)
		}
	}

	// Cross-validation with a Fit that records what it was given: no training case may
	// touch the held-out fold's apps, and extra cases are used for training only.
	ctx, st := context.Background(), testdataStore(t)
	extra := []hinteval.Case{{ID: "x1", Apps: []string{"gmail"}, Expect: [][]string{{"GMAIL_X"}}}}
	var trained [][]hinteval.Case
	rep, err := hinteval.CrossValidate(ctx, st, cases, hinteval.CVOptions{K: 4, Extra: extra, Fit: func(_ context.Context, train []hinteval.Case) (hinteval.Options, error) {
		trained = append(trained, train)
		return hinteval.Options{}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != len(cases) || len(trained) != 4 {
		t.Fatalf("%d outcomes, %d fits; want %d and 4", len(rep.Outcomes), len(trained), len(cases))
	}
	for f, train := range trained {
		for _, c := range train {
			for _, g := range c.Expect {
				for _, slug := range g {
					for _, app := range rep.Folds[f].Apps {
						if strings.HasPrefix(slug, strings.ToUpper(app)+"_") {
							t.Errorf("fold %d trained on %s, which expects %s of held-out app %s", f, c.ID, slug, app)
						}
					}
				}
			}
		}
	}
}

// TestFitImproves: fitting on a few cases never makes the objective worse, and the fitted
// weights rank the cases at least as well as the start.
func TestFitImproves(t *testing.T) {
	ctx, st := context.Background(), testdataStore(t)
	cases := []hinteval.Case{
		{ID: "a", Prompt: "send a message to #general that lunch is here", Apps: []string{"slack", "gmail"}, Mode: "chatbot", Expect: [][]string{{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"}}},
		{ID: "b", Prompt: "email dana@example.com the notes", Apps: []string{"slack", "gmail"}, Mode: "chatbot", Expect: [][]string{{"GMAIL_SEND_EMAIL"}}},
		{ID: "c", Prompt: "create an event on my calendar for friday", Apps: []string{"googlecalendar", "gmail"}, Mode: "chatbot", Expect: [][]string{{"GOOGLECALENDAR_CREATE_EVENT"}}},
		{ID: "d", Prompt: "upload the report to slack", Apps: []string{"slack", "gmail"}, Mode: "chatbot", Expect: [][]string{{"SLACK_UPLOAD_FILE"}}},
		{ID: "e", Prompt: "list the labels in my gmail", Apps: []string{"slack", "gmail"}, Mode: "chatbot", Expect: [][]string{{"GMAIL_LIST_LABELS"}}},
		{ID: "f", Prompt: "reply to the thread from Dana", Apps: []string{"slack", "gmail"}, Mode: "chatbot", Expect: [][]string{{"GMAIL_REPLY_TO_THREAD"}}},
	}
	// A start where agreeing verbs and matched slug words count against an action.
	start := hint.NeutralWeights().With("verb_same", -1).With("verb_family", -1).With("verb_add_create", -1).With("slug", -1).With("name", -1)
	w, rep, err := hinteval.Fit(ctx, st, cases, hinteval.FitOptions{Start: &start, Passes: 6})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Objective <= rep.Start {
		t.Errorf("objective went from %.3f to %.3f, want higher", rep.Start, rep.Objective)
	}
	before, err := hinteval.Run(ctx, st, cases, hinteval.Options{Builder: hint.New(hint.Config{Weights: &start})})
	if err != nil {
		t.Fatal(err)
	}
	after, err := hinteval.Run(ctx, st, cases, hinteval.Options{Builder: hint.New(hint.Config{Weights: &w})})
	if err != nil {
		t.Fatal(err)
	}
	if after.Overall.MRR <= before.Overall.MRR || after.Overall.Hit1 < before.Overall.Hit1 {
		t.Errorf("fitted weights rank worse: MRR %.3f -> %.3f, hit@1 %.3f -> %.3f", before.Overall.MRR, after.Overall.MRR, before.Overall.Hit1, after.Overall.Hit1)
	}
	b, _ := json.Marshal(w)
	var back hint.Weights
	if err := json.Unmarshal(b, &back); err != nil || back != w {
		t.Errorf("weights do not survive JSON: %v", err)
	}
}

func TestReadCases(t *testing.T) {
	good := `{"id":"a","prompt":"send a message","apps":["slack"],"mode":"chatbot","kind":"named","expect":[["SLACK_X"]],"destructive_intent":false}

{"id":"b","prompt":"x","apps":["gmail"],"mode":"recipe","kind":"recipe","expect":[["A"],["B","C"]]}`
	cs, err := hinteval.ReadCases(strings.NewReader(good))
	if err != nil || len(cs) != 2 || len(cs[1].Expect) != 2 {
		t.Fatalf("ReadCases = %+v, %v", cs, err)
	}
	for name, bad := range map[string]string{
		"not json":  "{",
		"no expect": `{"id":"a","apps":["x"]}`,
		"no apps":   `{"id":"a","expect":[["A"]]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := hinteval.ReadCases(strings.NewReader(bad)); err == nil {
				t.Error("no error")
			}
		})
	}
}

// catalogs holds, by path, each catalogue file the tests load, loaded once: the tests
// only read the stores.
var catalogs sync.Map // path -> func() (*cache.Memory, error)

// importCatalog loads the catalogue at path into a new memory store, the one way.
func importCatalog(ctx context.Context, path string) (*cache.Memory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(ctx, st, bufio.NewReaderSize(f, 1<<20)); err != nil {
		return nil, err
	}
	return st, nil
}

// catalogStore returns a memory store holding the catalogue at path.
func catalogStore(t *testing.T, path string) *cache.Memory {
	t.Helper()
	load, _ := catalogs.LoadOrStore(path, sync.OnceValues(func() (*cache.Memory, error) {
		return importCatalog(context.Background(), path)
	}))
	st, err := load.(func() (*cache.Memory, error))()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// testCatalog is the project's small test catalogue.
const testCatalog = "../../testdata/catalog/actions.jsonl"

// testdataStore is a memory store holding the project's small test catalogue.
func testdataStore(t *testing.T) *cache.Memory { return catalogStore(t, testCatalog) }

// slackSend is a case of the test catalogue whose expected action the prompt's words find.
var slackSend = hinteval.Case{ID: "t1", Prompt: "send a message to #general that lunch is here", Apps: []string{"slack", "gmail"},
	Mode: "chatbot", Kind: "named", Expect: [][]string{{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"}}}

func TestRunOnTestdata(t *testing.T) {
	ctx, st := context.Background(), testdataStore(t)
	cases := []hinteval.Case{
		slackSend,
		{ID: "t2", Prompt: "Read the issue from the trigger.", Apps: []string{"jira", "slack"}, Mode: "recipe", Kind: "recipe",
			Expect: [][]string{{"JIRA_GET_ISSUE"}}},
		{ID: "t3", Prompt: "zzzz qqqq", Apps: []string{"slack"}, Mode: "recipe", Kind: "vague",
			Expect: [][]string{{"SLACK_UPLOAD_FILE"}}},
	}
	rep, err := hinteval.Run(ctx, st, cases, hinteval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != 3 || rep.Overall.Cases != 3 {
		t.Fatalf("outcomes: %d", len(rep.Outcomes))
	}
	if got := rep.Outcomes[0].Ranks; len(got) != 1 || got[0] != 1 {
		t.Errorf("t1 ranks = %v, want [1]", got)
	}
	if got := rep.Outcomes[2].Ranks; got[0] != 0 {
		t.Errorf("t3 ranks = %v, want [0]", got)
	}
	o := rep.Overall
	if o.Hit1 < 2.0/3-1e-9 || o.Hit5 > 2.0/3+1e-9 || o.HitAll != o.Hit5 {
		t.Errorf("overall = %+v, want hit@1 = hit@5 = hit@all = 2/3", o)
	}
	if rep.Splits["mode=recipe"].Cases != 2 || rep.Splits["size=2-8"].Cases != 3 {
		t.Errorf("splits = %+v", rep.Splits)
	}
	var b strings.Builder
	rep.Print(&b)
	if !strings.Contains(b.String(), "overall") || !strings.Contains(b.String(), "kind=recipe") {
		t.Errorf("Print:\n%s", b.String())
	}
}

// TestCandidateRecall: a case whose expected action shares nothing with its prompt is
// missed, and so is one whose second step is destructive though it asks for nothing of the
// kind (the destructive rule holds for recall too); the others are not, and the shares are
// per kind.
func TestCandidateRecall(t *testing.T) {
	ctx, st := context.Background(), testdataStore(t)
	cases := []hinteval.Case{
		slackSend,
		{ID: "t2", Prompt: "run SLACK_UPLOAD_FILE please", Apps: []string{"slack"}, Mode: "chatbot", Kind: "named",
			Expect: [][]string{{"SLACK_UPLOAD_FILE"}}},
		{ID: "t3", Prompt: "zzzz qqqq", Apps: []string{"slack"}, Mode: "chatbot", Kind: "vague",
			Expect: [][]string{{"SLACK_UPLOAD_FILE"}}},
		{ID: "t4", Prompt: "send a message to #general that lunch is here", Apps: []string{"slack", "gmail"}, Mode: "chatbot", Kind: "multi",
			Expect: [][]string{{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"}, {"GMAIL_DELETE_DRAFT"}}},
	}
	rep, err := hinteval.CandidateRecall(ctx, st, cases, hinteval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := hinteval.RecallReport{Cases: 4, Overall: 0.5, Kinds: map[string]float64{"named": 1, "vague": 0, "multi": 0}, Missed: []string{"t3", "t4"}}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("recall (-want +got):\n%s", diff)
	}
	var b strings.Builder
	rep.Print(&b)
	if !strings.HasPrefix(b.String(), "candidate recall") || !strings.Contains(b.String(), "0.500 on 4 cases") || !strings.Contains(b.String(), "vague 0.000") {
		t.Errorf("Print wrote %q", b.String())
	}
}

// projectSets are the project's own labelled sets: unseen.jsonl (also used as extra training
// cases) and unseen2.jsonl (scored only, never trained on).
var projectSets = []string{projectCases, "testdata/unseen2.jsonl"}

// TestProjectSetsWellFormed checks the labels of the project's own sets: unique ids, known
// modes and kinds, non-empty groups, two or more groups for multi-step cases and, with a
// catalogue, that every expected action exists, belongs to an allowed app and is not flagged
// destructive on a case without destructive intent.
func TestProjectSetsWellFormed(t *testing.T) {
	type row struct {
		App         string `json:"app"`
		Action      string `json:"action"`
		Destructive bool   `json:"destructive"`
	}
	var catalog map[string]row
	if *catalogPath != "" {
		raw, err := os.ReadFile(*catalogPath)
		if err != nil {
			t.Fatal(err)
		}
		catalog = map[string]row{}
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var r row
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("catalogue: %v", err)
			}
			catalog[r.Action] = r
		}
	}
	kinds := map[string]bool{"named": true, "implied": true, "vague": true, "multi": true, "recipe": true}
	for _, path := range projectSets {
		t.Run(strings.TrimPrefix(path, "testdata/"), func(t *testing.T) {
			cases, err := hinteval.ReadCasesFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(cases) == 0 {
				t.Fatal("no cases")
			}
			ids := map[string]bool{}
			for _, c := range cases {
				if ids[c.ID] {
					t.Errorf("%s: duplicate id", c.ID)
				}
				ids[c.ID] = true
				if c.Mode != "chatbot" && c.Mode != "recipe" {
					t.Errorf("%s: mode %q", c.ID, c.Mode)
				}
				if !kinds[c.Kind] || (c.Kind == "recipe") != (c.Mode == "recipe") {
					t.Errorf("%s: kind %q with mode %q", c.ID, c.Kind, c.Mode)
				}
				if c.Kind == "multi" && len(c.Expect) < 2 {
					t.Errorf("%s: multi-step case with %d group(s)", c.ID, len(c.Expect))
				}
				for _, g := range c.Expect {
					if len(g) == 0 {
						t.Errorf("%s: empty group", c.ID)
					}
					for _, slug := range g {
						if catalog == nil {
							continue
						}
						r, ok := catalog[slug]
						switch {
						case !ok:
							t.Errorf("%s: %s is not in the catalogue", c.ID, slug)
						case !slices.Contains(c.Apps, strings.ToLower(r.App)):
							t.Errorf("%s: %s belongs to %s, which is not among the case's apps", c.ID, slug, strings.ToLower(r.App))
						case r.Destructive && !c.DestructiveIntent:
							t.Errorf("%s: expects the destructive %s without destructive intent", c.ID, slug)
						}
					}
				}
			}
		})
	}
}

// TestFitAboveBaseline: with AboveBaseline, the fit's objective loses, for each group
// whose hit@5 is below the BM25 baseline's on the same cases, that shortfall times
// AboveBaseline; weights at the baseline on every group cost nothing.
func TestFitAboveBaseline(t *testing.T) {
	ctx, st := context.Background(), testdataStore(t)
	good := []hinteval.Case{slackSend,
		{ID: "g2", Prompt: "list the labels in my gmail", Apps: []string{"slack", "gmail"}, Mode: "chatbot", Expect: [][]string{{"GMAIL_LIST_LABELS"}}}}
	bad := []hinteval.Case{
		{ID: "b1", Prompt: "email dana@example.com the notes", Apps: []string{"slack", "gmail"}, Mode: "chatbot", Expect: [][]string{{"GMAIL_SEND_EMAIL"}}},
		{ID: "b2", Prompt: "upload the report to slack", Apps: []string{"slack", "gmail"}, Mode: "chatbot", Expect: [][]string{{"SLACK_UPLOAD_FILE"}}},
		{ID: "b3", Prompt: "create an event on my calendar for friday", Apps: []string{"googlecalendar", "gmail"}, Mode: "chatbot", Expect: [][]string{{"GOOGLECALENDAR_CREATE_EVENT"}}},
	}
	groups := []hinteval.Labelled{{Store: st, Cases: good}, {Store: st, Cases: bad}}
	// Every feature weighing against an action, and a hint of one action: the ranking
	// falls below BM25 (fifteen actions).
	w := hint.DefaultWeights()
	for _, name := range hint.FeatureNames() {
		v, _ := w.Get(name)
		w = w.With(name, -v)
	}
	cfg := hint.Config{Weights: &w, Limits: hint.Limits{MaxActions: 1}}
	want := 0.0
	for _, g := range groups {
		rep, err := hinteval.Run(ctx, st, g.Cases, hinteval.Options{Builder: hint.New(cfg)})
		if err != nil {
			t.Fatal(err)
		}
		want += max(0, rep.Baseline.Hit5-rep.Overall.Hit5)
	}
	if want == 0 {
		t.Fatal("no group is below the baseline: the test checks nothing")
	}
	plain, err := hinteval.Objective(ctx, groups, hinteval.FitOptions{Config: cfg}, w)
	if err != nil {
		t.Fatal(err)
	}
	floored, err := hinteval.Objective(ctx, groups, hinteval.FitOptions{Config: cfg, AboveBaseline: 2}, w)
	if err != nil {
		t.Fatal(err)
	}
	if got := plain - floored; math.Abs(got-2*want) > 1e-9 {
		t.Errorf("the objective loses %.4f below the baseline, want %.4f", got, 2*want)
	}
	// The shipped weights list every expected action of both groups in the first five, as
	// BM25 does.
	def := hint.DefaultWeights()
	plain, err = hinteval.Objective(ctx, groups, hinteval.FitOptions{}, def)
	if err != nil {
		t.Fatal(err)
	}
	floored, err = hinteval.Objective(ctx, groups, hinteval.FitOptions{AboveBaseline: 2}, def)
	if err != nil {
		t.Fatal(err)
	}
	if plain != floored {
		t.Errorf("weights at the baseline: objective %.4f with the floor, %.4f without", floored, plain)
	}
}
