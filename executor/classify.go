package executor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// resultError carries a failed Result through a tool that ran a call of its own (the
// router's execute_tool), so the outer call keeps the inner call's kind, text and error.
type resultError struct{ res Result }

func (e *resultError) Error() string { return e.res.Error }
func (e *resultError) Unwrap() error { return e.res.Err }

// classify turns a tool error into a kind and a sentence for the model: what happened and
// what to do, with the service's own message but without HTTP methods, request paths or
// request ids (the Result's Err keeps those, for ForUI and logs).
func classify(ctx context.Context, tool Tool, err error) (ErrorKind, string) {
	name := tool.Name
	var tp *toolPanic
	var te *timeoutError
	var re *resultError
	switch {
	case errors.As(err, &re):
		return re.res.ErrorKind, re.res.Error
	case errors.As(err, &tp):
		return KindPanic, fmt.Sprintf("%s failed with an internal error (it panicked: %v)", name, tp.value)
	case errors.As(err, &te):
		return KindTimeout, te.Error() + "; try again later or with a smaller request"
	case ctx.Err() != nil:
		return KindCancelled, fmt.Sprintf("%s was cancelled: %v", name, ctx.Err())
	}
	msg := publicText(err)
	var st interface{ HTTPStatus() int }
	status := 0
	if errors.As(err, &st) {
		status = st.HTTPStatus()
	}
	var rc interface{ NeedsReconnect() bool }
	reconnect := errors.As(err, &rc) && rc.NeedsReconnect()
	switch {
	case timedOut(err):
		return KindTimeout, fmt.Sprintf("%s timed out (%s); try again later or with a smaller request", name, msg)
	case status == http.StatusTooManyRequests:
		return KindRateLimited, fmt.Sprintf("%s was rate limited by the service (%s); wait before calling it again", name, msg)
	case reconnect:
		app := tool.App
		if app == "" {
			app = "service"
		}
		return KindAuthRequired, fmt.Sprintf("%s cannot run until the user reconnects their %s account (%s); ask the user to reconnect it", name, app, msg)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return KindForbidden, fmt.Sprintf("%s was refused by the service (%s)", name, msg)
	case status == http.StatusNotFound || status == http.StatusGone:
		return KindNotFound, fmt.Sprintf("%s is not available at the service (%s); use another tool", name, msg)
	case status == http.StatusBadRequest:
		return KindInvalidArguments, fmt.Sprintf("the service refused the arguments for %s (%s); fix them and call %s again", name, msg, name)
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500 && status <= 599,
		errors.Is(err, ErrTransient), temporary(err):
		return KindTransient, fmt.Sprintf("%s failed with a temporary error (%s); try again later", name, msg)
	}
	return KindToolError, fmt.Sprintf("%s failed: %s", name, msg)
}

func temporary(err error) bool {
	var tmp interface{ Temporary() bool }
	return errors.As(err, &tmp) && tmp.Temporary()
}

// Patterns of what the model must not see in an error: a request line or URL
// ("POST /api/v3.1/tools/execute/X", Post "https://…"), a request id, a package prefix.
var (
	requestRE   = regexp.MustCompile(`(?i)\b(?:get|post|put|patch|delete|head|options)\s+"?(?:https?://[^\s"]+|/[^\s"]*)"?:?\s*`)
	urlRE       = regexp.MustCompile(`"?https?://[^\s"]*[^\s".,:;)]"?`)
	requestIDRE = regexp.MustCompile(`(?i)\s*\[?\b(?:x-)?request[ _-]?id\b[\s:=]*[\w.:-]+\]?`)
	prefixRE    = regexp.MustCompile(`^composio: (?:tool error: )?`)
)

// publicText returns an error's text fit for the model: the error's PublicMessage when it
// has one, otherwise its text with request lines, request ids and package prefixes
// ("composio: ") taken out and URLs said as "the URL", so the sentence still reads. Its
// length is bounded with the rest of the Result's error, when the call completes
// (Result.bounded).
func publicText(err error) string {
	var pm interface{ PublicMessage() string }
	msg := ""
	if errors.As(err, &pm) {
		msg = pm.PublicMessage()
	} else {
		msg = err.Error()
		msg = requestRE.ReplaceAllString(msg, "")
		msg = urlRE.ReplaceAllString(msg, "the URL")
		msg = requestIDRE.ReplaceAllString(msg, "")
		msg = prefixRE.ReplaceAllString(strings.TrimSpace(msg), "")
	}
	msg = strings.TrimSpace(msg)
	if msg == "" {
		msg = "no reason given"
	}
	return msg
}
