package hinteval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// ReplayOptions configure Replay. It is plain data.
type ReplayOptions struct {
	// K is the number of app-grouped folds. Optional. Defaults to 5.
	K int
	// Config configures both Builders; its Usage field is ignored: Replay sets it for the
	// Builder with priors. Optional.
	Config hint.Config
	// Usage configures the priors; Reader and Refresh are ignored. Optional: the zero
	// value takes hint.UsageConfig's defaults.
	Usage hint.UsageConfig
}

// ReplayReport is the outcome of Replay. It is plain data.
type ReplayReport struct {
	// Before are the figures without usage (those of Run).
	Before Metrics `json:"before"`
	// After are the figures with every other prompt's calls recorded: the other folds'
	// and the held-out fold's own, never the scored prompt's.
	After Metrics `json:"after"`
	// NeverUsedBefore and NeverUsedAfter are Before and After on the prompts none of
	// whose expected actions any other prompt's calls recorded.
	NeverUsedBefore Metrics `json:"never_used_before"`
	NeverUsedAfter  Metrics `json:"never_used_after"`
	// OtherFolds are the figures with only the other folds' calls recorded: the held-out
	// apps were never used, so this measures what use of other apps does to new ones.
	OtherFolds Metrics `json:"other_folds"`
	// Calls is the number of calls recorded: one per expected step of each prompt.
	Calls int `json:"calls"`
	// Ceiling is the most hit@1 can gain: the share of prompts whose top action is wrong
	// without usage and one of whose expected actions another prompt's calls include.
	// Priors only ever favour actions a workspace called, so no other prompt can gain.
	Ceiling float64 `json:"ceiling"`
	// OtherFoldsCeiling is the same with only the other folds' calls recorded (the
	// setting of OtherFolds): the prompts another fold's prompts share an action with.
	OtherFoldsCeiling float64 `json:"other_folds_ceiling"`
}

// Gain is the change of hit@1 with usage recorded.
func (r ReplayReport) Gain() float64 { return r.After.Hit1 - r.Before.Hit1 }

// CeilingShare is the share of the ceiling the gain reaches: 1 when every prompt that
// could gain did, 0 when the ceiling is 0.
func (r ReplayReport) CeilingShare() float64 {
	if r.Ceiling <= 0 {
		return 0
	}
	return r.Gain() / r.Ceiling
}

// NeverUsedChange is the change of hit@5 with usage recorded on the prompts whose expected
// actions were never used.
func (r ReplayReport) NeverUsedChange() float64 {
	return r.NeverUsedAfter.Hit5 - r.NeverUsedBefore.Hit5
}

// Print writes the report as one line.
func (r ReplayReport) Print(w io.Writer) {
	fmt.Fprintf(w, "replay: hit@1 gain %.3f (ceiling %.3f, %.0f%% of it reached; %.3f -> %.3f, hit@5 %.3f -> %.3f on %d prompts, %d calls; "+
		"never-used gold: %d prompts, hit@5 %.3f -> %.3f, change %+.3f; other folds' calls only: hit@1 %.3f, hit@5 %.3f, ceiling %.3f)\n",
		r.Gain(), r.Ceiling, 100*r.CeilingShare(), r.Before.Hit1, r.After.Hit1, r.Before.Hit5, r.After.Hit5, r.Before.Cases, r.Calls,
		r.NeverUsedBefore.Cases, r.NeverUsedBefore.Hit5, r.NeverUsedAfter.Hit5, r.NeverUsedChange(),
		r.OtherFolds.Hit1, r.OtherFolds.Hit5, r.OtherFoldsCeiling)
}

