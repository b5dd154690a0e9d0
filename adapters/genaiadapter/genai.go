// Package genaiadapter connects toolhint to Google's official Gen AI SDK
// (google.golang.org/genai), so that a host passes toolhint's tools to Gemini and the
// model's function calls to the executor without conversion code of its own.
//
// For a host that drives its own loop: [Tool] turns schema.Function values into one
// genai.Tool of function declarations; [Calls] turns a response's function calls into
// executor.Call values; [FunctionResponses] turns the results into the content that answers
// them; [HintTool] goes from a hint (chatbot mode) to the tool in one call, through a
// registry.Resolver that checks what the agent may call and hides the identity keys. For
// executor.RunStep, [New] returns an executor.LLM over the SDK's client.
package genaiadapter

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/genai"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/internal/adapterwire"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// ErrConfig reports a constructor argument the adapter cannot work with.
var ErrConfig = errors.New("genaiadapter: invalid config")

// Declaration returns fn as a Gemini function declaration, its parameters in Gemini's
// OpenAPI subset (schema.Function.Gemini).
func Declaration(fn schema.Function) (*genai.FunctionDeclaration, error) {
	raw, err := fn.Gemini()
	if err != nil {
		return nil, fmt.Errorf("genaiadapter: function %q: %w", fn.Slug, err)
	}
	var d genai.FunctionDeclaration
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("genaiadapter: function %q: %w", fn.Slug, err)
	}
	return &d, nil
}

// Tool returns fns as one genai.Tool holding their declarations, in order, or nil for no
// functions (Gemini refuses a tool without declarations).
func Tool(fns []schema.Function) (*genai.Tool, error) {
	if len(fns) == 0 {
		return nil, nil
	}
	t := &genai.Tool{FunctionDeclarations: make([]*genai.FunctionDeclaration, 0, len(fns))}
	for _, fn := range fns {
		d, err := Declaration(fn)
		if err != nil {
			return nil, err
		}
		t.FunctionDeclarations = append(t.FunctionDeclarations, d)
	}
	return t, nil
}

// HintTool goes from a hint to a Gemini tool in one call: the actions of h that sub may
// call, access-checked and rendered by r (registry.Resolver.Functions: the executor's
// validation mode and overrides, identity keys hidden), as Tool returns them (nil when none
// is kept). The Resolution says which actions were kept and why any was left out. It fails
// with ErrConfig for a nil resolver, and otherwise as Functions and Tool do.
func HintTool(ctx context.Context, r *registry.Resolver, sub registry.Subject, h hint.Result) (*genai.Tool, registry.Resolution, error) {
	res, err := adapterwire.HintFunctions(ctx, r, sub, h, ErrConfig)
	if err != nil {
		return nil, res, err
	}
	tool, err := Tool(res.Functions)
	return tool, res, err
}

// Calls returns the function calls of a response's first candidate as executor calls, in
// order. Gemini often sends calls without ids: those keep an empty ID (the executor numbers
// them), and FunctionResponses answers them by name and order.
func Calls(resp *genai.GenerateContentResponse) []executor.Call {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
		return nil
	}
	var out []executor.Call
	for _, p := range resp.Candidates[0].Content.Parts {
		if p == nil || p.FunctionCall == nil {
			continue
		}
		args, err := json.Marshal(p.FunctionCall.Args)
		if err != nil || p.FunctionCall.Args == nil {
			args = json.RawMessage("{}")
		}
		out = append(out, executor.Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: args})
	}
	return out
}

// FunctionResponses returns the user content answering calls with their results (the
// results of ExecuteBatch(calls), in the same order): one function response part per
// result, with the call's id and name, {"output": data} when it succeeded and
// {"error": message} when it failed.
func FunctionResponses(calls []executor.Call, results []executor.Result) *genai.Content {
	parts := make([]*genai.Part, len(results))
	for i, r := range results {
		id, name := r.CallID, schema.FunctionName(r.Tool)
		if i < len(calls) {
			id, name = calls[i].ID, calls[i].Name
		}
		parts[i] = &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: id, Name: name, Response: response(r)}}
	}
	return genai.NewContentFromParts(parts, genai.RoleUser)
}

func response(r executor.Result) map[string]any {
	if !r.OK {
		return map[string]any{"error": r.ForModel()}
	}
	var v any
	if d := bytes.TrimSpace(r.Data); len(d) > 0 && json.Unmarshal(d, &v) == nil {
		return map[string]any{"output": v}
	}
	return map[string]any{"output": r.ForModel()}
}

// ContentGenerator is the part of the SDK's models service the adapter calls;
// *genai.Models (client.Models) satisfies it.
type ContentGenerator interface {
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
}

// Config configures New. It is copied by New.
type Config struct {
	// Model is the model to call, e.g. "gemini-2.5-flash". Required.
	Model string
	// Prepare may change each request's config before it is sent (temperature, thinking,
	// safety settings, …). Optional. It must be safe for concurrent use.
	Prepare func(*genai.GenerateContentConfig)
	// OnResponse sees every response, before it is converted: read resp.UsageMetadata for
	// the tokens each turn used. Optional. It must be safe for concurrent use.
	OnResponse func(ctx context.Context, resp *genai.GenerateContentResponse)
}

// maxSignatures bounds the thought signatures an LLM remembers.
const maxSignatures = 4096

