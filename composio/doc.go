// Package composio is a client for Composio's REST API v3 and v3.1: toolkits, tools,
// executing a tool, auth configs, connected accounts and tool-router search.
//
// A [Client] is built from a [Config] holding the project API key. It retries the way the
// official SDKs do (two retries on 408, 409, 429, 5xx and connection errors, exponential
// backoff from 0.5 s to 8 s with jitter, honouring retry-after-ms, retry-after and
// x-should-retry), always bounded by the context. Executing a tool is retried only when
// the request provably did not run, unless [RetryPolicy.RetryExecute] opts in.
//
// List endpoints come in three forms: a page method (ToolsPage) that returns one page and
// the cursor of the next, an iterator over every item of every page (Tools), and a collect
// helper (ListTools). Iterators fetch one page at a time, so memory stays bounded by a page.
//
// Failures from the platform are *[APIError] values that match the sentinel errors of this
// package with errors.Is ([ErrNotFound], [ErrRateLimited], [ErrDeprecatedTool], …). A tool
// that ran and failed is not a Go error: [Client.Execute] returns an [ExecuteResult] whose
// Successful field is false. [Client.ExecuteAction], the method executor.Remote declares,
// returns only the tool's data and reports such a failure as a *[ToolError];
// [Client.ExecuteActionOnce] is the same sent once, for a caller that retries itself (the
// executor does, so that one call has one retry budget). An *[APIError] also tells such
// callers its status, the wait the server asked for and whether the user must reconnect,
// and gives a message without the request's path or id ([APIError.PublicMessage]). The
// API key never appears in an error, a log line or a panic.
//
// The tool-id helpers ([ToolSlugFromID], [ToolID], [ToolkitOf], …) convert between the
// "composio-gmail_send_email" form used by hosts and Composio's "GMAIL_SEND_EMAIL" slugs.
//
// A Client is safe for concurrent use. The data types (Tool, Toolkit, Page, …) are plain
// values: safe to read from many goroutines, not to modify while others read them.
//
// Package composiotest provides an httptest fake of the API for tests.
package composio