// Replay measures what usage priors add. Each prompt's expected actions (the first of each
// expected group) become successful calls of a workspace, with the prompt's terms
// (hint.PromptTerms), in the cases' order. The cases are split into app-grouped folds (see
// AppFolds) and each prompt of a held-out fold is scored three ways: without usage; with
// the calls of every other prompt recorded in its workspace (the fold's own other prompts
// included: a workspace uses the same apps again); and with only the other folds' calls,
// whose apps are not the fold's. A prompt's own calls are never in its workspace.
func Replay(ctx context.Context, st Store, cases []Case, opt ReplayOptions) (ReplayReport, error) {
	cfg, rd, ws := replaySetup(st, cases, opt)
	base, withUsage := hint.New(opt.plain()), hint.New(cfg)

	var rep ReplayReport
	for _, cs := range rd.calls {
		rep.Calls += len(cs)
	}
	before, err := Run(ctx, st, cases, Options{Builder: base})
	if err != nil {
		return ReplayReport{}, err
	}
	after, err := Run(ctx, ws, cases, Options{Builder: withUsage, WorkspaceOf: func(c Case) string { return allOthers + c.ID }})
	if err != nil {
		return ReplayReport{}, err
	}
	others, err := Run(ctx, ws, cases, Options{Builder: withUsage, WorkspaceOf: func(c Case) string { return otherFolds + c.ID }})
	if err != nil {
		return ReplayReport{}, err
	}
	var neverBefore, neverAfter []Outcome
	reachable, fromOtherFolds := 0, 0
	for i, c := range cases {
		switch {
		case !rd.usedBy(c, func(j int) bool { return j != i }):
			neverBefore, neverAfter = append(neverBefore, before.Outcomes[i]), append(neverAfter, after.Outcomes[i])
		case !hitAt1(before.Outcomes[i].Ranks):
			reachable++
			if rd.usedBy(c, func(j int) bool { return rd.fold[j] != rd.fold[i] }) {
				fromOtherFolds++
			}
		}
	}
	if len(cases) > 0 {
		rep.Ceiling = float64(reachable) / float64(len(cases))
		rep.OtherFoldsCeiling = float64(fromOtherFolds) / float64(len(cases))
	}
	rep.Before, rep.After, rep.OtherFolds = before.Overall, after.Overall, others.Overall
	rep.NeverUsedBefore, _ = summarize(neverBefore)
	rep.NeverUsedAfter, _ = summarize(neverAfter)
	return rep, nil
}

// FitUsage fits the weights of usage priors (usage_prior, usage_terms, usage_cover,
// usage_repeat) to cases in
// Replay's setting, each prompt with every other prompt's calls recorded; every other
// weight keeps its value in start, which Nil means hint.DefaultWeights().
func FitUsage(ctx context.Context, st Store, cases []Case, start *hint.Weights, opt ReplayOptions) (hint.Weights, FitReport, error) {
	w := hint.DefaultWeights()
	if start != nil {
		w = *start
	}
	cfg, _, ws := replaySetup(st, cases, opt)
	fitted := UsageWeightNames()
	var freeze []string
	for _, n := range hint.WeightNames() {
		if !slices.Contains(fitted, n) {
			freeze = append(freeze, n)
		}
	}
	fw, rep, err := Fit(ctx, ws, cases, FitOptions{Start: &w, Config: cfg, Freeze: freeze,
		WorkspaceOf: func(c Case) string { return allOthers + c.ID }})
	if err != nil {
		return w, rep, err
	}
	// Fit sets the confidence threshold anew; only the usage weights are taken.
	for _, n := range fitted {
		v, _ := fw.Get(n)
		w = w.With(n, v)
	}
	return w, rep, nil
}

// plain is opt's configuration without usage priors.
func (opt ReplayOptions) plain() hint.Config {
	cfg := opt.Config
	cfg.Usage = nil
	return cfg
}

// replaySetup records cases' calls in opt.K app-grouped folds and returns the
// configuration that reads them, the reader, and st as the replay's workspaces see it.
func replaySetup(st Store, cases []Case, opt ReplayOptions) (hint.Config, *replayReader, replayStore) {
	k := opt.K
	if k <= 0 {
		k = 5
	}
	rd := newReplayReader(cases, k)
	uc := opt.Usage
	uc.Reader, uc.Refresh = rd, -1
	cfg := opt.plain()
	cfg.Usage = &uc
	return cfg, rd, replayStore{Store: st, apps: caseApps(cases)}
}