// LLM is an executor.LLM over the Gemini API. Gemini decides itself whether to make several
// function calls in a turn. It is safe for concurrent use when its ContentGenerator is (the
// SDK's is).
//
// Thinking models sign their function calls and want the signature back with the call in
// later turns; executor messages have no place for it, so the LLM remembers the signatures
// of the last 4096 calls by call id and puts them back.
type LLM struct {
	svc ContentGenerator
	cfg Config

	mu    sync.Mutex
	sigs  map[string][]byte
	order []string
}

var _ executor.LLM = (*LLM)(nil)

// New returns an executor.LLM that calls svc (usually client.Models). It fails with
// ErrConfig without svc or a model.
func New(svc ContentGenerator, cfg Config) (*LLM, error) {
	if svc == nil {
		return nil, fmt.Errorf("%w: nil models service", ErrConfig)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("%w: no model", ErrConfig)
	}
	return &LLM{svc: svc, cfg: cfg, sigs: map[string][]byte{}}, nil
}

// Complete sends one turn: system messages as the system instruction, the rest as user and
// model contents (consecutive function responses in one user content), the tool and the
// function-calling mode; and returns the first candidate as an assistant message. Calls
// that came without an id get one, so that their responses can be matched.
func (l *LLM) Complete(ctx context.Context, req executor.LLMRequest) (executor.Message, error) {
	tool, err := Tool(req.Tools)
	if err != nil {
		return executor.Message{}, err
	}
	system, contents := l.contents(req.Messages)
	cfg := &genai.GenerateContentConfig{SystemInstruction: system}
	if tool != nil {
		cfg.Tools = []*genai.Tool{tool}
		mode := genai.FunctionCallingConfigModeAuto
		switch req.ToolChoice {
		case executor.ToolChoiceRequired:
			mode = genai.FunctionCallingConfigModeAny
		case executor.ToolChoiceNone:
			mode = genai.FunctionCallingConfigModeNone
		}
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: mode}}
	}
	if l.cfg.Prepare != nil {
		l.cfg.Prepare(cfg)
	}
	resp, err := l.svc.GenerateContent(ctx, l.cfg.Model, contents, cfg)
	if err != nil {
		return executor.Message{}, fmt.Errorf("genaiadapter: generate content: %w", err)
	}
	if l.cfg.OnResponse != nil {
		l.cfg.OnResponse(ctx, resp)
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
		reason := "no candidates"
		if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
			reason = "prompt blocked: " + string(resp.PromptFeedback.BlockReason)
		}
		return executor.Message{}, errors.New("genaiadapter: generate content: " + reason)
	}
	out := executor.Message{Role: executor.RoleAssistant}
	for _, p := range resp.Candidates[0].Content.Parts {
		switch {
		case p == nil:
		case p.FunctionCall != nil:
			id := p.FunctionCall.ID
			if id == "" {
				id = newCallID()
			}
			args, err := json.Marshal(p.FunctionCall.Args)
			if err != nil || p.FunctionCall.Args == nil {
				args = json.RawMessage("{}")
			}
			if len(p.ThoughtSignature) > 0 {
				l.remember(id, p.ThoughtSignature)
			}
			out.ToolCalls = append(out.ToolCalls, executor.Call{ID: id, Name: p.FunctionCall.Name, Arguments: args})
		case p.Text != "" && !p.Thought:
			out.Content += p.Text
		}
	}
	return out, nil
}

func newCallID() string {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return "call_" + hex.EncodeToString(b[:])
}

func (l *LLM) remember(id string, sig []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.sigs[id]; !ok {
		l.order = append(l.order, id)
	}
	l.sigs[id] = sig
	for len(l.order) > maxSignatures {
		delete(l.sigs, l.order[0])
		l.order = l.order[1:]
	}
}

func (l *LLM) signature(id string) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sigs[id]
}

// contents returns a conversation as Gemini wants it: system messages, in order, as the
// system instruction, and the rest as user and model contents in which consecutive
// messages of the same side are merged.
func (l *LLM) contents(msgs []executor.Message) (*genai.Content, []*genai.Content) {
	var system *genai.Content
	var out []*genai.Content
	add := func(role string, parts ...*genai.Part) {
		if len(parts) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Parts = append(out[n-1].Parts, parts...)
			return
		}
		out = append(out, &genai.Content{Role: role, Parts: parts})
	}
	for _, m := range msgs {
		switch m.Role {
		case executor.RoleSystem:
			if m.Content == "" {
				continue
			}
			if system == nil {
				system = &genai.Content{}
			}
			system.Parts = append(system.Parts, genai.NewPartFromText(m.Content))
		case executor.RoleTool:
			resp := map[string]any{"output": m.Content}
			if adapterwire.IsErrorResult(m.Content) {
				resp = map[string]any{"error": m.Content}
			} else if v, err := adapterwire.Decode(json.RawMessage(m.Content)); err == nil {
				resp = map[string]any{"output": v}
			}
			add(genai.RoleUser, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: m.ToolCallID, Name: m.Name, Response: resp}})
		case executor.RoleAssistant:
			var parts []*genai.Part
			if m.Content != "" {
				parts = append(parts, genai.NewPartFromText(m.Content))
			}
			for _, tc := range m.ToolCalls {
				args, err := adapterwire.Decode(tc.Arguments)
				if err != nil {
					args = map[string]any{}
				}
				parts = append(parts, &genai.Part{
					FunctionCall:     &genai.FunctionCall{ID: tc.ID, Name: tc.Name, Args: args},
					ThoughtSignature: l.signature(tc.ID),
				})
			}
			add(genai.RoleModel, parts...)
		default:
			if m.Content != "" {
				add(genai.RoleUser, genai.NewPartFromText(m.Content))
			}
		}
	}
	return system, out
}
