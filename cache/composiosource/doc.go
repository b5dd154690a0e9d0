// Package composiosource joins a *composio.Client to the cache's sync: its Source is the
// cache.Source that cache.Sync reads Composio's toolkits and tools from, and the
// cache.AccountSource that cache.RefreshConnections reads connected accounts from.
//
// Packages cache and composio do not import each other, and neither imports this one; a
// host that keeps its catalogue in step with Composio imports all three:
//
//	client, err := composio.New(composio.Config{APIKey: key})
//	…
//	src := composiosource.New(client)
//	report, err := cache.Sync(ctx, store, src, cache.SyncOptions{})
//	…
//	refreshed, err := cache.RefreshConnections(ctx, store, src, cache.RefreshOptions{})
//
// Toolkits become cache.App rows and tools cache.Action rows. A tool's MCP-style hint tags
// (destructiveHint, readOnlyHint, …) give the action's destructive and read-only flags;
// without any hint tag the flags stay unknown. Failures worth another try later (rate
// limits, server errors, dropped connections: the errors whose Temporary method reports
// true) are wrapped with cache.ErrTransient, so the sync retries them after the client's
// own retries gave up; every other failure surfaces as it is.
package composiosource
