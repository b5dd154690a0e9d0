package executor

import (
	"context"
	"fmt"
	"slices"

	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// loop is one conversation of the engine RunStep and RunTurn share: what it starts from,
// and, once converse returns, what happened.
type loop struct {
	tools  []schema.Function
	choice ToolChoice // of the first model turn; "auto" after the model has called
	max    int        // model turns; <= 0 means DefaultMaxTurns
	batch  BatchOptions
	op     string // "run step", "run turn": the prefix of errors
	unit   string // "step", "turn": what a skipped call's reason names

	messages []Message // the conversation so far; converse appends to it
	final    string    // the content of the model's last message
	calls    int       // model calls made
	results  []Result  // every tool result, in order
}

// converse runs l: the model answers, its tool calls run as one batch, their results go
// back to the model, until the model answers without tool calls or l.max model turns were
// made (ErrMaxTurns). The tool calls of the last allowed turn are not run, since no model
// turn would read their results; they get KindSkipped results so the conversation stays
// complete. Tool failures are results the model sees; converse returns an error only when
// the model fails or ctx ends, and l then holds what happened so far.
func (e *Executor) converse(ctx context.Context, llm LLM, l *loop) error {
	maxTurns := l.max
	if maxTurns <= 0 {
		maxTurns = DefaultMaxTurns
	}
	if len(l.tools) == 0 {
		l.choice = ToolChoiceAuto // nothing to call
	}
	// Route offered function names back to slugs (long slugs are shortened).
	bySlug := make(map[string]string, len(l.tools))
	for _, f := range l.tools {
		bySlug[f.Name] = f.Slug
	}
	for l.calls < maxTurns {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("executor: %s: %w", l.op, err)
		}
		msg, err := llm.Complete(ctx, LLMRequest{Messages: l.messages, Tools: l.tools, ToolChoice: l.choice})
		l.calls++
		if err != nil {
			return fmt.Errorf("executor: %s: model turn %d: %w", l.op, l.calls, err)
		}
		msg.Role = RoleAssistant
		l.messages = append(l.messages, msg)
		l.final = msg.Content
		if len(msg.ToolCalls) == 0 {
			return nil
		}
		l.choice = ToolChoiceAuto // the directive is satisfied once the model has called
		if l.calls == maxTurns {
			for _, tc := range msg.ToolCalls {
				r := Result{CallID: tc.ID, Tool: tc.Name, ErrorKind: KindSkipped,
					Error: fmt.Sprintf("not run: the %s reached its limit of %d model turns", l.unit, maxTurns)}.bounded()
				l.results = append(l.results, r)
				l.messages = append(l.messages, Message{Role: RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: r.ForModel()})
			}
			break
		}
		calls := make([]Call, len(msg.ToolCalls))
		for i, tc := range msg.ToolCalls {
			name := tc.Name
			if slug, ok := bySlug[name]; ok {
				name = slug
			}
			calls[i] = Call{ID: tc.ID, Name: name, Arguments: tc.Arguments}
		}
		results := e.ExecuteBatch(ctx, calls, l.batch)
		for i, r := range results {
			l.results = append(l.results, r)
			id := msg.ToolCalls[i].ID
			if id == "" {
				id = r.CallID
			}
			l.messages = append(l.messages, Message{Role: RoleTool, ToolCallID: id, Name: msg.ToolCalls[i].Name, Content: r.ForModel()})
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("executor: %s: %w", l.op, err)
	}
	return fmt.Errorf("%w (%d)", ErrMaxTurns, maxTurns)
}

// opening is the conversation a step or turn starts with: the system prompt and the hint
// as system messages (those not empty), the history, then the prompt as the user's.
func opening(system, hint string, history []Message, prompt string) []Message {
	msgs := make([]Message, 0, len(history)+3)
	for _, s := range []string{system, hint} {
		if s != "" {
			msgs = append(msgs, Message{Role: RoleSystem, Content: s})
		}
	}
	msgs = append(msgs, history...)
	return append(msgs, Message{Role: RoleUser, Content: prompt})
}

// searchOffer is the one decision RunTurn and RunStep take on search_tools: the hint may
// point the model at it (req.SearchTool is set) only when this executor would run it for its
// scope (registered, active and allowed, as offer checks), and then the loop gives the model
// the definition returned here whenever the hint points at a meta-tool (withSearch).
func (e *Executor) searchOffer(ctx context.Context, req *hint.Request) ([]schema.Function, error) {
	search, _, err := e.offer(ctx, []string{ToolSearch})
	if err != nil {
		return nil, err
	}
	if len(search) > 0 {
		req.SearchTool = ToolSearch
	}
	return search, nil
}

// withSearch adds search, the definition searchOffer returned, to tools when the hint h
// points at a meta-tool and tools lack it: the hint names it only when it could be given.
func withSearch(tools, search []schema.Function, h hint.Result) []schema.Function {
	if len(h.MetaTools) == 0 {
		return tools
	}
	return addTools(tools, search)
}

// addTools appends to tools each of more whose slug tools lacks, in order.
func addTools(tools, more []schema.Function) []schema.Function {
	for _, f := range more {
		if !slices.ContainsFunc(tools, func(g schema.Function) bool { return g.Slug == f.Slug }) {
			tools = append(tools, f)
		}
	}
	return tools
}

// offer returns the function definitions of the named tools that this executor would run
// for its scope, in the order given, each once: active platform tools of its registry the
// scope may call, and catalogue actions the scope may call, rendered as the executor
// validates them (its Validation mode and Overrides, without the parameters the host
// fills). A name left out is in skipped with the reason. The error is ctx's, or that of
// an access check that could not be made.
func (e *Executor) offer(ctx context.Context, names []string) (fns []schema.Function, skipped map[string]string, err error) {
	skip := func(name, why string) {
		if skipped == nil {
			skipped = map[string]string{}
		}
		skipped[name] = why
	}
	for _, name := range names {
		if slices.ContainsFunc(fns, func(f schema.Function) bool { return f.Slug == name }) {
			continue
		}
		p, res, ok := e.resolve(ctx, name)
		if !ok {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("executor: %w", err)
			}
			skip(name, res.ForModel())
			continue
		}
		d, err := e.permitted(ctx, p)
		if err != nil {
			return nil, nil, fmt.Errorf("executor: access %s: %w", name, err)
		}
		if !d.Allowed {
			skip(name, d.Reason)
			continue
		}
		fn, err := e.function(p)
		if err != nil {
			skip(name, "its schema is unusable: "+err.Error())
			continue
		}
		fns = append(fns, fn)
	}
	return fns, skipped, nil
}

// function is the definition of the tool p as the executor checks its calls: a platform
// tool's registered definition, or an action rendered in the executor's validation mode,
// with its overrides and without the parameters the host fills.
func (e *Executor) function(p *prepared) (schema.Function, error) {
	if p.tool.Kind != registry.ToolAction {
		fn, ok := e.cfg.Registry.Function(p.spec.Name)
		if !ok {
			return schema.Function{}, fmt.Errorf("%s is not registered", p.spec.Name)
		}
		return fn, nil
	}
	return schema.Convert(p.action.Slug, p.action.Description, p.action.Parameters, schema.ConvertOptions{
		Mode: e.cfg.Validation, Overrides: e.cfg.Overrides, Hidden: registry.HostFilledParams(p.action.App)})
}
