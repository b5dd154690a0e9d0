package executor

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolhint/toolhint/schema"
)

// Call is one tool call written by a model: what Execute and ExecuteBatch run, and what an
// assistant Message carries (Message.ToolCalls). It is a plain value, safe to copy and to
// read from several goroutines.
type Call struct {
	// ID is the model's tool-call id. Optional: an empty id becomes "call_<index>" in a
	// batch and "call_0" for Execute. Within a batch, a repeated non-empty id is not run.
	ID string
	// Name is the tool or action the model asked for.
	Name string
	// Arguments is the JSON object of arguments; empty and null mean {}.
	Arguments json.RawMessage
	// Step orders a batch: calls with the same step run in parallel, steps run in
	// ascending order. Calls without a step have step 0 and run first.
	Step int
}

// ErrorKind classifies a failed Result so hosts and models can branch on it. Its values
// are the module's one family of Kind* names; how a tool runs is a registry.ToolKind
// (registry.ToolAction, …) and a part of an agent's context a registry.PartKind.
type ErrorKind string

// Error kinds. The kinds of a tool that ran and failed come from its error (see Remote):
// rate_limited, transient, auth_required, not_found, invalid_arguments (the service
// refused them), forbidden (the service refused the call), timeout and, for any other
// failure, tool_error.
const (
	KindUnknownTool       ErrorKind = "unknown_tool"
	KindInvalidArguments  ErrorKind = "invalid_arguments"
	KindForbidden         ErrorKind = "forbidden"
	KindNeedsConfirmation ErrorKind = "needs_confirmation"
	KindToolError         ErrorKind = "tool_error"
	KindTimeout           ErrorKind = "timeout"
	KindCancelled         ErrorKind = "cancelled"
	KindPanic             ErrorKind = "panic"
	KindSkipped           ErrorKind = "skipped"
	KindDuplicateCall     ErrorKind = "duplicate_call"
	KindClosed            ErrorKind = "closed"
	KindInternal          ErrorKind = "internal"
	// KindRateLimited: the service said too many requests (429); wait before retrying.
	KindRateLimited ErrorKind = "rate_limited"
	// KindTransient: a temporary failure (5xx, a dropped connection); try again later.
	KindTransient ErrorKind = "transient"
	// KindAuthRequired: the user's connection to the app is missing or unusable; the user
	// must reconnect it.
	KindAuthRequired ErrorKind = "auth_required"
	// KindNotFound: the service does not know the tool (404, or 410 for a removed one).
	KindNotFound ErrorKind = "not_found"
)

// Result is the outcome of one call. Every call of a batch gets exactly one Result.
// A Result is a value; it is safe to share once returned.
type Result struct {
	CallID string
	// Tool is the resolved tool or action name (the name as called when it is unknown).
	Tool string
	Step int
	// OK is true when the tool ran and returned without error.
	OK bool
	// Data is the tool's output as JSON (non-JSON output is carried as a JSON string);
	// nil when the tool did not run.
	Data json.RawMessage
	// Error is a model-readable sentence when OK is false. It carries no request method,
	// path or request id; Err keeps those.
	Error     string
	ErrorKind ErrorKind
	// Err is the Go error behind a failure, for errors.Is and errors.As: the tool's or the
	// Remote's own error (a *composio.APIError, a *composio.ToolError, …), the context's
	// error for a cancellation or a timeout (context.Canceled, context.DeadlineExceeded),
	// a *schema.ValidationError for arguments that do not match the schema, a hook's or the
	// confirmation function's error. It is nil when OK is true, and for refusals that have
	// no error behind them (an unknown tool, a permission the agent lacks).
	Err error
	// Suggestions names the closest real tools when Kind is KindUnknownTool.
	Suggestions []string
	// Coerced lists the argument coercions applied (for example "/count: string -> integer").
	Coerced []string
	// Stripped lists the runtime-context keys removed from the arguments.
	Stripped []string
	// Notices are short sentences for the model about a call that ran anyway, such as an
	// argument the tool does not declare ("`titel` is not a parameter of X; did you mean
	// `title`?"). ForModel appends them.
	Notices []string
	// Duration is the wall time of the call, hooks included.
	Duration time.Duration
	// Truncated is true when Data was cut to the size limit.
	Truncated bool
	// Attempts is how many times the tool ran (0 when it did not run).
	Attempts int
}

// Envelope is the standard, serialisable shape of a Result. It is a plain value, safe to copy and to read from several goroutines.
type Envelope struct {
	Tool       string          `json:"tool"`
	CallID     string          `json:"call_id,omitempty"`
	OK         bool            `json:"ok"`
	Data       json.RawMessage `json:"data,omitempty"`
	Error      string          `json:"error,omitempty"`
	ErrorKind  ErrorKind       `json:"error_kind,omitempty"`
	DurationMS float64         `json:"duration_ms"`
	Truncated  bool            `json:"truncated"`
	Attempts   int             `json:"attempts"`
	Notices    []string        `json:"notices,omitempty"`
}

// Envelope returns r in the standard envelope shape {tool, ok, data, error, duration,
// truncated, attempts}.
func (r Result) Envelope() Envelope {
	return Envelope{
		Tool:       r.Tool,
		CallID:     r.CallID,
		OK:         r.OK,
		Data:       r.Data,
		Error:      r.Error,
		ErrorKind:  r.ErrorKind,
		DurationMS: float64(r.Duration.Microseconds()) / 1000,
		Truncated:  r.Truncated,
		Attempts:   r.Attempts,
		Notices:    r.Notices,
	}
}

