package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/text"
	"github.com/toolhint/toolhint/registry"
)

// ToolCreatePlan is the name of the router's planning meta-tool.
const ToolCreatePlan = "create_plan"

// Bounds of a plan.
const (
	maxPlanSteps      = 8
	maxPlanCandidates = 3
)

// Plan is the ordered plan of a multi-step prompt: one step per thing the prompt asks
// for, with the actions that could do it. It is computed locally from the catalogue, with
// no remote call. It belongs to the caller.
type Plan struct {
	Steps []PlanStep `json:"steps"`
	// ConnectFirst are the apps of the steps' best actions that the workspace has not
	// connected.
	ConnectFirst []string `json:"connect_first,omitempty"`
	// Note tells the model how to run the plan.
	Note string `json:"note"`
}

// PlanStep is one step of a Plan.
type PlanStep struct {
	// Index is the step's place in the prompt, from 1.
	Index int `json:"index"`
	// Step is the number to give the step's action in batch_execute_tools: steps with the
	// same number run in parallel, higher numbers after lower ones.
	Step int `json:"step"`
	// Instruction is the part of the prompt the step does.
	Instruction string `json:"instruction"`
	// App is the app of the best candidate ("" when there is none).
	App string `json:"app,omitempty"`
	// Connected reports whether App can run now: the workspace connection is active, the
	// app needs no authorisation, or the calls are not made for a workspace.
	Connected bool `json:"connected"`
	// Connection is the workspace connection's status: "active", "pending", "failed",
	// "added", "none" or "not_needed" ("" without a workspace or an app).
	Connection string `json:"connection,omitempty"`
	// Candidates are the actions that could do the step, best first.
	Candidates []PlanCandidate `json:"candidates"`
	// WaitsFor is the Index of the step this one must wait for (0: none).
	WaitsFor int `json:"waits_for,omitempty"`
	// NeedsResult reports that the step needs data from the step it waits for, so that
	// step must run first on its own (execute_tool) and its result fill this one's
	// arguments.
	NeedsResult bool `json:"needs_result,omitempty"`
}

// PlanCandidate is an action that could do a step.
type PlanCandidate struct {
	Slug      string `json:"slug"`
	App       string `json:"app"`
	Connected bool   `json:"connected"`
}

func (r *Router) planTool() registry.ToolSpec {
	return registry.ToolSpec{
		Name: ToolCreatePlan,
		Description: "Plan a job that takes several actions: its steps in order, each with candidate actions, the step it waits for, " +
			"whether its app is connected, and the step number to use in batch_execute_tools.",
		Category: registry.CategoryRouter,
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"prompt":{"type":"string","description":"The whole job, as the user asked for it."}},` +
			`"required":["prompt"]}`),
		ReadOnly: true,
		Run: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct {
				Prompt string `json:"prompt"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, fmt.Errorf("reading arguments: %w", err)
			}
			p, err := r.Plan(ctx, in.Prompt)
			if err != nil {
				return nil, err
			}
			return json.Marshal(p)
		},
	}
}

// backRefs are words by which a clause points at an earlier one's result.
var backRefs = []string{"it", "them", "they", "their", "that", "this", "these", "those", "result", "results", "output", "summary", "one", "ones"}

// thenWords open a clause that must come after the one before.
var thenWords = []string{"then", "after", "afterwards", "next", "finally", "later", "once"}

// readVerbs are verb classes of clauses that fetch something a later clause may act on.
var readVerbs = []string{"get", "list", "search", "find", "fetch", "read", "query", "retrieve", "lookup", "download", "export"}

