package hinteval

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// RepeatOptions configure RepeatCheck. It is plain data.
type RepeatOptions struct {
	// Config configures the Builders; its Usage field is ignored: RepeatCheck sets it for
	// the Builder with priors. Optional.
	Config hint.Config
	// Usage configures the priors; Reader is ignored. Optional: the zero value takes
	// hint.UsageConfig's defaults, so that what a workspace learnt is kept between reads
	// as in production.
	Usage hint.UsageConfig
}

// RepeatReport is the outcome of RepeatCheck: what a workspace's record of use teaches the
// same request asked again. Counts are of requests. It is plain data.
type RepeatReport struct {
	// Cases is the number of requests checked.
	Cases int `json:"cases"`
	// Missed are the requests whose hint without usage does not name an expected action
	// first.
	Missed int `json:"missed"`
	// AfterOne and AfterThree are those of Missed whose hint names an expected action
	// first once the workspace recorded one (three) successful calls of it from the
	// request.
	AfterOne   int `json:"after_one"`
	AfterThree int `json:"after_three"`
	// ConfidentOne are those of AfterOne whose hint is confident.
	ConfidentOne int `json:"confident_one"`
	// Leaks are those of Missed whose hint in another workspace, built after the calls
	// were recorded, differs from the one it had before: what a workspace learnt reached
	// another.
	Leaks int `json:"leaks"`
	// FailPromoted are those of Missed whose expected action three failed calls from the
	// request listed higher than without usage.
	FailPromoted int `json:"fail_promoted"`
	// Right are the requests whose hint without usage names an expected action first, and
	// Unrelated those of them an unrelated call could be recorded for: a successful call
	// of another action of the same app, from another request's terms.
	Right     int `json:"right"`
	Unrelated int `json:"unrelated"`
	// Broken are those of Unrelated whose hint no longer names an expected action first
	// after the unrelated call.
	Broken int `json:"broken"`
	// FailDemoted are those of Right whose hint no longer names an expected action first
	// after three failed calls of it from the request.
	FailDemoted int `json:"fail_demoted"`
	// StillMissed are the ids of the missed requests no expected action leads after three
	// calls.
	StillMissed []string `json:"still_missed,omitempty"`
}

// OneShare is the share of missed requests an expected action leads after one call.
func (r RepeatReport) OneShare() float64 { return share(r.AfterOne, r.Missed) }

// ThreeShare is the share of missed requests an expected action leads after three calls.
func (r RepeatReport) ThreeShare() float64 { return share(r.AfterThree, r.Missed) }

// BrokenShare is the share of right hints an unrelated call broke.
func (r RepeatReport) BrokenShare() float64 { return share(r.Broken, r.Unrelated) }

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Add returns the sum of r and o, as one report over both sets of requests.
func (r RepeatReport) Add(o RepeatReport) RepeatReport {
	r.Cases += o.Cases
	r.Missed += o.Missed
	r.AfterOne += o.AfterOne
	r.AfterThree += o.AfterThree
	r.ConfidentOne += o.ConfidentOne
	r.Leaks += o.Leaks
	r.FailPromoted += o.FailPromoted
	r.Right += o.Right
	r.Unrelated += o.Unrelated
	r.Broken += o.Broken
	r.FailDemoted += o.FailDemoted
	r.StillMissed = append(slices.Clip(r.StillMissed), o.StillMissed...)
	return r
}

// Print writes the report as one line, named by label.
func (r RepeatReport) Print(w io.Writer, label string) {
	fmt.Fprintf(w, "repeat %s: %d requests, %d missed: right first after one call %d (%.3f, %d confident), after three %d (%.3f); "+
		"leaks %d; three failures promoted %d; %d right: broken by unrelated use %d of %d (%.3f), by three failures %d\n",
		label, r.Cases, r.Missed, r.AfterOne, r.OneShare(), r.ConfidentOne, r.AfterThree, r.ThreeShare(),
		r.Leaks, r.FailPromoted, r.Right, r.Broken, r.Unrelated, r.BrokenShare(), r.FailDemoted)
}

