package composio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// ExecuteRequest is the input of Client.Execute. Set either Arguments or Text.
type ExecuteRequest struct {
	// Arguments is a JSON object matching the tool's input parameters; nil means {}.
	Arguments json.RawMessage
	// Text is a natural-language task from which the server generates the arguments.
	// It cannot be combined with Arguments.
	Text string
	// UserID is the end user's id; the server resolves the user's connected account for
	// the tool's toolkit. Tools of NO_AUTH toolkits need only this.
	UserID string
	// ConnectedAccountID ("ca_…") selects an account explicitly.
	ConnectedAccountID string
	// Version is the toolkit version ("20250905_00", or "latest"); "" leaves the API default.
	Version string
	// CustomAuthParams, when set, is sent as custom_auth_params: the host's own credentials
	// instead of a connected account. It may hold secrets; this package never logs it.
	CustomAuthParams json.RawMessage
}

// ExecuteResult is the outcome of a tool that ran. Successful is false when the tool
// itself failed (for example the upstream provider answered 4xx); Error then says why.
type ExecuteResult struct {
	Data        json.RawMessage `json:"data"`
	Error       string          `json:"error,omitempty"`
	Successful  bool            `json:"successful"`
	LogID       string          `json:"log_id,omitempty"`
	SessionInfo json.RawMessage `json:"session_info,omitempty"`
}

type executeBody struct {
	Arguments          json.RawMessage `json:"arguments,omitempty"`
	Text               string          `json:"text,omitempty"`
	UserID             string          `json:"user_id,omitempty"`
	ConnectedAccountID string          `json:"connected_account_id,omitempty"`
	Version            string          `json:"version,omitempty"`
	CustomAuthParams   json.RawMessage `json:"custom_auth_params,omitempty"`
}

type executeWire struct {
	Data        json.RawMessage `json:"data"`
	Error       json.RawMessage `json:"error"`
	Successful  *bool           `json:"successful"`
	LogID       string          `json:"log_id"`
	SessionInfo json.RawMessage `json:"session_info"`
}

// Execute runs a tool (POST /tools/execute/{slug}). slug may be in any case or carry
// ToolIDPrefix. A tool-level failure (HTTP 200 with successful false) is returned as a
// result with Successful false and a nil error; a platform failure (4xx/5xx) is an
// *APIError (ErrNotFound for an unknown tool or account, ErrDeprecatedTool for a removed
// tool, ErrInvalidState for an unusable account, …). Executions are retried only when
// they provably did not run, unless RetryPolicy.RetryExecute is set.
func (c *Client) Execute(ctx context.Context, slug string, req ExecuteRequest) (ExecuteResult, error) {
	return c.execute(ctx, slug, req, false)
}

func (c *Client) execute(ctx context.Context, slug string, req ExecuteRequest, once bool) (ExecuteResult, error) {
	slug = NormalizeToolSlug(slug)
	if !validSlug(slug) {
		return ExecuteResult{}, fmt.Errorf("%w: tool slug %q", ErrInvalidArgument, slug)
	}
	body := executeBody{
		Text:               strings.TrimSpace(req.Text),
		UserID:             req.UserID,
		ConnectedAccountID: req.ConnectedAccountID,
		Version:            req.Version,
	}
	if body.Text != "" {
		if nullToNil(req.Arguments) != nil {
			return ExecuteResult{}, fmt.Errorf("%w: execute %s: set Arguments or Text, not both", ErrInvalidArgument, slug)
		}
	} else {
		args, err := rawObject(req.Arguments)
		if err != nil {
			return ExecuteResult{}, fmt.Errorf("composio: execute %s: %w", slug, err)
		}
		body.Arguments = args
	}
	if len(bytes.TrimSpace(req.CustomAuthParams)) > 0 {
		p, err := rawObject(req.CustomAuthParams)
		if err != nil {
			return ExecuteResult{}, fmt.Errorf("%w: execute %s: custom auth params must be a JSON object", ErrInvalidArgument, slug)
		}
		body.CustomAuthParams = p
	}
	var wire executeWire
	err := c.do(ctx, request{method: "POST", path: "/tools/execute/" + url.PathEscape(slug), body: body, execute: true, once: once}, &wire)
	if err != nil {
		return ExecuteResult{}, err
	}
	if wire.Successful == nil {
		return ExecuteResult{}, fmt.Errorf("%w: execute %s: response has no \"successful\" field", ErrInvalidResponse, slug)
	}
	res := ExecuteResult{Data: wire.Data, Successful: *wire.Successful, LogID: wire.LogID, SessionInfo: nullToNil(wire.SessionInfo)}
	res.Error = c.redact(errorText(wire.Error))
	if !res.Successful && res.Error == "" {
		res.Error = "tool reported failure without a message"
	}
	return res, nil
}

