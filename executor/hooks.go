package executor

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/toolhint/toolhint/registry"
)

// ErrTransient marks a tool failure worth retrying (a rate limit, a 5xx, a dropped
// connection). Tools and Remote implementations wrap it with %w; errors with a
// Temporary() bool method that returns true count too, as does Config.IsTransient.
var ErrTransient = errors.New("executor: transient failure")

// ErrClosed is returned by Background after Close.
var ErrClosed = errors.New("executor: closed")

// ErrInvalidConfig reports arguments a constructor or RunStep cannot work with, such as a
// Router without a catalogue or a nil LLM.
var ErrInvalidConfig = errors.New("executor: invalid config")

// Tool describes the tool a call resolved to, for hooks and observers. It is a plain value, safe to copy and to read from several goroutines.
type Tool struct {
	// Name is the platform tool name or the Composio action slug.
	Name string
	// Kind is registry.KindPlatform or registry.KindAction.
	Kind registry.ToolKind
	// App is the action's app; empty for platform tools.
	App         string
	ReadOnly    bool
	Idempotent  bool
	Destructive bool
	// Capabilities are the action's capabilities from the catalogue metadata.
	Capabilities []string
}

// ConfirmFunc decides whether a destructive call may run. It gets the call after validation
// and hooks cannot have changed it yet. Returning false refuses the call with
// KindNeedsConfirmation; an error refuses it too and its text is shown to the model.
// It must be safe for concurrent use.
type ConfirmFunc func(ctx context.Context, tool Tool, args json.RawMessage) (bool, error)

// BeforeHook runs after every check passed and before the tool: it may return rewritten
// arguments (nil keeps them). An error refuses the call with KindForbidden. Hooks must be
// safe for concurrent use.
type BeforeHook func(ctx context.Context, tool Tool, args json.RawMessage) (json.RawMessage, error)

// AfterHook runs after the tool, before truncation, and may change the result in place (for
// example to redact a field). Hooks must be safe for concurrent use.
type AfterHook func(ctx context.Context, tool Tool, res *Result)

// Observer receives every call, for metrics or tracing, without a tracing dependency in the
// library. CallStart may return a derived context (carrying a span) that the call runs
// under; CallEnd gets the same context and the final Result. Both must be safe for
// concurrent use and fast: they run on the call's goroutine.
type Observer interface {
	CallStart(ctx context.Context, call Call) context.Context
	CallEnd(ctx context.Context, call Call, res Result)
}

// Remote executes Composio actions. Its one method uses only standard-library types, so
// *composio.Client satisfies it as it is, without either package importing the other; a
// host wraps any other transport with RemoteFunc.
//
// ExecuteAction runs action (a slug such as "GMAIL_SEND_EMAIL") with arguments (the
// validated, stripped, hook-rewritten JSON object) for userID (Scope.UserID, or the
// workspace id), through connectedAccountID and at version when those are not empty, and
// returns the tool's data. A failure worth retrying wraps ErrTransient or has a
// Temporary() bool method that reports true (*composio.APIError for 429 and 5xx does);
// the executor retries it only for read-only or idempotent actions. Any other error,
// such as a tool that ran and failed, is reported to the model as it is.
//
// Implementations must be safe for concurrent use and honour ctx.
type Remote interface {
	ExecuteAction(ctx context.Context, action string, arguments json.RawMessage, userID, connectedAccountID, version string) (json.RawMessage, error)
}

// RemoteRequest is one Composio action execution, as RemoteFunc receives it. It is a plain
// value, safe to copy and to read from several goroutines.
type RemoteRequest struct {
	// Action is the action slug, e.g. "GMAIL_SEND_EMAIL".
	Action string
	// Arguments are the validated, stripped, hook-rewritten arguments.
	Arguments json.RawMessage
	// UserID is the Composio user (entity) id: Scope.UserID, or the workspace id.
	UserID string
	// ConnectedAccountID is the workspace connection's Composio id, when known.
	ConnectedAccountID string
	// Version is the action version from the catalogue, when known.
	Version string
}

// RemoteFunc adapts a function to Remote. It must be safe for concurrent use.
type RemoteFunc func(ctx context.Context, req RemoteRequest) (json.RawMessage, error)

// ExecuteAction calls f with the arguments gathered in a RemoteRequest.
func (f RemoteFunc) ExecuteAction(ctx context.Context, action string, arguments json.RawMessage, userID, connectedAccountID, version string) (json.RawMessage, error) {
	return f(ctx, RemoteRequest{Action: action, Arguments: arguments, UserID: userID, ConnectedAccountID: connectedAccountID, Version: version})
}