// UIResult is a Result shaped for a user interface: a status, a one-line summary and the
// structured data to render. It is a plain value, safe to copy and to read from several goroutines.
type UIResult struct {
	CallID  string          `json:"call_id"`
	Tool    string          `json:"tool"`
	Step    int             `json:"step"`
	Status  string          `json:"status"` // "success" or "error"
	Summary string          `json:"summary"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
	// Detail is the full text of the error behind a failure (Result.Err), with what the
	// model is not shown: the request's method and path, a request id.
	Detail      string    `json:"detail,omitempty"`
	ErrorKind   ErrorKind `json:"error_kind,omitempty"`
	Suggestions []string  `json:"suggestions,omitempty"`
	DurationMS  float64   `json:"duration_ms"`
	Truncated   bool      `json:"truncated"`
	Attempts    int       `json:"attempts"`
	Notices     []string  `json:"notices,omitempty"`
}

// ForUI returns r shaped for a user interface. A failure's Summary is the whole reason on
// one line, and Detail the text of the error behind it.
func (r Result) ForUI() UIResult {
	u := UIResult{
		CallID:      r.CallID,
		Tool:        r.Tool,
		Step:        r.Step,
		Status:      "success",
		Data:        r.Data,
		Error:       r.Error,
		ErrorKind:   r.ErrorKind,
		Suggestions: r.Suggestions,
		DurationMS:  float64(r.Duration.Microseconds()) / 1000,
		Truncated:   r.Truncated,
		Attempts:    r.Attempts,
		Notices:     r.Notices,
	}
	if !r.OK {
		u.Status = "error"
		u.Summary = oneLine(r.Error)
		if !strings.HasPrefix(u.Summary, r.Tool) {
			u.Summary = r.Tool + " failed: " + u.Summary
		}
		if r.Err != nil {
			u.Detail = r.Err.Error()
		}
		return u
	}
	u.Summary = r.Tool + " succeeded" + shapeSummary(r.Data)
	if r.Truncated {
		u.Summary += " (truncated)"
	}
	return u
}

// ForModel returns r as compact text for a tool message: the data itself when the call
// succeeded (a JSON string is unquoted), or "error (<kind>): <message>" with suggestions
// when it failed; the notices, if any, follow on a line of their own. The error text is
// Result.Error as it is: the executor bounds it when it makes a Result.
func (r Result) ForModel() string {
	text := r.modelText()
	if len(r.Notices) == 0 {
		return text
	}
	return text + "\nNote: " + strings.Join(r.Notices, " ")
}

// maxErrorBytes bounds Result.Error, and with it the error text ForModel writes: what a
// model is told of a failure stays a few KB whatever a tool, a service or the arguments
// said. Result.bounded is the one place it is applied.
const maxErrorBytes = 3 << 10

// boundText returns s cut to at most about n bytes by taking out its middle, so that what
// failed (the start) and what to do (the end) both stay; the cut says how much went.
func boundText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	tail := len(s) - n/3
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	head := truncateUTF8(s, n-n/3-32)
	return head + " …(" + itoa(tail-len(head)) + " bytes cut)… " + s[tail:]
}

// maxToolBytes is longer than any real tool or action name: a longer Result.Tool is a name
// the model made up, quoted short.
const maxToolBytes = 256

// bounded returns r with its model-facing texts bounded: the error (boundText) and a tool
// name that was never resolved (schema.Excerpt). Every Result the executor makes passes
// through it before anyone sees it.
func (r Result) bounded() Result {
	r.Error = boundText(r.Error, maxErrorBytes)
	if len(r.Tool) > maxToolBytes {
		r.Tool = schema.Excerpt(r.Tool)
	}
	return r
}

func (r Result) modelText() string {
	if r.OK {
		d := bytes.TrimSpace(r.Data)
		if len(d) > 0 && d[0] == '"' {
			var s string
			if json.Unmarshal(d, &s) == nil {
				return s
			}
		}
		if len(d) == 0 {
			return "ok"
		}
		var b bytes.Buffer
		if json.Compact(&b, d) == nil {
			return b.String()
		}
		return string(d)
	}
	var b strings.Builder
	b.WriteString("error (")
	b.WriteString(string(r.ErrorKind))
	b.WriteString("): ")
	b.WriteString(r.Error) // bounded when the executor made r (Result.bounded)
	if len(r.Suggestions) > 0 && !strings.Contains(r.Error, r.Suggestions[0]) {
		b.WriteString(" Did you mean: ")
		b.WriteString(strings.Join(r.Suggestions, ", "))
		b.WriteString("?")
	}
	return b.String()
}

// oneLine puts a multi-line message on one line: its first line, then the others (list
// items without their "- ") joined with "; ".
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) == 1 {
		return s
	}
	rest := make([]string, 0, len(lines)-1)
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- ")); l != "" {
			rest = append(rest, l)
		}
	}
	return strings.TrimSpace(lines[0]) + " " + strings.Join(rest, "; ")
}

// shapeSummary describes the top level of a JSON value in a few words.
func shapeSummary(d json.RawMessage) string {
	d = bytes.TrimSpace(d)
	if len(d) == 0 {
		return ""
	}
	switch d[0] {
	case '[':
		var xs []json.RawMessage
		if json.Unmarshal(d, &xs) == nil {
			return ": " + itoa(len(xs)) + " items"
		}
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(d, &m) == nil {
			return ": object with " + itoa(len(m)) + " fields"
		}
	}
	return ""
}
