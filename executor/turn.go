package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// Turn is one chatbot turn for RunTurn: a user's message and what the model may use to
// answer it. It is a plain value, safe to copy and to read from several goroutines.
type Turn struct {
	// Prompt is the user's message. Required.
	Prompt string
	// System is a system prompt placed first. Optional.
	System string
	// History are earlier messages of the conversation, placed before the prompt.
	// Optional.
	History []Message
	// Hints is the catalogue store the turn's hint is built from (chatbot mode). Optional:
	// without it no hint is sent and no action is offered, only Platform.
	Hints hint.Store
	// HintBuilder builds that hint: one with a hint.Config.Observer traces it. Optional.
	// Defaults to hint.Build's shared builder. Its Config.SearchTool is not needed: the
	// turn sets Request.SearchTool itself when the executor can run search_tools.
	HintBuilder *hint.Builder
	// Platform adds the executor's active platform tools of these categories (all of them
	// when the slice is empty but not nil). Optional: nil adds none beyond the meta-tools
	// the hint points at.
	Platform []registry.Category
	// MaxTurns bounds the model calls of the turn. Optional. Defaults to DefaultMaxTurns.
	MaxTurns int
	// Timeout bounds the whole turn: hint, model calls and tool calls. Optional. Zero
	// means only ctx bounds it.
	Timeout time.Duration
	// Batch tunes the execution of each model turn's tool calls.
	Batch BatchOptions
}

// TurnResult is what RunTurn did. It belongs to the caller.
type TurnResult struct {
	// Final is the content of the model's last message: the answer, when the error is nil.
	Final string
	// Messages is the whole conversation, the model's and tools' messages included.
	Messages []Message
	// Turns is the number of model calls made.
	Turns int
	// Results are every tool result, in order.
	Results []Result
	// Hint is the hint that was built (empty without Turn.Hints).
	Hint hint.Result
	// Tools are the functions offered to the model: the hint's actions the scope may call,
	// the meta-tools the hint points at, then the Platform tools.
	Tools []schema.Function
	// Skipped names the hint's actions left out of Tools, with the reason (not allowed,
	// unusable schema).
	Skipped map[string]string
}

// RunTurn runs one chatbot turn: it builds the hint for the prompt (chatbot mode, for the
// executor's scope), offers the model the hint's actions the scope may call, the
// meta-tools the hint points at and the Platform tools, then loops: the model answers, its
// tool calls run (in parallel, as a batch), and their results go back to the model, until
// the model answers without tool calls, MaxTurns model calls were made (ErrMaxTurns) or
// the Timeout or ctx ends. It shares RunStep's engine: the same batches, the same skipped
// calls on the last allowed turn, the same "required" tool choice on the first turn when
// the hint says the model MUST call an action.
//
// What the model is told and what it is given agree: the hint names search_tools only
// when the executor's registry holds it, active and allowed for the scope (register the
// Router's Tools there), and then the turn offers it with the hint's actions; every action
// the hint lists that the scope may not call is left out of the tools and named in
// TurnResult.Skipped. Actions are rendered as the executor validates them.
//
// Tool failures are results the model sees, not errors. RunTurn returns an error when the
// hint cannot be built (hint.ErrNoApps for an agent without usable apps,
// hint.ErrStoreUnavailable), the model fails, the turns run out, or the Timeout or ctx
// ends (the error wraps context.DeadlineExceeded or ctx's error); TurnResult then holds
// what happened so far.
func (e *Executor) RunTurn(ctx context.Context, llm LLM, turn Turn) (TurnResult, error) {
	var res TurnResult
	if llm == nil {
		return res, fmt.Errorf("%w: run turn: nil LLM", ErrInvalidConfig)
	}
	if turn.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, turn.Timeout)
		defer cancel()
	}
	if _, ok := promptFrom(ctx); !ok {
		ctx = WithPrompt(ctx, turn.Prompt) // what a UsageRecorder learns from
	}
	choice := ToolChoiceAuto
	if turn.Hints != nil {
		req := e.cfg.Scope.Request(turn.Prompt)
		search, err := e.searchOffer(ctx, &req)
		if err != nil {
			return res, fmt.Errorf("executor: run turn: %w", err)
		}
		h, err := buildHint(ctx, turn.HintBuilder, turn.Hints, req)
		if err != nil {
			return res, fmt.Errorf("executor: run turn: hint: %w", err)
		}
		res.Hint = h
		if h.Confident {
			choice = ToolChoiceRequired
		}
		if res.Tools, res.Skipped, err = e.offer(ctx, h.MatchedActions); err != nil {
			return res, fmt.Errorf("executor: run turn: %w", err)
		}
		res.Tools = withSearch(res.Tools, search, h)
	}
	if turn.Platform != nil && e.cfg.Registry != nil {
		res.Tools = addTools(res.Tools, e.cfg.Registry.Functions(turn.Platform...))
	}
	msgs := opening(turn.System, res.Hint.Text, turn.History, turn.Prompt)
	l := loop{tools: res.Tools, choice: choice, max: turn.MaxTurns, batch: turn.Batch, op: "run turn", unit: "turn", messages: msgs}
	err := e.converse(ctx, llm, &l)
	res.Messages, res.Final, res.Turns, res.Results = l.messages, l.final, l.calls, l.results
	return res, err
}
