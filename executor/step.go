package executor

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ErrMaxTurns is returned by RunStep and RunTurn when the model was still calling tools
// after the maximum number of model turns.
var ErrMaxTurns = errors.New("executor: maximum number of model turns reached")

// Role is who wrote a Message.
type Role string

// Message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of a conversation with a model, in a provider-neutral shape. It is a plain value, safe to copy and to read from several goroutines.
type Message struct {
	Role    Role
	Content string
	// ToolCalls are the calls an assistant message asks for, Name being the function name
	// as offered (see schema.FunctionName; RunStep maps it back to the slug). Step is not
	// used here: the calls of one message run as one batch step.
	ToolCalls []Call
	// ToolCallID and Name identify the call a tool message answers.
	ToolCallID string
	Name       string
}

// ToolCall is the former name of a call in an assistant message, which is now a Call: one
// type for a tool call, whether the model wrote it in a Message or the host hands it to
// Execute.
//
// Deprecated: use Call.
type ToolCall = Call

// ToolChoice tells the model whether it must call a tool.
type ToolChoice string

// Tool choices.
const (
	ToolChoiceAuto     ToolChoice = "auto"
	ToolChoiceRequired ToolChoice = "required"
	ToolChoiceNone     ToolChoice = "none"
)

// LLMRequest is one model turn: the conversation, the functions it may call and whether it
// must call one. An LLM must not modify it.
type LLMRequest struct {
	Messages   []Message
	Tools      []schema.Function
	ToolChoice ToolChoice
}

// LLM is a chat model that can call functions: a conversation and function definitions in,
// one assistant message out. Hosts adapt their provider's SDK; executortest.ScriptedLLM is a
// fake for tests. Implementations must honour ctx.
type LLM interface {
	Complete(ctx context.Context, req LLMRequest) (Message, error)
}

// DefaultMaxTurns bounds the model turns of a step.
const DefaultMaxTurns = 8

// Step is one recipe step for RunStep. It is a plain value, safe to copy and to read from several goroutines.
type Step struct {
	// Prompt is the step's instruction, sent as the user message. Required.
	Prompt string
	// System is a system prompt placed first. Optional.
	System string
	// History are earlier messages placed before the prompt. Optional.
	History []Message
	// Hints is the catalogue store for hint.Build (recipe mode). Optional: without it no
	// hint is added and the tool choice stays "auto".
	Hints hint.Store
	// HintBuilder builds that hint: one with a hint.Config.Observer traces it. Optional.
	// Defaults to hint.Build's shared builder.
	HintBuilder *hint.Builder
	// Resolver turns the prompt into the actions offered to the model. Optional.
	Resolver *registry.Resolver
	// Platform adds the executor's active platform tools of these categories (all of
	// them when the slice is empty but not nil). Optional: nil adds none.
	Platform []registry.Category
	// MaxTurns bounds the model turns. Optional. Defaults to DefaultMaxTurns.
	MaxTurns int
	// Batch tunes the execution of each turn's tool calls.
	Batch BatchOptions
}

// StepResult is what RunStep did. It belongs to the caller.
type StepResult struct {
	// Final is the content of the model's last message.
	Final string
	// Messages is the whole conversation, the model's and tools' messages included.
	Messages []Message
	// Turns is the number of model calls made.
	Turns int
	// Results are every tool result, in order.
	Results []Result
	// Hint is the hint that was built (empty without Step.Hints).
	Hint hint.Result
	// Resolution is what the resolver offered (empty without Step.Resolver).
	Resolution registry.Resolution
	// Tools are the functions offered to the model.
	Tools []schema.Function
}

// RunStep runs one recipe step: it builds a hint in recipe mode, resolves the step's
// actions, then loops, with the engine RunTurn (a chatbot turn) uses too: the model
// answers, its tool calls run (in parallel, as a batch), and their results go back to the
// model, until the model answers without tool calls or MaxTurns is reached (ErrMaxTurns).
// The tool calls of the last allowed turn are not run, since no model turn would read their
// results; they get KindSkipped results. The first turn's tool choice is "required" when
// the hint tells the model it MUST call an action. The hint names search_tools by RunTurn's
// rule: only when the executor's registry holds it, active and allowed for the scope, and
// then the step offers it. Tool failures are results the model sees, not errors; RunStep
// returns an error only when the model fails, ctx ends, or the turns run out, and then the
// StepResult holds what happened so far.
func (e *Executor) RunStep(ctx context.Context, llm LLM, step Step) (StepResult, error) {
	var res StepResult
	if llm == nil {
		return res, fmt.Errorf("%w: run step: nil LLM", ErrInvalidConfig)
	}
	scope := e.cfg.Scope
	if _, ok := promptFrom(ctx); !ok {
		ctx = WithPrompt(ctx, step.Prompt) // what a UsageRecorder learns from
	}
	choice := ToolChoiceAuto
	var platform, search []schema.Function
	if step.Platform != nil && e.cfg.Registry != nil {
		platform = e.cfg.Registry.Functions(step.Platform...)
	}
	if step.Hints != nil {
		req := scope.Request(step.Prompt)
		req.RecipeMode = true
		var err error
		if search, err = e.searchOffer(ctx, &req); err != nil {
			return res, fmt.Errorf("executor: run step: %w", err)
		}
		h, err := buildHint(ctx, step.HintBuilder, step.Hints, req)
		if err != nil {
			return res, fmt.Errorf("executor: run step: hint: %w", err)
		}
		res.Hint = h
		if h.Confident {
			choice = ToolChoiceRequired
		}
	}
	if step.Resolver != nil {
		r, err := step.Resolver.Resolve(ctx, scope.Identity, step.Prompt)
		if err != nil {
			return res, fmt.Errorf("executor: run step: resolve: %w", err)
		}
		res.Resolution = r
		res.Tools = append(res.Tools, r.Functions...)
	}
	res.Tools = addTools(res.Tools, platform)
	res.Tools = withSearch(res.Tools, search, res.Hint)
	msgs := opening(step.System, res.Hint.Text, step.History, step.Prompt)
	l := loop{tools: res.Tools, choice: choice, max: step.MaxTurns, batch: step.Batch, op: "run step", unit: "step", messages: msgs}
	err := e.converse(ctx, llm, &l)
	res.Messages, res.Final, res.Turns, res.Results = l.messages, l.final, l.calls, l.results
	return res, err
}

// buildHint builds the hint for req with b, or with hint.Build's shared builder when b is
// nil.
func buildHint(ctx context.Context, b *hint.Builder, st hint.Store, req hint.Request) (hint.Result, error) {
	if b == nil {
		return hint.Build(ctx, st, req)
	}
	return b.Build(ctx, st, req)
}