// RepeatCheck measures what a workspace's successful calls teach its next identical
// request. Each request gets workspaces of its own, every app of the cases connected. For a
// request whose hint does not name an expected action first, the first action of its first
// expected step is recorded as one successful call with the request's terms
// (hint.PromptTerms) in one workspace, three in another and three failed calls in a third,
// and the request is asked again in each; a fourth workspace, with no record, must give
// the hint it gave before the others learnt. For a request whose hint is right, a successful
// call of another action of the same app (the first the hint lists, else the catalogue's
// first that is not destructive), with the terms of a request about another app, is
// recorded, and the hint must stay right; so must it after three failed calls of its right
// action.
func RepeatCheck(ctx context.Context, st Store, cases []Case, opt RepeatOptions) (RepeatReport, error) {
	rd := &repeatReader{m: map[string][]cache.UsageEvent{}}
	uc := opt.Usage
	uc.Reader = rd
	cfg := opt.Config
	cfg.Usage = nil
	plain := hint.New(cfg)
	cfg.Usage = &uc
	withUsage := hint.New(cfg)
	ws := replayStore{Store: st, apps: caseApps(cases)}
	now := time.Now()

	var rep RepeatReport
	for i, c := range cases {
		if len(c.Expect) == 0 || len(c.Expect[0]) == 0 {
			continue
		}
		want := strings.ToUpper(c.Expect[0][0])
		app := appOf(want, c.Apps)
		if app == "" {
			continue
		}
		rep.Cases++
		build := func(b *hint.Builder, workspace string) (hint.Result, error) {
			req := request(c, nil)
			req.WorkspaceID = workspace
			res, err := b.Build(ctx, ws, req)
			if err != nil {
				return res, fmt.Errorf("hinteval: repeat %s: %w", c.ID, err)
			}
			return res, nil
		}
		base, err := build(plain, "")
		if err != nil {
			return RepeatReport{}, err
		}
		terms := hint.PromptTerms(c.Prompt)
		calls := func(workspace, action string, ok bool, n int, terms []string) {
			for k := 0; k < n; k++ {
				rd.add(cache.UsageEvent{WorkspaceID: workspace, AgentID: 1, App: strings.ToLower(app), Action: action, OK: ok, Terms: terms,
					At: now.Add(-time.Duration(n-k) * time.Minute)})
			}
		}
		prefix := fmt.Sprintf("repeat/%d/", i)
		failed := prefix + "failed"
		calls(failed, want, false, 3, terms)
		afterFail, err := build(withUsage, failed)
		if err != nil {
			return RepeatReport{}, err
		}
		if !firstRight(c, base.MatchedActions) {
			rep.Missed++
			other := prefix + "other"
			before, err := build(withUsage, other)
			if err != nil {
				return RepeatReport{}, err
			}
			for _, step := range []struct {
				n     int
				count *int
			}{{1, &rep.AfterOne}, {3, &rep.AfterThree}} {
				n, count := step.n, step.count
				w := fmt.Sprintf("%s%d", prefix, n)
				calls(w, want, true, n, terms)
				res, err := build(withUsage, w)
				if err != nil {
					return RepeatReport{}, err
				}
				switch {
				case firstRight(c, res.MatchedActions):
					*count++
					if n == 1 && res.Confident {
						rep.ConfidentOne++
					}
				case n == 3:
					rep.StillMissed = append(rep.StillMissed, c.ID)
				}
			}
			after, err := build(withUsage, other)
			if err != nil {
				return RepeatReport{}, err
			}
			if !sameHint(before, after) || !sameHint(base, after) {
				rep.Leaks++
			}
			if r0, r1 := rankOf(want, base.MatchedActions), rankOf(want, afterFail.MatchedActions); r1 > 0 && (r0 == 0 || r1 < r0) {
				rep.FailPromoted++
			}
			continue
		}
		rep.Right++
		if !firstRight(c, afterFail.MatchedActions) {
			rep.FailDemoted++
		}
		sibling, err := siblingOf(ctx, st, c, app, base.MatchedActions)
		if err != nil {
			return RepeatReport{}, err
		}
		if sibling == "" {
			continue
		}
		rep.Unrelated++
		unrelated := prefix + "unrelated"
		calls(unrelated, sibling, true, 1, hint.PromptTerms(otherPrompt(cases, i, app)))
		res, err := build(withUsage, unrelated)
		if err != nil {
			return RepeatReport{}, err
		}
		if !firstRight(c, res.MatchedActions) {
			rep.Broken++
		}
	}
	return rep, nil
}

// firstRight reports whether the first of listed is an expected action of c.
func firstRight(c Case, listed []string) bool {
	return len(listed) > 0 && slices.ContainsFunc(c.Expect, func(g []string) bool { return slices.Contains(g, listed[0]) })
}

// rankOf returns the 1-based place of action in listed, 0 when it is not listed.
func rankOf(action string, listed []string) int {
	return slices.Index(listed, action) + 1
}

// sameHint reports whether two hints list the same actions with the same text and
// confidence.
func sameHint(a, b hint.Result) bool {
	return a.Text == b.Text && slices.Equal(a.MatchedActions, b.MatchedActions) && a.Probability == b.Probability && a.Confident == b.Confident
}

// siblingOf returns another action of app for an unrelated call: the first listed that no
// step of c expects, else the first of the catalogue's that is not destructive; "" when the
// app has none.
func siblingOf(ctx context.Context, st Store, c Case, app string, listed []string) (string, error) {
	expected := func(a string) bool {
		return slices.ContainsFunc(c.Expect, func(g []string) bool {
			return slices.ContainsFunc(g, func(s string) bool { return strings.EqualFold(s, a) })
		})
	}
	metas, err := st.ActionMeta(ctx, []string{app})
	if err != nil {
		return "", fmt.Errorf("hinteval: repeat %s: %w", c.ID, err)
	}
	destructive := map[string]bool{}
	for _, m := range metas {
		destructive[m.Action] = m.Destructive
	}
	for _, a := range listed {
		if d, ok := destructive[a]; ok && !d && !expected(a) {
			return a, nil
		}
	}
	for _, m := range metas {
		if !m.Destructive && !expected(m.Action) {
			return m.Action, nil
		}
	}
	return "", nil
}

