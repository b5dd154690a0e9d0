// Package cachetest is the conformance suite of cache.Store: the behaviour every store
// (cache.Memory, cache.Postgres, a host's own) must show, checked the same way for each.
//
// A store's test calls Run with a function that returns a fresh, empty store:
//
//	func TestConformance(t *testing.T) {
//		cachetest.Run(t, func(t *testing.T) cache.Store { return cache.NewMemory() })
//	}
//
// Every subtest gets its own store, so subtests may run in any order. RoundTrip checks that a
// full catalogue snapshot survives import and export unchanged. RunPlugins is the suite of
// cache.PluginStore (plugins, workspace enablement, agent assignment).
//
// Beyond what the doc comments of cache.Store say, the suite pins down these behaviours:
//
//   - Slugs are normalised on every call: app slugs lower case, action slugs upper case,
//     surrounding spaces trimmed; letters, digits, '_' and '-' only (else ErrInvalid).
//   - Apply refuses a batch whose apps or actions repeat a slug (after normalisation) with
//     ErrConflict, and everything else it refuses with ErrInvalid; a refused batch changes
//     nothing and returns a zero ApplyResult. Deleting what does not exist is not an error
//     and is not counted. Empty Parameters are stored as {"type":"object","properties":{}}.
//     Parameters and Response come back byte for byte. App.ActionCount counts stored actions.
//     Stores order slugs byte-wise (as Go compares strings, "google_drive" before
//     "googlecalendar"), not by a locale collation.
//   - ActionMeta ignores apps it does not know; each ActionMeta has Action and App set to the
//     action's slug and app whatever the classifier returned.
//   - Negative limits or offsets are ErrInvalid; limits over 1000 are cut to 1000.
//   - AppTriggers and AppActions of an unknown app, and SaveEnabledActions and SetAppEnabled
//     for one, are ErrNotFound; a slug that is not an action of the app is ErrInvalid.
//     AppActions reports the per-action state only (SetAppEnabled does not change it).
//     An empty enabled list (none enabled) stays apart from nil (all enabled).
//   - AssignApp and AddConnection do not require the app to be in the catalogue; agent IDs
//     must be positive, workspace IDs non-empty.
//   - SetConnectionStatus to an unknown status is ErrInvalid, a refused move ErrTransition;
//     becoming active sets ConnectedAt; an empty connectedAccountID keeps the stored one.
//     Connections across workspaces are ordered by app, then workspace.
//   - FinishSyncJob sets FinishedAt itself; finishing twice is ErrConflict, a status other
//     than succeeded, failed or cancelled ErrInvalid. Job IDs increase.
//   - A cancelled context makes every method return an error wrapping context.Canceled and
//     change nothing.
package cachetest
