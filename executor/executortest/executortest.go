// Package executortest provides fakes for testing code that uses package executor: a
// ScriptedLLM that plays back a fixed conversation and records what it was sent.
package executortest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/toolhint/toolhint/executor"
)

// ErrScriptDone is returned by ScriptedLLM.Complete when every turn has been played.
var ErrScriptDone = errors.New("executortest: script has no more turns")

// Turn produces one assistant message from the request the model got.
type Turn func(req executor.LLMRequest) (executor.Message, error)

// Say is a turn that answers with text and no tool calls.
func Say(content string) Turn {
	return func(executor.LLMRequest) (executor.Message, error) {
		return executor.Message{Role: executor.RoleAssistant, Content: content}, nil
	}
}

// CallTools is a turn that asks for the given tool calls.
func CallTools(calls ...executor.Call) Turn {
	return func(executor.LLMRequest) (executor.Message, error) {
		return executor.Message{Role: executor.RoleAssistant, ToolCalls: slices.Clone(calls)}, nil
	}
}

// Fail is a turn whose model call fails with err.
func Fail(err error) Turn {
	return func(executor.LLMRequest) (executor.Message, error) { return executor.Message{}, err }
}

// Call builds a tool call; args must be JSON (it is not checked, so tests can send bad JSON).
func Call(id, name, args string) executor.Call {
	return executor.Call{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// ScriptedLLM is an executor.LLM that plays its turns in order, one per Complete, and
// records every request. It is safe for concurrent use.
type ScriptedLLM struct {
	mu    sync.Mutex
	turns []Turn
	next  int
	reqs  []executor.LLMRequest
}

// NewScriptedLLM returns a ScriptedLLM that plays turns.
func NewScriptedLLM(turns ...Turn) *ScriptedLLM {
	return &ScriptedLLM{turns: turns}
}

// Complete plays the next turn. It returns ctx.Err() when ctx is done and ErrScriptDone
// after the last turn.
func (s *ScriptedLLM) Complete(ctx context.Context, req executor.LLMRequest) (executor.Message, error) {
	if err := ctx.Err(); err != nil {
		return executor.Message{}, err
	}
	s.mu.Lock()
	req.Messages = slices.Clone(req.Messages)
	req.Tools = slices.Clone(req.Tools)
	s.reqs = append(s.reqs, req)
	if s.next >= len(s.turns) {
		s.mu.Unlock()
		return executor.Message{}, fmt.Errorf("%w (%d played)", ErrScriptDone, len(s.turns))
	}
	t := s.turns[s.next]
	s.next++
	s.mu.Unlock()
	return t(req)
}

// Requests returns the requests received so far, in order.
func (s *ScriptedLLM) Requests() []executor.LLMRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Remaining returns how many turns have not been played.
func (s *ScriptedLLM) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) - s.next
}