// otherPrompt returns the prompt of the first case after cases[i] whose first expected
// action is not of app: a request about something else.
func otherPrompt(cases []Case, i int, app string) string {
	for k := 1; k < len(cases); k++ {
		o := cases[(i+k)%len(cases)]
		if len(o.Expect) > 0 && len(o.Expect[0]) > 0 && !strings.EqualFold(appOf(o.Expect[0][0], o.Apps), app) {
			return o.Prompt
		}
	}
	return ""
}

// repeatReader is RepeatCheck's record of use: events by workspace, newest first. It is
// safe for concurrent use.
type repeatReader struct {
	mu sync.Mutex
	m  map[string][]cache.UsageEvent
}

func (r *repeatReader) add(e cache.UsageEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[e.WorkspaceID] = append([]cache.UsageEvent{e}, r.m[e.WorkspaceID]...)
}

func (r *repeatReader) Usage(_ context.Context, workspaceID string, _ time.Time) ([]cache.UsageEvent, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.m[workspaceID]), nil
}

// Meets reports whether the report meets the repeat bar: an expected action first after one
// call in at least 80% of the missed requests and after three in at least 90%, no leak
// between workspaces, at most 2% of right hints broken by unrelated use, and no action
// promoted by failed calls.
func (r RepeatReport) Meets() bool {
	return r.OneShare() >= 0.80 && r.ThreeShare() >= 0.90 && r.Leaks == 0 && r.BrokenShare() <= 0.02 && r.FailPromoted == 0
}

// repeatPenalty is what a broken right hint, a leak or a promotion by failed calls costs in
// FitRepeat's objective, as a share of its cases, against a missed request put right.
const repeatPenalty = 10

// Objective is FitRepeat's objective: the share of missed requests an expected action
// leads after one call plus the share after three, minus ten times the share of right
// hints unrelated use broke and ten times the share of missed requests that leaked to
// another workspace or whose action failed calls promoted. Breaking a right hint costs
// several times what putting a missed one right gains: a host notices the first.
func (r RepeatReport) Objective() float64 {
	return r.OneShare() + r.ThreeShare() - repeatPenalty*r.BrokenShare() - repeatPenalty*share(r.Leaks+r.FailPromoted, r.Missed)
}

// RepeatFitOptions configure FitRepeat. It is plain data.
type RepeatFitOptions struct {
	// Start is where the search begins. Optional. Nil means hint.DefaultWeights().
	Start *hint.Weights
	// Repeat configures the checks the weights are scored by; its Config.Weights is
	// ignored. Optional.
	Repeat RepeatOptions
	// Passes bounds the rounds over the usage weights. Optional. Defaults to 3.
	Passes int
}

// UsageWeightNames are the weights of a workspace's record of use: those FitUsage and
// FitRepeat fit, and that fits of the lexical ranking leave alone.
func UsageWeightNames() []string {
	return []string{"usage_prior", "usage_terms", "usage_cover", "usage_repeat"}
}

// FitRepeat fits the weights of repeats (usage_terms, usage_cover, usage_repeat) to cases
// in RepeatCheck's setting; every other weight keeps its value in opt.Start. usage_prior
// is left alone: it carries what failed calls and the rest of the record say, which the
// check does not reward (it scores no hint after failures), so a fit of it here only
// learns to drop it, and failures would then count for nothing. It is coordinate ascent on
// RepeatReport.Objective: each usage weight in turn takes the value, among a few steps
// around its current one (never below zero), that most improves it, a step having to gain
// at least half a missed request; rounds repeat until none improves. The report's
// Objective and Start are that objective with the fitted and the starting weights.
//
// Every try runs RepeatCheck over cases, so the weights are chosen on them: score them on
// other requests (RepeatCheck with the fitted weights) to learn what they do.
func FitRepeat(ctx context.Context, st Store, cases []Case, opt RepeatFitOptions) (hint.Weights, FitReport, error) {
	w := hint.DefaultWeights()
	if opt.Start != nil {
		w = *opt.Start
	}
	passes := opt.Passes
	if passes <= 0 {
		passes = 3
	}
	fitted := []string{"usage_terms", "usage_cover", "usage_repeat"}
	var missed int
	objective := func(w hint.Weights) (float64, error) {
		for _, n := range fitted {
			if v, _ := w.Get(n); v < 0 {
				return math.Inf(-1), nil // a success never counts against an action
			}
		}
		ro := opt.Repeat
		ro.Config.Weights = &w
		r, err := RepeatCheck(ctx, st, cases, ro)
		missed = r.Missed
		return r.Objective(), err
	}
	start, err := objective(w)
	if err != nil {
		return w, FitReport{}, err
	}
	rep := FitReport{Cases: len(cases), Start: start}
	w, rep.Objective, rep.Passes, err = ascend(ctx, w, start, fitted, passes, 0.5/math.Max(1, float64(missed)), objective)
	return w, rep, err
}
