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
	// Kind is registry.ToolPlatform or registry.ToolAction.
	Kind registry.ToolKind
	// App is the action's app; empty for platform tools.
	App         string
	ReadOnly    bool
	Idempotent  bool
	Destructive bool
	// Capabilities are the action's capabilities from the catalogue metadata.
	Capabilities []string
	// CallID is the id of the call being handled, in the Tool that hooks and the
	// confirmation function get; empty elsewhere.
	CallID string
}

// ConfirmFunc decides whether a destructive call may run. It gets the call after access
// checks and validation, before the hooks (tool.CallID names the call; ScopeFrom(ctx) says
// for whom). Returning false refuses the call with KindNeedsConfirmation; an error refuses
// it too and its text is shown to the model; a panic refuses it and is logged. It must be
// safe for concurrent use.
type ConfirmFunc func(ctx context.Context, tool Tool, args json.RawMessage) (bool, error)

// BeforeHook runs after every check passed and before the tool: it may return rewritten
// arguments (nil keeps them). tool.CallID names the call. An error refuses the call with
// KindForbidden; a panic is logged and refuses it with KindInternal. Hooks must be safe for
// concurrent use.
type BeforeHook func(ctx context.Context, tool Tool, args json.RawMessage) (json.RawMessage, error)

// AfterHook runs after the tool, before truncation, and may change the result in place (for
// example to redact a field); res.CallID and tool.CallID name the call. A panic is logged
// and the result kept as the hook left it. Hooks must be safe for concurrent use.
type AfterHook func(ctx context.Context, tool Tool, res *Result)

// Observer receives every call, for metrics or tracing, without a tracing dependency in the
// library. CallStart may return a derived context (carrying a span) that the call runs
// under; CallEnd gets the same context and the final Result. Both must be safe for
// concurrent use and fast: they run on the call's goroutine. A panic in either is logged
// and does not affect the call.
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
// returns the tool's data. The error is kept in Result.Err, and the executor reads these
// optional methods of it (or of an error it wraps), all of which *composio.APIError has:
//
//   - Temporary() bool: true for a failure worth retrying (ErrTransient wrapped with %w
//     counts too); the executor retries it only for read-only or idempotent actions;
//   - HTTPStatus() int: the platform's status, which sets the ErrorKind (429
//     rate_limited, 400 invalid_arguments, 401/403 forbidden, 404/410 not_found, 408,
//     409 and 5xx transient);
//   - RetryAfter() time.Duration: the wait the service asked for before a retry;
//   - NeedsReconnect() bool: the user's connection must be made again (auth_required);
//   - PublicMessage() string: the failure without request paths or ids, for the model;
//   - Timeout() bool: a timeout, retried only when the action opts in.
//
// Any other error, such as a tool that ran and failed, is a tool_error whose text the
// model sees, with request methods, paths and ids taken out.
//
// A Remote that also has ExecuteActionOnce, with the same signature, promises that it
// sends the request once, without retries of its own; the executor calls it instead of
// ExecuteAction when it will retry the action itself, so that one call has one retry
// budget. *composio.Client has it.
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