// newReplayReader records each case's expected actions (the first of each expected group)
// as successful calls with its prompt's terms, and splits the cases into k app-grouped
// folds.
func newReplayReader(cases []Case, k int) *replayReader {
	_, of := AppFolds(cases, k)
	rd := &replayReader{at: time.Now(), calls: make([][]cache.UsageEvent, len(cases)), fold: of, index: map[string]int{}}
	for i, c := range cases {
		rd.index[c.ID] = i
		terms := hint.PromptTerms(c.Prompt)
		for _, g := range c.Expect {
			if len(g) == 0 {
				continue
			}
			app := appOf(g[0], c.Apps)
			if app == "" {
				continue
			}
			rd.calls[i] = append(rd.calls[i], cache.UsageEvent{WorkspaceID: c.ID, AgentID: 1, App: app,
				Action: strings.ToUpper(g[0]), OK: true, Terms: terms, At: rd.at})
		}
	}
	return rd
}

// Workspace prefixes of Replay: the rest is the id of the case scored.
const (
	allOthers  = "all-others/"
	otherFolds = "other-folds/"
)

// replayReader is the record of use of Replay's workspaces: the workspace of a case holds
// the calls of every other case (allOthers) or of the cases of the other folds
// (otherFolds), in the cases' order, all at one time. It is read-only once built.
type replayReader struct {
	at    time.Time
	calls [][]cache.UsageEvent // per case
	fold  []int                // per case
	index map[string]int       // case id -> index
}

func (r *replayReader) Usage(_ context.Context, workspaceID string, _ time.Time) ([]cache.UsageEvent, error) {
	var self int
	var keep func(j int) bool
	switch {
	case strings.HasPrefix(workspaceID, allOthers):
		self = r.index[strings.TrimPrefix(workspaceID, allOthers)]
		keep = func(j int) bool { return j != self }
	case strings.HasPrefix(workspaceID, otherFolds):
		self = r.index[strings.TrimPrefix(workspaceID, otherFolds)]
		keep = func(j int) bool { return r.fold[j] != r.fold[self] }
	default:
		return nil, nil
	}
	var out []cache.UsageEvent
	for j := len(r.calls) - 1; j >= 0; j-- {
		if !keep(j) {
			continue
		}
		for k := len(r.calls[j]) - 1; k >= 0; k-- {
			out = append(out, r.calls[j][k])
		}
	}
	return out, nil
}

// usedBy reports whether the calls of a case other that keeps include one of c's expected
// actions.
func (r *replayReader) usedBy(c Case, other func(j int) bool) bool {
	for j, cs := range r.calls {
		if !other(j) {
			continue
		}
		for _, e := range cs {
			for _, g := range c.Expect {
				if slices.ContainsFunc(g, func(s string) bool { return strings.EqualFold(s, e.Action) }) {
					return true
				}
			}
		}
	}
	return false
}

// caseApps returns the apps of all cases, lower case, sorted.
func caseApps(cases []Case) []string {
	var out []string
	for _, c := range cases {
		for _, a := range c.Apps {
			out = append(out, strings.ToLower(a))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// replayStore is a Store whose every workspace has every app of the cases connected and no
// tool configuration, so that a request with a workspace sees exactly its apps.
type replayStore struct {
	Store
	apps []string
}

func (s replayStore) Connections(ctx context.Context, workspaceID string, _ ...cache.ConnectionStatus) ([]cache.Connection, error) {
	out := make([]cache.Connection, len(s.apps))
	for i, a := range s.apps {
		out[i] = cache.Connection{WorkspaceID: workspaceID, App: a, Status: cache.StatusActive}
	}
	return out, nil
}

// CatalogKnowledge passes the store's catalogue knowledge on, so that the replay analyses
// prompts as a run on the store does.
func (s replayStore) CatalogKnowledge(ctx context.Context) (cache.CatalogKnowledge, error) {
	if ks, ok := s.Store.(cache.KnowledgeStore); ok {
		return ks.CatalogKnowledge(ctx)
	}
	return cache.CatalogKnowledge{}, nil
}

func (s replayStore) ToolConfigs(context.Context, string) ([]cache.ToolConfig, error) {
	return nil, nil
}