// Plan splits prompt into steps with the clause analysis package hint uses, and gives each
// step its candidate actions among the apps the agent may use (connected or not), the
// step it waits for, whether its app is connected, and its batch step number. It reads
// only the catalogue store; errors are returned for a store that fails or a cancelled
// context.
func (r *Router) Plan(ctx context.Context, prompt string) (Plan, error) {
	if len(prompt) > hint.MaxPromptLen {
		prompt = prompt[:hint.MaxPromptLen]
	}
	apps, err := r.planApps(ctx)
	if err != nil {
		return Plan{}, err
	}
	conns, err := r.planConnections(ctx)
	if err != nil {
		return Plan{}, err
	}
	clauses := r.inner.sh.analyzer().Prompt(prompt, apps).Clauses
	if len(clauses) > maxPlanSteps {
		clauses = clauses[:maxPlanSteps]
	}
	p := Plan{Steps: []PlanStep{}}
	var prev *text.Clause
	for i, c := range clauses {
		st := PlanStep{Index: i + 1, Step: 1, Instruction: c.Text, Candidates: []PlanCandidate{}}
		if prev != nil {
			st.NeedsResult = dependsOn(c, *prev)
			if st.NeedsResult || slices.Contains(thenWords, firstWord(c.Text)) {
				st.WaitsFor = i
				st.Step = p.Steps[i-1].Step + 1
			}
		}
		prev = &clauses[i]
		if len(apps) > 0 {
			if st.Candidates, err = r.planCandidates(ctx, c, apps, conns); err != nil {
				return Plan{}, err
			}
		}
		if len(st.Candidates) > 0 {
			best := st.Candidates[0]
			st.App, st.Connected = best.App, best.Connected
			st.Connection = conns.status(best.App, best.Connected)
			if !best.Connected && !slices.Contains(p.ConnectFirst, best.App) {
				p.ConnectFirst = append(p.ConnectFirst, best.App)
			}
		}
		p.Steps = append(p.Steps, st)
	}
	p.Note = r.planNote(p)
	return p, nil
}

// dependsOn reports whether clause c needs data from prev: it refers back to a result
// ("post a summary of them"), or acts on something it names by kind right after prev
// fetched things ("search candidates and email the top one").
func dependsOn(c, prev text.Clause) bool {
	for _, w := range strings.Fields(c.Text) {
		if slices.Contains(backRefs, w) {
			return true
		}
	}
	return c.Existing && slices.Contains(readVerbs, prev.Verb)
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return w
}

func (r *Router) planNote(p Plan) string {
	if len(p.Steps) == 0 {
		return "nothing to plan: the prompt asks for no action"
	}
	note := "Run the steps with batch_execute_tools, giving each step's action its step number; steps with the same number run in parallel."
	for _, s := range p.Steps {
		if s.NeedsResult {
			note += " A step with needs_result uses data from the step it waits for: run that step with execute_tool first, then fill this one's arguments from its result."
			break
		}
	}
	for _, s := range p.Steps {
		if len(s.Candidates) == 0 {
			note += fmt.Sprintf(" No action was found for step %d; use search_tools with other words.", s.Index)
			break
		}
	}
	if len(p.ConnectFirst) > 0 {
		if r.cfg.Connect.Connector != nil {
			note += " Connect " + strings.Join(p.ConnectFirst, ", ") + " first with manage_connections."
		} else {
			note += " " + strings.Join(p.ConnectFirst, ", ") + " must be connected to the workspace first; ask the user to connect it."
		}
	}
	return note
}

// planApps returns the apps a plan may use, connected or not: the scope's apps, else the
// agent's active assignments, else the apps the workspace has any connection to.
func (r *Router) planApps(ctx context.Context) ([]string, error) {
	sc := r.inner.cfg.Scope
	var out []string
	add := func(app string) {
		app = strings.ToLower(strings.TrimSpace(app))
		if app != "" && !slices.Contains(out, app) {
			out = append(out, app)
		}
	}
	for _, a := range sc.Apps {
		add(a)
	}
	if len(out) == 0 && sc.AgentID > 0 {
		as, err := r.cfg.Hints.AgentApps(ctx, sc.AgentID)
		if err != nil && !errors.Is(err, cache.ErrNotFound) {
			return nil, fmt.Errorf("agent %d apps: %w", sc.AgentID, err)
		}
		for _, a := range as {
			if a.Active {
				add(a.App)
			}
		}
	}
	if len(out) == 0 && sc.WorkspaceID != "" {
		cs, err := r.cfg.Hints.Connections(ctx, sc.WorkspaceID)
		if err != nil && !errors.Is(err, cache.ErrNotFound) {
			return nil, fmt.Errorf("workspace %s connections: %w", sc.WorkspaceID, err)
		}
		for _, c := range cs {
			add(c.App)
		}
	}
	slices.Sort(out)
	return out, nil
}