// ToolError is a tool that ran and failed (Successful false in the execution result), as
// ExecuteAction reports it. Trying again does not help, so it has no Temporary method.
// ToolError values are immutable once returned and safe to share.
type ToolError struct {
	// Tool is the tool's slug, e.g. "GMAIL_SEND_EMAIL".
	Tool string
	// Message is the tool's own error message (never empty).
	Message string
	// LogID identifies the execution in Composio's logs, when the API gave one.
	LogID string
}

// Error implements error. It carries the tool's message, which the executor shows to the
// model.
func (e *ToolError) Error() string { return "composio: tool error: " + e.Message }

// PublicMessage returns the tool's own message.
func (e *ToolError) PublicMessage() string { return e.Message }

// ExecuteAction runs the tool action with arguments (a JSON object; nil means {}) for
// userID, through connectedAccountID and at version when they are not empty, and returns
// the tool's data. It is Execute shaped for hosts that only pass data through, and it
// makes *Client satisfy executor.Remote without this package importing the executor.
//
// A tool-level failure (Successful false) is a *ToolError carrying the tool's message.
// Platform and connection failures are returned as Execute returns them: an *APIError, or
// a transport error, each with a Temporary method that reports whether trying again later
// may help (429, 5xx and dropped connections do; a 404 or a tool error does not).
func (c *Client) ExecuteAction(ctx context.Context, action string, arguments json.RawMessage, userID, connectedAccountID, version string) (json.RawMessage, error) {
	return c.executeAction(ctx, action, arguments, userID, connectedAccountID, version, false)
}

// ExecuteActionOnce is ExecuteAction sending the request once, whatever the retry policy:
// for a caller that retries itself, so that one call has one retry budget. The executor
// calls it instead of ExecuteAction when it will retry the action (read-only or
// idempotent actions), so a persistent 429 costs its own attempts and no more.
func (c *Client) ExecuteActionOnce(ctx context.Context, action string, arguments json.RawMessage, userID, connectedAccountID, version string) (json.RawMessage, error) {
	return c.executeAction(ctx, action, arguments, userID, connectedAccountID, version, true)
}

func (c *Client) executeAction(ctx context.Context, action string, arguments json.RawMessage, userID, connectedAccountID, version string, once bool) (json.RawMessage, error) {
	res, err := c.execute(ctx, action, ExecuteRequest{
		Arguments:          arguments,
		UserID:             userID,
		ConnectedAccountID: connectedAccountID,
		Version:            version,
	}, once)
	if err != nil {
		return nil, err
	}
	if !res.Successful {
		return nil, &ToolError{Tool: NormalizeToolSlug(action), Message: res.Error, LogID: res.LogID}
	}
	return res.Data, nil
}

// errorText turns the "error" field (null, a string, or any JSON value) into text.
func errorText(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(t, &s) == nil {
		return s
	}
	return string(t)
}

func nullToNil(raw json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return nil
	}
	return raw
}

// ArgumentsRequest is the input of Client.ArgumentsFromText.
type ArgumentsRequest struct {
	Text              string `json:"text"`
	CustomDescription string `json:"custom_description,omitempty"`
	SystemPrompt      string `json:"system_prompt,omitempty"`
	Version           string `json:"version,omitempty"`
}

// ArgumentsResult is the server's translation of a task into tool arguments. Error is set
// when the server could not produce arguments.
type ArgumentsResult struct {
	Arguments json.RawMessage `json:"arguments"`
	Error     string          `json:"-"`
}

// ArgumentsFromText asks the server to turn a natural-language task into arguments for a
// tool (POST /tools/execute/{slug}/input). The arguments are not executed.
func (c *Client) ArgumentsFromText(ctx context.Context, slug string, req ArgumentsRequest) (ArgumentsResult, error) {
	slug = NormalizeToolSlug(slug)
	if !validSlug(slug) {
		return ArgumentsResult{}, fmt.Errorf("%w: tool slug %q", ErrInvalidArgument, slug)
	}
	if strings.TrimSpace(req.Text) == "" {
		return ArgumentsResult{}, fmt.Errorf("%w: arguments from text %s: empty text", ErrInvalidArgument, slug)
	}
	var wire struct {
		Arguments json.RawMessage `json:"arguments"`
		Error     json.RawMessage `json:"error"`
	}
	if err := c.do(ctx, request{method: "POST", path: "/tools/execute/" + url.PathEscape(slug) + "/input", body: req}, &wire); err != nil {
		return ArgumentsResult{}, err
	}
	return ArgumentsResult{Arguments: nullToNil(wire.Arguments), Error: c.redact(errorText(wire.Error))}, nil
}
