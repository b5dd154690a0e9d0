package composio

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Sentinel errors. Errors returned by a Client wrap them (or are *APIError values that
// match them); test with errors.Is.
var (
	// ErrBadRequest matches an *APIError with status 400: bad parameters or missing arguments.
	ErrBadRequest = errors.New("composio: bad request")
	// ErrUnauthorized matches an *APIError with status 401: a missing or wrong API key.
	ErrUnauthorized = errors.New("composio: unauthorized")
	// ErrForbidden matches an *APIError with status 403.
	ErrForbidden = errors.New("composio: forbidden")
	// ErrNotFound matches an *APIError with status 404: the tool, toolkit, auth config or
	// connected account does not exist.
	ErrNotFound = errors.New("composio: not found")
	// ErrConflict matches an *APIError with status 409.
	ErrConflict = errors.New("composio: conflict")
	// ErrDeprecatedTool matches an *APIError with status 410: the tool is deprecated and no
	// longer available.
	ErrDeprecatedTool = errors.New("composio: tool deprecated")
	// ErrInvalidState matches an *APIError with status 422: the connected account is in a
	// state that does not allow the request.
	ErrInvalidState = errors.New("composio: connected account in an invalid state")
	// ErrRateLimited matches an *APIError with status 429.
	ErrRateLimited = errors.New("composio: rate limited")
	// ErrServer matches an *APIError with a 5xx status.
	ErrServer = errors.New("composio: server error")

	// ErrInvalidResponse reports a response this package could not understand: a body that
	// is not JSON (an HTML page from a proxy), malformed or truncated JSON, or a body larger
	// than Config.MaxResponseBytes. An *APIError built from a non-JSON error body matches it
	// as well as its status sentinel.
	ErrInvalidResponse = errors.New("composio: invalid response")
	// ErrInvalidArgument reports a call this package refuses before sending it: an empty
	// slug, arguments that are not a JSON object, and so on.
	ErrInvalidArgument = errors.New("composio: invalid argument")
	// ErrConfig reports a Config that New cannot use, such as a missing API key.
	ErrConfig = errors.New("composio: invalid config")
	// ErrNoAuthRequired is returned by Client.FindOrCreateAuthConfig for a toolkit whose
	// only auth scheme is NO_AUTH: its tools run with a user id alone, without an auth
	// config or a connected account.
	ErrNoAuthRequired = errors.New("composio: toolkit needs no auth")
	// ErrNoManagedAuth is returned by Client.FindOrCreateAuthConfig when a toolkit has no
	// auth config and no Composio-managed auth scheme, so one cannot be created without
	// the host's own credentials.
	ErrNoManagedAuth = errors.New("composio: toolkit has no composio-managed auth scheme")
	// ErrAccountFailed is returned by Client.WaitForConnection when the connected account
	// reaches a terminal status other than ACTIVE (FAILED, EXPIRED, INACTIVE, REVOKED).
	ErrAccountFailed = errors.New("composio: connected account did not become active")
)

// APIError is a platform failure: a non-2xx response, parsed from the API's error envelope
// {"error":{"message","code","status","request_id","suggested_fix","errors"}}. It matches
// the sentinel for its status with errors.Is. APIError values are immutable once returned
// and safe to share.
type APIError struct {
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// Code is Composio's numeric error code; 0 when the body did not carry one.
	Code int
	// Message is the error message from the body, or a description of the body when it
	// was not the JSON envelope.
	Message string
	// RequestID identifies the request for Composio support: the envelope's request_id,
	// or the x-request-id response header.
	RequestID string
	// SuggestedFix is the API's hint on how to fix the request, when it gave one.
	SuggestedFix string
	// Details lists the envelope's "errors" entries, when present.
	Details []string
	// Method and Path name the request, e.g. "POST" and "/api/v3/tools/execute/GMAIL_SEND_EMAIL".
	Method, Path string

	notJSON    bool
	retryAfter time.Duration
}

// Error implements error. It never contains the API key.
func (e *APIError) Error() string { return e.text(true) }

// text writes the error; full adds the request's method and path, the code and the request
// id, which PublicMessage leaves out.
func (e *APIError) text(full bool) string {
	var b strings.Builder
	if full {
		b.WriteString("composio: ")
		if e.Method != "" {
			fmt.Fprintf(&b, "%s %s: ", e.Method, e.Path)
		}
	}
	fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if full && e.Code != 0 {
		fmt.Fprintf(&b, " (code %d)", e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.SuggestedFix != "" {
		b.WriteString(" (suggested fix: ")
		b.WriteString(e.SuggestedFix)
		b.WriteString(")")
	}
	if full && e.RequestID != "" {
		b.WriteString(" [request_id ")
		b.WriteString(e.RequestID)
		b.WriteString("]")
	}
	return b.String()
}

// Is reports whether target is the sentinel for e's status (ErrNotFound for 404, …), or
// ErrInvalidResponse when the error body was not JSON.
func (e *APIError) Is(target error) bool {
	if target == ErrInvalidResponse {
		return e.notJSON
	}
	return statusSentinel(e.StatusCode) == target && target != nil
}

// Temporary reports whether the failure is worth trying again later: 408, 409, 429 and
// 5xx, the statuses the client itself retries.
func (e *APIError) Temporary() bool {
	return retryableStatus(e.StatusCode)
}

// HTTPStatus returns StatusCode. Callers that must not import this package (the executor)
// read the status through it.
func (e *APIError) HTTPStatus() int { return e.StatusCode }

// RetryAfter returns how long the server asked the client to wait before trying again
// (its retry-after-ms or retry-after header, when between 0 and 60 s); 0 when it did not
// say.
func (e *APIError) RetryAfter() time.Duration { return e.retryAfter }

// NeedsReconnect reports whether the failure is the user's connection to the toolkit: a
// connected account that does not exist (404 naming a connected account) or one in a state
// that does not allow the request (422, ErrInvalidState). The user must connect the account
// again; retrying does not help.
func (e *APIError) NeedsReconnect() bool {
	switch e.StatusCode {
	case http.StatusUnprocessableEntity:
		return true
	case http.StatusNotFound:
		m := strings.ToLower(e.Message)
		return strings.Contains(m, "connected account") || strings.Contains(m, "connected_account") || strings.Contains(m, "connection")
	}
	return false
}

// PublicMessage returns the failure as a sentence fit for an end user or a model: the
// status, the server's message and its suggested fix, without the request's method, path
// or request id (Error keeps those, for logs and support).
func (e *APIError) PublicMessage() string { return e.text(false) }

func statusSentinel(status int) error {
	switch {
	case status == http.StatusBadRequest:
		return ErrBadRequest
	case status == http.StatusUnauthorized:
		return ErrUnauthorized
	case status == http.StatusForbidden:
		return ErrForbidden
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusConflict:
		return ErrConflict
	case status == http.StatusGone:
		return ErrDeprecatedTool
	case status == http.StatusUnprocessableEntity:
		return ErrInvalidState
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status >= 500 && status <= 599:
		return ErrServer
	}
	return nil
}