// planConns knows the workspace's connections and which apps need no auth.
type planConns struct {
	workspace bool
	statuses  map[string]cache.ConnectionStatus
	noAuth    map[string]bool
}

func (c planConns) status(app string, connected bool) string {
	switch {
	case !c.workspace:
		return ""
	case c.noAuth[app]:
		return statusNotNeeded
	}
	if s, ok := c.statuses[app]; ok {
		return string(s)
	}
	if connected {
		return statusNotNeeded
	}
	return "none"
}

func (r *Router) planConnections(ctx context.Context) (planConns, error) {
	ws := r.inner.cfg.Scope.WorkspaceID
	out := planConns{workspace: ws != "", statuses: map[string]cache.ConnectionStatus{}, noAuth: map[string]bool{}}
	if ws == "" {
		return out, nil
	}
	cs, err := r.cfg.Hints.Connections(ctx, ws)
	if err != nil && !errors.Is(err, cache.ErrNotFound) {
		return planConns{}, fmt.Errorf("workspace %s connections: %w", ws, err)
	}
	for _, c := range cs {
		out.statuses[c.App] = c.Status
	}
	return out, nil
}

// appLookup is the App method of the catalogue stores, used when a store has it to learn
// whether an app needs no auth.
type appLookup interface {
	App(ctx context.Context, slug string) (cache.App, error)
}

// planCandidates ranks the actions for one clause with package hint, among apps; when the
// clause names apps, the actions of those apps are preferred.
func (r *Router) planCandidates(ctx context.Context, c text.Clause, apps []string, conns planConns) ([]PlanCandidate, error) {
	res, err := buildHint(ctx, r.cfg.HintBuilder, r.cfg.Hints, hint.Request{Prompt: c.Text, Apps: apps})
	if err != nil {
		return nil, err
	}
	var named []string
	for _, m := range c.Apps {
		named = append(named, m.App)
	}
	var matches []hint.Match
	for _, m := range res.Matches {
		if m.Tier != hint.StrategyFallback {
			matches = append(matches, m)
		}
	}
	if slices.ContainsFunc(matches, func(m hint.Match) bool { return slices.Contains(named, m.App) }) {
		matches = slices.DeleteFunc(matches, func(m hint.Match) bool { return !slices.Contains(named, m.App) })
	}
	out := []PlanCandidate{}
	for _, m := range matches {
		if len(out) == maxPlanCandidates {
			break
		}
		connected, err := r.planConnected(ctx, m, conns)
		if err != nil {
			return nil, err
		}
		out = append(out, PlanCandidate{Slug: m.Action, App: m.App, Connected: connected})
	}
	return out, nil
}

// planConnected reports whether an action can run now in the scope's workspace, and
// records in conns which apps need no auth.
func (r *Router) planConnected(ctx context.Context, m hint.Match, conns planConns) (bool, error) {
	if !conns.workspace || conns.statuses[m.App] == cache.StatusActive {
		return true, nil
	}
	if no, ok := conns.noAuth[m.App]; ok && no {
		return true, nil
	}
	act, err := r.inner.cfg.Catalog.Action(ctx, m.Action)
	if err != nil && !errors.Is(err, cache.ErrNotFound) {
		return false, err
	}
	noAuth := err == nil && act.NoAuth
	var apps appLookup
	if r.cfg.Connect.Store != nil {
		apps = r.cfg.Connect.Store
	} else if a, ok := r.cfg.Hints.(appLookup); ok {
		apps = a
	}
	if !noAuth && apps != nil {
		app, err := apps.App(ctx, m.App)
		if err != nil && !errors.Is(err, cache.ErrNotFound) {
			return false, err
		}
		noAuth = err == nil && app.NoAuth
	}
	conns.noAuth[m.App] = noAuth
	return noAuth, nil
}
