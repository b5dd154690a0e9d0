package cachetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
)

// Run runs the conformance suite against the stores newStore returns. newStore must return
// a fresh, empty store that classifies with cache.NewClassifier(nil); it is called once per
// subtest and may register cleanups on the t it is given. Subtests are not run in parallel.
func Run(t *testing.T, newStore func(t *testing.T) cache.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, st cache.Store)
	}{
		{"Apply/New", testApplyNew},
		{"Apply/Unchanged", testApplyUnchanged},
		{"Apply/Update", testApplyUpdate},
		{"Apply/Normalise", testApplyNormalise},
		{"Apply/ByteExact", testApplyByteExact},
		{"Apply/Delete", testApplyDelete},
		{"Apply/MoveAction", testApplyMoveAction},
		{"Apply/Invalid", testApplyInvalid},
		{"Apply/AllOrNothing", testApplyAllOrNothing},
		{"Apply/OddText", testApplyOddText},
		{"OddIdentifiers", testOddIdentifiers},
		{"App", testApp},
		{"ListApps", testListApps},
		{"ListApps/Paging", testListAppsPaging},
		{"AppTriggers", testAppTriggers},
		{"Action", testAction},
		{"Actions", testActions},
		{"AppActions", testAppActions},
		{"AppActions/Enabled", testAppActionsEnabled},
		{"SaveEnabledActions", testSaveEnabledActions},
		{"ToolConfigs", testToolConfigs},
		{"ActionMeta", testActionMeta},
		{"Reclassify", testReclassify},
		{"Stats", testStats},
		{"SyncJobs", testSyncJobs},
		{"Assignments", testAssignments},
		{"Connections/Lifecycle", testConnectionsLifecycle},
		{"Connections/Transitions", testConnectionTransitions},
		{"Connections/List", testConnectionsList},
		{"Connections/SameStatus", testConnectionsSameStatus},
		{"Connections/AddTwice", testAddConnectionTwice},
		{"Ensure/Connection", testEnsureConnection},
		{"Ensure/Assignment", testEnsureAssignment},
		{"Context", testContext},
		{"Concurrent", testConcurrent},
		{"Snapshot/BadInput", testSnapshotBadInput},
		{"Snapshot/Cancelled", testSnapshotCancelled},
		{"Vectors/RoundTrip", testVectorsRoundTrip},
		{"Vectors/Resync", testVectorsResync},
		{"Vectors/Invalid", testVectorsInvalid},
		{"Knowledge", testKnowledge},
		{"Knowledge/Import", testKnowledgeImport},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newStore(t))
		})
	}
	t.Run("Snapshot/RoundTrip", func(t *testing.T) { testSnapshotRoundTrip(t, newStore) })
}

// apply applies b and fails the test on error.
func apply(t *testing.T, st cache.Store, b cache.Batch) cache.ApplyResult {
	t.Helper()
	res, err := st.Apply(context.Background(), b)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return res
}

func loadFixture(t *testing.T, st cache.Store) {
	t.Helper()
	apply(t, st, fixtureBatch())
}

// catalogue is everything a store holds about its catalogue, times included.
// Catalogue is everything a store holds about the catalogue, for before/after comparisons.
type Catalogue struct {
	Apps    []cache.App
	Actions []cache.Action
	Meta    []cache.ActionMeta
}

// Snapshot reads every app, action and action metadata of st, failing t on an error.
func Snapshot(t testing.TB, st cache.Store) Catalogue {
	t.Helper()
	ctx := context.Background()
	var c Catalogue
	for off := 0; ; {
		p, err := st.ListApps(ctx, cache.AppQuery{Limit: 1000, Offset: off})
		if err != nil {
			t.Fatalf("ListApps: %v", err)
		}
		c.Apps = append(c.Apps, p.Apps...)
		off += len(p.Apps)
		if len(p.Apps) == 0 || off >= p.Total {
			break
		}
	}
	var err error
	if c.Actions, err = st.Actions(ctx, cache.ActionFilter{}); err != nil {
		t.Fatalf("Actions: %v", err)
	}
	if c.Meta, err = st.ActionMeta(ctx, nil); err != nil {
		t.Fatalf("ActionMeta: %v", err)
	}
	return c
}

// wantErr fails the test unless err wraps want (nil: no error).
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Errorf("%s: unexpected error %v", what, err)
	case want != nil && !errors.Is(err, want):
		t.Errorf("%s: error %v, want one wrapping %v", what, err, want)
	}
}

func testApplyNew(t *testing.T, st cache.Store) {
	res := apply(t, st, fixtureBatch())
	want := cache.ApplyResult{AppsWritten: len(fixtureApps()), ActionsWritten: len(fixtureActions())}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ApplyResult (-want +got):\n%s", diff)
	}
	got := Snapshot(t, st)
	if diff := cmp.Diff(wantApps(), got.Apps, noTimes); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantActions(), got.Actions, noTimes); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	for _, a := range got.Apps {
		if a.UpdatedAt.IsZero() {
			t.Errorf("app %s: UpdatedAt not set", a.Slug)
		}
	}
	for _, a := range got.Actions {
		if a.UpdatedAt.IsZero() {
			t.Errorf("action %s: UpdatedAt not set", a.Slug)
		}
	}
}

func testApplyUnchanged(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	before := Snapshot(t, st)
	time.Sleep(2 * time.Millisecond) // a rewrite would get a later time
	res := apply(t, st, fixtureBatch())
	want := cache.ApplyResult{AppsUnchanged: len(fixtureApps()), ActionsUnchanged: len(fixtureActions())}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ApplyResult (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, Snapshot(t, st), exact); diff != "" {
		t.Errorf("unchanged rows changed (-before +after):\n%s", diff)
	}
}

func testApplyUpdate(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	before := Snapshot(t, st)
	time.Sleep(2 * time.Millisecond)

	gmail := fixtureApps()[0]
	gmail.Description = "E-mail by Google."
	gmail.Categories = []string{"Email"}
	send := wantAction("GMAIL_SEND_EMAIL")
	send.Description = "Send an e-mail."
	send.Parameters = json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}`)
	fetch := wantAction("GMAIL_FETCH_EMAILS") // unchanged
	res := apply(t, st, cache.Batch{Apps: []cache.App{gmail}, Actions: []cache.Action{send, fetch}})
	want := cache.ApplyResult{AppsWritten: 1, ActionsWritten: 1, ActionsUnchanged: 1}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ApplyResult (-want +got):\n%s", diff)
	}
	after := Snapshot(t, st)
	wantGmail := gmail
	wantGmail.ActionCount = 3
	ctx := context.Background()
	gotGmail, err := st.App(ctx, "gmail")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantGmail, gotGmail, noTimes); diff != "" {
		t.Errorf("updated app (-want +got):\n%s", diff)
	}
	gotSend, err := st.Action(ctx, "GMAIL_SEND_EMAIL")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(send, gotSend, noTimes); diff != "" {
		t.Errorf("updated action (-want +got):\n%s", diff)
	}
	times := func(c Catalogue) map[string]time.Time {
		m := map[string]time.Time{}
		for _, a := range c.Apps {
			m["app "+a.Slug] = a.UpdatedAt
		}
		for _, a := range c.Actions {
			m["action "+a.Slug] = a.UpdatedAt
		}
		return m
	}
	tb, ta := times(before), times(after)
	for k, t0 := range tb {
		t1 := ta[k]
		changed := k == "app gmail" || k == "action GMAIL_SEND_EMAIL"
		switch {
		case changed && !t1.After(t0):
			t.Errorf("%s: UpdatedAt %v not after %v although it changed", k, t1, t0)
		case !changed && !t1.Equal(t0):
			t.Errorf("%s: UpdatedAt moved from %v to %v although it did not change", k, t0, t1)
		}
	}
}

func testApplyNormalise(t *testing.T, st cache.Store) {
	ctx := context.Background()
	res := apply(t, st, cache.Batch{
		Apps:    []cache.App{{Slug: " Notion ", DisplayName: "Notion"}},
		Actions: []cache.Action{{App: "NOTION", Slug: "notion_create_page", DisplayName: "Create page"}},
	})
	if res.AppsWritten != 1 || res.ActionsWritten != 1 {
		t.Errorf("ApplyResult = %+v, want one app and one action written", res)
	}
	app, err := st.App(ctx, "NOTION")
	wantErr(t, "App(NOTION)", err, nil)
	if diff := cmp.Diff(cache.App{Slug: "notion", DisplayName: "Notion", ActionCount: 1}, app, noTimes); diff != "" {
		t.Errorf("app (-want +got):\n%s", diff)
	}
	act, err := st.Action(ctx, "Notion_Create_Page")
	wantErr(t, "Action(Notion_Create_Page)", err, nil)
	want := cache.Action{
		App: "notion", Slug: "NOTION_CREATE_PAGE", DisplayName: "Create page",
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`),
	}
	if diff := cmp.Diff(want, act, noTimes); diff != "" {
		t.Errorf("action (-want +got):\n%s", diff)
	}
	if string(act.Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("empty parameters stored as %s, want {\"type\":\"object\",\"properties\":{}}", act.Parameters)
	}
}

func testApplyByteExact(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	a, err := st.Action(ctx, "GMAIL_SEND_EMAIL")
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Parameters) != sendEmailParams {
		t.Errorf("parameters not byte-exact:\n got %s\nwant %s", a.Parameters, sendEmailParams)
	}
	a, err = st.Action(ctx, "SLACK_LIST_CHANNELS")
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Response) != listChannelsResponse {
		t.Errorf("response not byte-exact:\n got %s\nwant %s", a.Response, listChannelsResponse)
	}
	// Whitespace alone is a change: the bytes are what is kept.
	b := wantAction("GMAIL_SEND_EMAIL")
	b.Parameters = json.RawMessage(sendEmailParams + " ")
	res := apply(t, st, cache.Batch{Actions: []cache.Action{b}})
	if res.ActionsWritten != 1 {
		t.Errorf("ApplyResult = %+v, want the action rewritten", res)
	}
	a, err = st.Action(ctx, "GMAIL_SEND_EMAIL")
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Parameters) != sendEmailParams+" " {
		t.Errorf("parameters not byte-exact after update: %q", a.Parameters)
	}
	// What a caller does to returned slices does not reach the store.
	a.Parameters[0] = '['
	a.Tags = append(a.Tags[:0], "mutated")
	again, err := st.Action(ctx, "GMAIL_SEND_EMAIL")
	if err != nil {
		t.Fatal(err)
	}
	if again.Parameters[0] != '{' || len(again.Tags) != 1 || again.Tags[0] != "openWorldHint" {
		t.Errorf("store changed by a caller's edit of a returned action: %s %v", again.Parameters, again.Tags)
	}
}

func testApplyDelete(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	res := apply(t, st, cache.Batch{
		DeleteApps:    []string{"JIRA", "no_such_app"},
		DeleteActions: []string{"gmail_delete_message", "NO_SUCH_ACTION"},
	})
	want := cache.ApplyResult{AppsDeleted: 1, ActionsDeleted: 3}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ApplyResult (-want +got):\n%s", diff)
	}
	_, err := st.App(ctx, "jira")
	wantErr(t, "App(jira) after delete", err, cache.ErrNotFound)
	_, err = st.Action(ctx, "JIRA_GET_ISSUE")
	wantErr(t, "Action(JIRA_GET_ISSUE) after app delete", err, cache.ErrNotFound)
	_, err = st.Action(ctx, "GMAIL_DELETE_MESSAGE")
	wantErr(t, "Action(GMAIL_DELETE_MESSAGE) after delete", err, cache.ErrNotFound)
	gmail, err := st.App(ctx, "gmail")
	wantErr(t, "App(gmail)", err, nil)
	if gmail.ActionCount != 2 {
		t.Errorf("gmail ActionCount = %d after deleting one of 3 actions, want 2", gmail.ActionCount)
	}
	meta, err := st.ActionMeta(ctx, []string{"jira", "gmail"})
	wantErr(t, "ActionMeta", err, nil)
	if diff := cmp.Diff([]string{"GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}, slugsOf(meta, func(m cache.ActionMeta) string { return m.Action })); diff != "" {
		t.Errorf("ActionMeta after delete (-want +got):\n%s", diff)
	}

	// Deletions run before upserts: an app deleted and re-created in one batch comes back
	// empty, and its actions may be written in the same batch.
	res = apply(t, st, cache.Batch{
		DeleteApps: []string{"slack"},
		Apps:       []cache.App{{Slug: "slack", DisplayName: "Slack 2"}},
		Actions:    []cache.Action{{App: "slack", Slug: "SLACK_NEW", DisplayName: "New"}},
	})
	want = cache.ApplyResult{AppsDeleted: 1, AppsWritten: 1, ActionsDeleted: 3, ActionsWritten: 1}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ApplyResult of delete and re-create (-want +got):\n%s", diff)
	}
	acts, err := st.Actions(ctx, cache.ActionFilter{Apps: []string{"slack"}})
	wantErr(t, "Actions(slack)", err, nil)
	if diff := cmp.Diff([]string{"SLACK_NEW"}, actionSlugs(acts)); diff != "" {
		t.Errorf("slack actions after re-create (-want +got):\n%s", diff)
	}
}

func testApplyMoveAction(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	a := wantAction("GMAIL_DELETE_MESSAGE")
	a.App = "slack"
	apply(t, st, cache.Batch{Actions: []cache.Action{a}})
	for app, n := range map[string]int{"gmail": 2, "slack": 4} {
		got, err := st.App(ctx, app)
		wantErr(t, "App", err, nil)
		if got.ActionCount != n {
			t.Errorf("%s ActionCount = %d after moving an action, want %d", app, got.ActionCount, n)
		}
	}
	meta, err := st.ActionMeta(ctx, []string{"slack"})
	wantErr(t, "ActionMeta", err, nil)
	if len(meta) != 4 || meta[0].Action != "GMAIL_DELETE_MESSAGE" || meta[0].App != "slack" {
		t.Errorf("slack metadata after move = %+v, want GMAIL_DELETE_MESSAGE first of 4, app slack", meta)
	}
}

func testApplyInvalid(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	good := func() cache.Action {
		return cache.Action{App: "gmail", Slug: "GMAIL_NEW", DisplayName: "New", Parameters: json.RawMessage(`{"type":"object"}`)}
	}
	with := func(f func(a *cache.Action)) cache.Batch {
		a := good()
		f(&a)
		return cache.Batch{Actions: []cache.Action{a}}
	}
	tests := []struct {
		name string
		b    cache.Batch
		want error
	}{
		{"empty app slug", cache.Batch{Apps: []cache.App{{DisplayName: "x"}}}, cache.ErrInvalid},
		{"app slug with space", cache.Batch{Apps: []cache.App{{Slug: "my app"}}}, cache.ErrInvalid},
		{"app slug too long", cache.Batch{Apps: []cache.App{{Slug: long(cache.MaxSlugLen + 1)}}}, cache.ErrInvalid},
		{"app name too long", cache.Batch{Apps: []cache.App{{Slug: "x", DisplayName: long(cache.MaxNameLen + 1)}}}, cache.ErrInvalid},
		{"app description too long", cache.Batch{Apps: []cache.App{{Slug: "x", Description: long(cache.MaxDescriptionLen + 1)}}}, cache.ErrInvalid},
		{"app not UTF-8", cache.Batch{Apps: []cache.App{{Slug: "x", Description: "bad \xff"}}}, cache.ErrInvalid},
		{"app description with NUL", cache.Batch{Apps: []cache.App{{Slug: "x", Description: "bad \x00 byte"}}}, cache.ErrInvalid},
		{"action name with NUL", with(func(a *cache.Action) { a.DisplayName = "New\x00" }), cache.ErrInvalid},
		{"trigger config not an object", cache.Batch{Apps: []cache.App{{Slug: "x", Triggers: []cache.Trigger{{Slug: "T", Config: json.RawMessage(`[1]`)}}}}}, cache.ErrInvalid},
		{"duplicate app", cache.Batch{Apps: []cache.App{{Slug: "x"}, {Slug: "X"}}}, cache.ErrConflict},
		{"empty action slug", with(func(a *cache.Action) { a.Slug = "" }), cache.ErrInvalid},
		{"action slug with dot", with(func(a *cache.Action) { a.Slug = "GMAIL.SEND" }), cache.ErrInvalid},
		{"action slug too long", with(func(a *cache.Action) { a.Slug = long(cache.MaxSlugLen + 1) }), cache.ErrInvalid},
		{"action without app", with(func(a *cache.Action) { a.App = "" }), cache.ErrInvalid},
		{"action of unknown app", with(func(a *cache.Action) { a.App = "nope" }), cache.ErrInvalid},
		{"action name too long", with(func(a *cache.Action) { a.DisplayName = long(cache.MaxNameLen + 1) }), cache.ErrInvalid},
		{"action description too long", with(func(a *cache.Action) { a.Description = long(cache.MaxDescriptionLen + 1) }), cache.ErrInvalid},
		{"schema an array", with(func(a *cache.Action) { a.Parameters = json.RawMessage(`[{"type":"object"}]`) }), cache.ErrInvalid},
		{"schema a string", with(func(a *cache.Action) { a.Parameters = json.RawMessage(`"object"`) }), cache.ErrInvalid},
		{"schema null", with(func(a *cache.Action) { a.Parameters = json.RawMessage(`null`) }), cache.ErrInvalid},
		{"schema malformed", with(func(a *cache.Action) { a.Parameters = json.RawMessage(`{"type":`) }), cache.ErrInvalid},
		{"schema too long", with(func(a *cache.Action) {
			a.Parameters = json.RawMessage(`{"description":"` + long(cache.MaxSchemaLen) + `"}`)
		}), cache.ErrInvalid},
		{"response not an object", with(func(a *cache.Action) { a.Response = json.RawMessage(`42`) }), cache.ErrInvalid},
		{"empty tag", with(func(a *cache.Action) { a.Tags = []string{""} }), cache.ErrInvalid},
		{"duplicate action", cache.Batch{Actions: []cache.Action{good(), func() cache.Action { a := good(); a.Slug = "gmail_new"; return a }()}}, cache.ErrConflict},
		{"action of deleted app", cache.Batch{DeleteApps: []string{"gmail"}, Actions: []cache.Action{good()}}, cache.ErrInvalid},
		{"bad delete slug", cache.Batch{DeleteActions: []string{"a b"}}, cache.ErrInvalid},
	}
	before := Snapshot(t, st)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := st.Apply(context.Background(), tt.b)
			wantErr(t, "Apply", err, tt.want)
			if err != nil && err.Error() == "" {
				t.Error("empty error text")
			}
			if res != (cache.ApplyResult{}) {
				t.Errorf("ApplyResult = %+v for a refused batch, want zero", res)
			}
		})
	}
	if diff := cmp.Diff(before, Snapshot(t, st), exact); diff != "" {
		t.Errorf("refused batches changed the store (-before +after):\n%s", diff)
	}
}

func testApplyAllOrNothing(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	before := Snapshot(t, st)
	// A big batch that upserts, deletes and adds, with one bad action at the very end.
	var b cache.Batch
	b.Apps = []cache.App{{Slug: "linear", DisplayName: "Linear"}}
	b.DeleteApps = []string{"jira"}
	b.DeleteActions = []string{"GMAIL_SEND_EMAIL"}
	for i := 0; i < 500; i++ {
		b.Actions = append(b.Actions, cache.Action{App: "linear", Slug: fmt.Sprintf("LINEAR_ACTION_%03d", i), DisplayName: "x"})
	}
	changed := wantAction("SLACK_CREATE_CHANNEL")
	changed.Description = "changed"
	b.Actions = append(b.Actions, changed, cache.Action{App: "linear", Slug: "LINEAR_BAD", Parameters: json.RawMessage(`[]`)})
	_, err := st.Apply(context.Background(), b)
	wantErr(t, "Apply of a batch with a bad last action", err, cache.ErrInvalid)
	if diff := cmp.Diff(before, Snapshot(t, st), exact); diff != "" {
		t.Errorf("a refused batch changed the store (-before +after):\n%s", diff)
	}
	// The same batch without the bad action is applied whole.
	b.Actions = b.Actions[:len(b.Actions)-1]
	res := apply(t, st, b)
	want := cache.ApplyResult{AppsWritten: 1, AppsDeleted: 1, ActionsDeleted: 3, ActionsWritten: 501}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("ApplyResult (-want +got):\n%s", diff)
	}
}

func testApp(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	for _, want := range wantApps() {
		got, err := st.App(ctx, want.Slug)
		if err != nil {
			t.Errorf("App(%q): %v", want.Slug, err)
			continue
		}
		if diff := cmp.Diff(want, got, noTimes); diff != "" {
			t.Errorf("App(%q) (-want +got):\n%s", want.Slug, diff)
		}
	}
	_, err := st.App(ctx, "no_such_app")
	wantErr(t, "App(no_such_app)", err, cache.ErrNotFound)
	_, err = st.App(ctx, "")
	wantErr(t, `App("")`, err, cache.ErrInvalid)
	// A caller's edit of a returned app does not reach the store.
	got, _ := st.App(ctx, "gmail")
	got.Categories[0] = "mutated"
	again, _ := st.App(ctx, "gmail")
	if again.Categories[0] != "Communication" {
		t.Errorf("store changed by a caller's edit: categories %v", again.Categories)
	}
}

func testListApps(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	tests := []struct {
		name  string
		q     cache.AppQuery
		want  []string
		total int
	}{
		{"all", cache.AppQuery{}, []string{"gmail", "google_drive", "googlecalendar", "jira", "slack", "weather"}, 6},
		{"category", cache.AppQuery{Category: "communication"}, []string{"gmail", "slack"}, 2},
		{"category exact", cache.AppQuery{Category: "Comm"}, nil, 0},
		{"category second", cache.AppQuery{Category: "EMAIL"}, []string{"gmail"}, 1},
		{"category with spaces", cache.AppQuery{Category: " email "}, []string{"gmail"}, 1},
		{"search slug", cache.AppQuery{Search: "DRIVE"}, []string{"google_drive"}, 1},
		{"search name", cache.AppQuery{Search: "Google D"}, []string{"google_drive"}, 1},
		{"search description", cache.AppQuery{Search: "software"}, []string{"jira"}, 1},
		{"search percent literal", cache.AppQuery{Search: "%"}, []string{"slack"}, 1},
		{"search percent inside", cache.AppQuery{Search: "0% s"}, []string{"slack"}, 1},
		{"search underscore literal", cache.AppQuery{Search: "_"}, []string{"google_drive"}, 1},
		{"search underscore not a wildcard", cache.AppQuery{Search: "e_mail"}, nil, 0},
		{"search backslash", cache.AppQuery{Search: `\`}, nil, 0},
		{"search none", cache.AppQuery{Search: "zzz"}, nil, 0},
		{"hidden", cache.AppQuery{Hidden: []string{"GMAIL", "jira"}}, []string{"google_drive", "googlecalendar", "slack", "weather"}, 4},
		{"hidden and category", cache.AppQuery{Category: "Communication", Hidden: []string{"slack"}}, []string{"gmail"}, 1},
		{"limit", cache.AppQuery{Limit: 2}, []string{"gmail", "google_drive"}, 6},
		{"offset", cache.AppQuery{Limit: 2, Offset: 2}, []string{"googlecalendar", "jira"}, 6},
		{"last page", cache.AppQuery{Limit: 4, Offset: 4}, []string{"slack", "weather"}, 6},
		{"offset past end", cache.AppQuery{Offset: 10}, nil, 6},
		{"limit over max", cache.AppQuery{Limit: 5000}, []string{"gmail", "google_drive", "googlecalendar", "jira", "slack", "weather"}, 6},
		{"search and paging", cache.AppQuery{Search: "an", Limit: 1, Offset: 1}, []string{"google_drive"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := st.ListApps(context.Background(), tt.q)
			if err != nil {
				t.Fatalf("ListApps(%+v): %v", tt.q, err)
			}
			if diff := cmp.Diff(tt.want, appSlugs(p.Apps), noTimes); diff != "" {
				t.Errorf("apps (-want +got):\n%s", diff)
			}
			if p.Total != tt.total {
				t.Errorf("Total = %d, want %d", p.Total, tt.total)
			}
		})
	}
	p, err := st.ListApps(context.Background(), cache.AppQuery{Search: "slack"})
	wantErr(t, "ListApps", err, nil)
	if diff := cmp.Diff([]cache.App{wantApp("slack")}, p.Apps, noTimes); diff != "" {
		t.Errorf("listed app (-want +got):\n%s", diff)
	}
	for _, q := range []cache.AppQuery{{Limit: -1}, {Offset: -1}} {
		_, err := st.ListApps(context.Background(), q)
		wantErr(t, fmt.Sprintf("ListApps(%+v)", q), err, cache.ErrInvalid)
	}
}

func testListAppsPaging(t *testing.T, st cache.Store) {
	var b cache.Batch
	var want []string
	for i := 0; i < 1005; i++ {
		s := fmt.Sprintf("app_%04d", i)
		b.Apps = append(b.Apps, cache.App{Slug: s, DisplayName: s})
		want = append(want, s)
	}
	apply(t, st, b)
	ctx := context.Background()
	p, err := st.ListApps(ctx, cache.AppQuery{})
	wantErr(t, "ListApps", err, nil)
	if diff := cmp.Diff(want[:50], appSlugs(p.Apps)); diff != "" || p.Total != 1005 {
		t.Errorf("default page: total %d (want 1005), slugs (-want +got):\n%s", p.Total, diff)
	}
	p, err = st.ListApps(ctx, cache.AppQuery{Limit: 2000})
	wantErr(t, "ListApps", err, nil)
	if diff := cmp.Diff(want[:1000], appSlugs(p.Apps)); diff != "" {
		t.Errorf("limit over 1000 is capped at 1000 (-want +got):\n%s", diff)
	}
	p, err = st.ListApps(ctx, cache.AppQuery{Limit: 1000, Offset: 1000})
	wantErr(t, "ListApps", err, nil)
	if diff := cmp.Diff(want[1000:], appSlugs(p.Apps)); diff != "" {
		t.Errorf("second page (-want +got):\n%s", diff)
	}
}

func testAppTriggers(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	got, err := st.AppTriggers(ctx, "SLACK")
	wantErr(t, "AppTriggers(SLACK)", err, nil)
	if diff := cmp.Diff(wantApp("slack").Triggers, got, noTimes); diff != "" {
		t.Errorf("triggers (-want +got):\n%s", diff)
	}
	got, err = st.AppTriggers(ctx, "gmail")
	wantErr(t, "AppTriggers(gmail)", err, nil)
	if len(got) != 0 {
		t.Errorf("gmail triggers = %v, want none", got)
	}
	_, err = st.AppTriggers(ctx, "no_such_app")
	wantErr(t, "AppTriggers(no_such_app)", err, cache.ErrNotFound)
}

func testAction(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	for _, want := range fixtureActions() {
		got, err := st.Action(ctx, want.Slug)
		if err != nil {
			t.Errorf("Action(%q): %v", want.Slug, err)
			continue
		}
		if diff := cmp.Diff(want, got, noTimes); diff != "" {
			t.Errorf("Action(%q) (-want +got):\n%s", want.Slug, diff)
		}
	}
	_, err := st.Action(ctx, "NO_SUCH_ACTION")
	wantErr(t, "Action(NO_SUCH_ACTION)", err, cache.ErrNotFound)
	_, err = st.Action(ctx, "")
	wantErr(t, `Action("")`, err, cache.ErrInvalid)
}

func testActions(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	all := actionSlugs(wantActions())
	tests := []struct {
		name string
		f    cache.ActionFilter
		want []string
	}{
		{"all", cache.ActionFilter{}, all},
		{"apps", cache.ActionFilter{Apps: []string{"SLACK", "gmail"}}, actionSlugs(wantActions("gmail", "slack"))},
		{"unknown app", cache.ActionFilter{Apps: []string{"nope"}}, nil},
		{"limit", cache.ActionFilter{Limit: 4}, all[:4]},
		{"offset", cache.ActionFilter{Limit: 4, Offset: 2}, all[2:6]},
		{"offset only", cache.ActionFilter{Offset: 8}, all[8:]},
		{"offset past end", cache.ActionFilter{Offset: 100}, nil},
		{"apps and paging", cache.ActionFilter{Apps: []string{"jira", "slack"}, Limit: 2, Offset: 1}, []string{"JIRA_GET_ISSUE", "SLACK_CREATE_CHANNEL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.Actions(context.Background(), tt.f)
			if err != nil {
				t.Fatalf("Actions(%+v): %v", tt.f, err)
			}
			if diff := cmp.Diff(tt.want, actionSlugs(got), noTimes); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	got, err := st.Actions(context.Background(), cache.ActionFilter{Apps: []string{"gmail"}})
	wantErr(t, "Actions", err, nil)
	if diff := cmp.Diff(wantActions("gmail"), got, noTimes); diff != "" {
		t.Errorf("gmail actions (-want +got):\n%s", diff)
	}
	for _, f := range []cache.ActionFilter{{Limit: -1}, {Offset: -1}} {
		_, err := st.Actions(context.Background(), f)
		wantErr(t, fmt.Sprintf("Actions(%+v)", f), err, cache.ErrInvalid)
	}
}

func states(p cache.ActionPage) []string {
	out := make([]string, len(p.Actions))
	for i, s := range p.Actions {
		out[i] = s.Action.Slug
		if !s.Enabled {
			out[i] += " (disabled)"
		}
	}
	return out
}

func testAppActions(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	tests := []struct {
		name  string
		q     cache.AppActionsQuery
		want  []string
		total int
	}{
		{"all", cache.AppActionsQuery{App: "gmail"}, []string{"GMAIL_DELETE_MESSAGE", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}, 3},
		{"upper-case app", cache.AppActionsQuery{App: "GMAIL", Limit: 1}, []string{"GMAIL_DELETE_MESSAGE"}, 3},
		{"workspace without config", cache.AppActionsQuery{App: "gmail", WorkspaceID: "ws-none"}, []string{"GMAIL_DELETE_MESSAGE", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}, 3},
		{"search slug", cache.AppActionsQuery{App: "gmail", Search: "send_"}, []string{"GMAIL_SEND_EMAIL"}, 1},
		{"search name", cache.AppActionsQuery{App: "gmail", Search: "fetch EMAILS"}, []string{"GMAIL_FETCH_EMAILS"}, 1},
		{"search description", cache.AppActionsQuery{App: "gmail", Search: "permanently"}, []string{"GMAIL_DELETE_MESSAGE"}, 1},
		{"search percent literal", cache.AppActionsQuery{App: "slack", Search: "100%"}, []string{"SLACK_LIST_CHANNELS"}, 1},
		{"search underscore literal", cache.AppActionsQuery{App: "slack", Search: "a_s"}, []string{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"}, 1},
		{"search underscore not a wildcard", cache.AppActionsQuery{App: "gmail", Search: "e_mail"}, nil, 0},
		{"search other app's action", cache.AppActionsQuery{App: "gmail", Search: "channel"}, nil, 0},
		{"paging", cache.AppActionsQuery{App: "slack", Limit: 1, Offset: 1}, []string{"SLACK_LIST_CHANNELS"}, 3},
		{"offset past end", cache.AppActionsQuery{App: "slack", Offset: 3}, nil, 3},
		{"search matching nothing", cache.AppActionsQuery{App: "weather", Search: "nothing"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := st.AppActions(context.Background(), tt.q)
			if err != nil {
				t.Fatalf("AppActions(%+v): %v", tt.q, err)
			}
			if diff := cmp.Diff(tt.want, states(p), noTimes); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if p.Total != tt.total {
				t.Errorf("Total = %d, want %d", p.Total, tt.total)
			}
		})
	}
	p, err := st.AppActions(context.Background(), cache.AppActionsQuery{App: "jira"})
	wantErr(t, "AppActions(jira)", err, nil)
	var want []cache.ActionState
	for _, a := range wantActions("jira") {
		want = append(want, cache.ActionState{Action: a, Enabled: true})
	}
	if diff := cmp.Diff(cache.ActionPage{Actions: want, Total: 2}, p, noTimes); diff != "" {
		t.Errorf("AppActions(jira) (-want +got):\n%s", diff)
	}
	_, err = st.AppActions(context.Background(), cache.AppActionsQuery{App: "no_such_app"})
	wantErr(t, "AppActions(no_such_app)", err, cache.ErrNotFound)
	for _, q := range []cache.AppActionsQuery{{App: "gmail", Limit: -1}, {App: "gmail", Offset: -1}, {}} {
		_, err := st.AppActions(context.Background(), q)
		wantErr(t, fmt.Sprintf("AppActions(%+v)", q), err, cache.ErrInvalid)
	}
}

func testAppActionsEnabled(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	get := func(ws string) []string {
		t.Helper()
		p, err := st.AppActions(ctx, cache.AppActionsQuery{App: "gmail", WorkspaceID: ws})
		if err != nil {
			t.Fatalf("AppActions: %v", err)
		}
		return states(p)
	}
	steps := []struct {
		name    string
		ws      string
		actions []string
		want    []string
	}{
		{"some", "ws1", []string{"gmail_send_email", "GMAIL_FETCH_EMAILS"}, []string{"GMAIL_DELETE_MESSAGE (disabled)", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}},
		{"none", "ws1", []string{}, []string{"GMAIL_DELETE_MESSAGE (disabled)", "GMAIL_FETCH_EMAILS (disabled)", "GMAIL_SEND_EMAIL (disabled)"}},
		{"nil means all", "ws1", nil, []string{"GMAIL_DELETE_MESSAGE", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}},
		{"one again", "ws1", []string{"GMAIL_DELETE_MESSAGE"}, []string{"GMAIL_DELETE_MESSAGE", "GMAIL_FETCH_EMAILS (disabled)", "GMAIL_SEND_EMAIL (disabled)"}},
	}
	for _, s := range steps {
		if err := st.SaveEnabledActions(ctx, s.ws, "gmail", s.actions); err != nil {
			t.Fatalf("%s: SaveEnabledActions: %v", s.name, err)
		}
		if diff := cmp.Diff(s.want, get(s.ws)); diff != "" {
			t.Errorf("%s: enabled state (-want +got):\n%s", s.name, diff)
		}
	}
	// Other workspaces are not affected.
	if diff := cmp.Diff([]string{"GMAIL_DELETE_MESSAGE", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}, get("ws2")); diff != "" {
		t.Errorf("another workspace (-want +got):\n%s", diff)
	}
	// An action added to the app later is disabled where a list was saved, enabled elsewhere.
	apply(t, st, cache.Batch{Actions: []cache.Action{{App: "gmail", Slug: "GMAIL_ARCHIVE", DisplayName: "Archive"}}})
	if diff := cmp.Diff([]string{"GMAIL_ARCHIVE (disabled)", "GMAIL_DELETE_MESSAGE", "GMAIL_FETCH_EMAILS (disabled)", "GMAIL_SEND_EMAIL (disabled)"}, get("ws1")); diff != "" {
		t.Errorf("after a new action (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GMAIL_ARCHIVE", "GMAIL_DELETE_MESSAGE", "GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}, get("ws2")); diff != "" {
		t.Errorf("after a new action, other workspace (-want +got):\n%s", diff)
	}
	// The app-level switch does not change the per-action state.
	if err := st.SetAppEnabled(ctx, "ws1", "gmail", false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"GMAIL_ARCHIVE (disabled)", "GMAIL_DELETE_MESSAGE", "GMAIL_FETCH_EMAILS (disabled)", "GMAIL_SEND_EMAIL (disabled)"}, get("ws1")); diff != "" {
		t.Errorf("after SetAppEnabled(false) (-want +got):\n%s", diff)
	}
}

func testSaveEnabledActions(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	if err := st.SaveEnabledActions(ctx, "ws1", "GMAIL", []string{"GMAIL_SEND_EMAIL", "gmail_fetch_emails", "GMAIL_SEND_EMAIL"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := st.ToolConfig(ctx, "ws1", "gmail")
	wantErr(t, "ToolConfig", err, nil)
	want := cache.ToolConfig{WorkspaceID: "ws1", App: "gmail", Enabled: true, EnabledActions: []string{"GMAIL_FETCH_EMAILS", "GMAIL_SEND_EMAIL"}}
	if diff := cmp.Diff(want, cfg, noTimes); diff != "" {
		t.Errorf("ToolConfig (-want +got):\n%s", diff)
	}
	if cfg.UpdatedAt.IsZero() {
		t.Error("ToolConfig.UpdatedAt not set")
	}
	// An empty list (none enabled) stays apart from nil (all enabled).
	if err := st.SaveEnabledActions(ctx, "ws1", "gmail", []string{}); err != nil {
		t.Fatal(err)
	}
	cfg, _ = st.ToolConfig(ctx, "ws1", "gmail")
	if cfg.EnabledActions == nil || len(cfg.EnabledActions) != 0 {
		t.Errorf("EnabledActions after saving an empty list = %#v, want an empty non-nil list", cfg.EnabledActions)
	}
	if err := st.SaveEnabledActions(ctx, "ws1", "gmail", nil); err != nil {
		t.Fatal(err)
	}
	cfg, _ = st.ToolConfig(ctx, "ws1", "gmail")
	if cfg.EnabledActions != nil {
		t.Errorf("EnabledActions after saving nil = %#v, want nil", cfg.EnabledActions)
	}

	if err := st.SaveEnabledActions(ctx, "ws1", "gmail", []string{"GMAIL_SEND_EMAIL"}); err != nil {
		t.Fatal(err)
	}
	before, _ := st.ToolConfig(ctx, "ws1", "gmail")
	bad := []struct {
		name    string
		ws, app string
		actions []string
		want    error
	}{
		{"another app's action", "ws1", "gmail", []string{"GMAIL_SEND_EMAIL", "SLACK_CREATE_CHANNEL"}, cache.ErrInvalid},
		{"unknown action", "ws1", "gmail", []string{"GMAIL_NOPE"}, cache.ErrInvalid},
		{"malformed slug", "ws1", "gmail", []string{"not a slug"}, cache.ErrInvalid},
		{"unknown app", "ws1", "no_such_app", nil, cache.ErrNotFound},
		{"empty workspace", "", "gmail", nil, cache.ErrInvalid},
	}
	for _, tt := range bad {
		err := st.SaveEnabledActions(ctx, tt.ws, tt.app, tt.actions)
		wantErr(t, tt.name, err, tt.want)
	}
	after, _ := st.ToolConfig(ctx, "ws1", "gmail")
	if diff := cmp.Diff(before, after, exact); diff != "" {
		t.Errorf("refused saves changed the config (-before +after):\n%s", diff)
	}
}

func testToolConfigs(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	_, err := st.ToolConfig(ctx, "ws1", "slack")
	wantErr(t, "ToolConfig before any save", err, cache.ErrNotFound)
	if err := st.SetAppEnabled(ctx, "ws1", "slack", false); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveEnabledActions(ctx, "ws1", "slack", []string{"SLACK_CREATE_CHANNEL"}); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveEnabledActions(ctx, "ws1", "gmail", nil); err != nil {
		t.Fatal(err)
	}
	if err := st.SetAppEnabled(ctx, "ws2", "jira", true); err != nil {
		t.Fatal(err)
	}
	got, err := st.ToolConfigs(ctx, "ws1")
	wantErr(t, "ToolConfigs", err, nil)
	want := []cache.ToolConfig{
		{WorkspaceID: "ws1", App: "gmail", Enabled: true},
		{WorkspaceID: "ws1", App: "slack", Enabled: false, EnabledActions: []string{"SLACK_CREATE_CHANNEL"}},
	}
	if diff := cmp.Diff(want, got, noTimes); diff != "" {
		t.Errorf("ToolConfigs(ws1) (-want +got):\n%s", diff)
	}
	if err := st.SetAppEnabled(ctx, "ws1", "slack", true); err != nil {
		t.Fatal(err)
	}
	cfg, err := st.ToolConfig(ctx, "ws1", "SLACK")
	wantErr(t, "ToolConfig", err, nil)
	if diff := cmp.Diff(cache.ToolConfig{WorkspaceID: "ws1", App: "slack", Enabled: true, EnabledActions: []string{"SLACK_CREATE_CHANNEL"}}, cfg, noTimes); diff != "" {
		t.Errorf("SetAppEnabled keeps the enabled actions (-want +got):\n%s", diff)
	}
	got, err = st.ToolConfigs(ctx, "ws-none")
	wantErr(t, "ToolConfigs(ws-none)", err, nil)
	if len(got) != 0 {
		t.Errorf("ToolConfigs of an unknown workspace = %v, want none", got)
	}
	wantErr(t, "SetAppEnabled(unknown app)", st.SetAppEnabled(ctx, "ws1", "no_such_app", true), cache.ErrNotFound)
	wantErr(t, "SetAppEnabled(empty workspace)", st.SetAppEnabled(ctx, "", "gmail", true), cache.ErrInvalid)
	_, err = st.ToolConfigs(ctx, "")
	wantErr(t, "ToolConfigs(empty workspace)", err, cache.ErrInvalid)
}

func testActionMeta(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	classifier := cache.NewClassifier(nil)
	wantMeta := func(apps ...string) []cache.ActionMeta {
		var out []cache.ActionMeta
		for _, a := range wantActions(apps...) {
			m := classifier.Classify(a)
			m.Action, m.App = a.Slug, a.App
			out = append(out, m)
		}
		return out
	}
	tests := []struct {
		name string
		apps []string
		want []cache.ActionMeta
	}{
		{"all", nil, wantMeta()},
		{"some, any order, any case", []string{"SLACK", "gmail", "slack"}, wantMeta("gmail", "slack")},
		{"unknown apps add nothing", []string{"jira", "no_such_app"}, wantMeta("jira")},
		{"only unknown", []string{"no_such_app"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.ActionMeta(ctx, tt.apps)
			if err != nil {
				t.Fatalf("ActionMeta(%v): %v", tt.apps, err)
			}
			if diff := cmp.Diff(tt.want, got, noTimes); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// fakeClassifier marks every action with one capability made from its slug.
type fakeClassifier struct{}

func (fakeClassifier) Classify(a cache.Action) cache.ActionMeta {
	return cache.ActionMeta{
		Action: a.Slug, App: a.App, Capabilities: []string{"test." + a.Slug},
		Keywords: []string{a.App}, Destructive: a.Destructive != nil && *a.Destructive, Confidence: 0.5,
	}
}

func testReclassify(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	n, err := st.Reclassify(ctx, fakeClassifier{})
	if err != nil {
		t.Fatalf("Reclassify: %v", err)
	}
	if n != len(fixtureActions()) {
		t.Errorf("Reclassify = %d, want %d", n, len(fixtureActions()))
	}
	got, err := st.ActionMeta(ctx, []string{"gmail"})
	wantErr(t, "ActionMeta", err, nil)
	var want []cache.ActionMeta
	for _, a := range wantActions("gmail") {
		want = append(want, fakeClassifier{}.Classify(a))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata after Reclassify (-want +got):\n%s", diff)
	}
	before := Snapshot(t, st)
	if diff := cmp.Diff(wantActions(), before.Actions, noTimes); diff != "" {
		t.Errorf("Reclassify changed the actions (-want +got):\n%s", diff)
	}
}

func testStats(t *testing.T, st cache.Store) {
	ctx := context.Background()
	got, err := st.Stats(ctx)
	wantErr(t, "Stats", err, nil)
	if len(got) != 0 {
		t.Errorf("Stats of an empty store = %v, want none", got)
	}
	first := map[string]json.RawMessage{
		"total_apps": json.RawMessage(`5`),
		"categories": json.RawMessage(`{"Communication":2,"Storage":1}`),
	}
	if err := st.PutStats(ctx, first); err != nil {
		t.Fatalf("PutStats: %v", err)
	}
	if err := st.PutStats(ctx, map[string]json.RawMessage{"total_apps": json.RawMessage(`6`), "synced_at": json.RawMessage(`"2026-01-01T00:00:00Z"`)}); err != nil {
		t.Fatalf("PutStats: %v", err)
	}
	got, err = st.Stats(ctx)
	wantErr(t, "Stats", err, nil)
	want := map[string]json.RawMessage{
		"total_apps": json.RawMessage(`6`),
		"categories": json.RawMessage(`{"Communication":2,"Storage":1}`),
		"synced_at":  json.RawMessage(`"2026-01-01T00:00:00Z"`),
	}
	if diff := cmp.Diff(want, got, exact); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	bad := []map[string]json.RawMessage{
		{"": json.RawMessage(`1`)},
		{"k": json.RawMessage(`{"a":`)},
		{"k": nil},
		{"ok": json.RawMessage(`1`), "bad": json.RawMessage(`nope`)},
	}
	for _, b := range bad {
		wantErr(t, fmt.Sprintf("PutStats(%v)", b), st.PutStats(ctx, b), cache.ErrInvalid)
	}
	got, _ = st.Stats(ctx)
	if diff := cmp.Diff(want, got, exact); diff != "" {
		t.Errorf("refused PutStats changed the stats (-want +got):\n%s", diff)
	}
}

func testSyncJobs(t *testing.T, st cache.Store) {
	ctx := context.Background()
	jobs, err := st.SyncJobs(ctx, 0)
	wantErr(t, "SyncJobs", err, nil)
	if len(jobs) != 0 {
		t.Errorf("SyncJobs of an empty store = %v", jobs)
	}
	var started []cache.SyncJob
	for _, typ := range []string{"full", "incremental", "backfill"} {
		j, err := st.StartSyncJob(ctx, typ)
		if err != nil {
			t.Fatalf("StartSyncJob(%s): %v", typ, err)
		}
		if j.ID == 0 || j.Type != typ || j.Status != cache.JobRunning || j.StartedAt.IsZero() || !j.FinishedAt.IsZero() {
			t.Errorf("StartSyncJob(%s) = %+v, want a running job with an ID and a start time", typ, j)
		}
		started = append(started, j)
	}
	if !(started[0].ID < started[1].ID && started[1].ID < started[2].ID) {
		t.Errorf("job IDs %d, %d, %d are not increasing", started[0].ID, started[1].ID, started[2].ID)
	}
	fin := started[0]
	fin.Status = cache.JobSucceeded
	fin.AppsSynced, fin.ActionsSynced, fin.ActionsDeleted = 5, 100, 3
	if err := st.FinishSyncJob(ctx, fin); err != nil {
		t.Fatalf("FinishSyncJob: %v", err)
	}
	failed := started[1]
	failed.Status = cache.JobFailed
	failed.Error = "composio: 503"
	if err := st.FinishSyncJob(ctx, failed); err != nil {
		t.Fatalf("FinishSyncJob: %v", err)
	}
	jobs, err = st.SyncJobs(ctx, 0)
	wantErr(t, "SyncJobs", err, nil)
	want := []cache.SyncJob{started[2], failed, fin}
	if diff := cmp.Diff(want, jobs, noTimes); diff != "" {
		t.Errorf("SyncJobs newest first (-want +got):\n%s", diff)
	}
	if len(jobs) == 3 {
		if !jobs[0].FinishedAt.IsZero() || jobs[1].FinishedAt.IsZero() || jobs[2].FinishedAt.IsZero() {
			t.Errorf("FinishedAt set on %v, want it on the two finished jobs only", []time.Time{jobs[0].FinishedAt, jobs[1].FinishedAt, jobs[2].FinishedAt})
		}
		if jobs[2].FinishedAt.Before(jobs[2].StartedAt) {
			t.Errorf("FinishedAt %v before StartedAt %v", jobs[2].FinishedAt, jobs[2].StartedAt)
		}
	}
	jobs, err = st.SyncJobs(ctx, 1)
	wantErr(t, "SyncJobs(1)", err, nil)
	if diff := cmp.Diff(want[:1], jobs, noTimes); diff != "" {
		t.Errorf("SyncJobs(1) (-want +got):\n%s", diff)
	}
	_, err = st.SyncJobs(ctx, -1)
	wantErr(t, "SyncJobs(-1)", err, cache.ErrInvalid)

	wantErr(t, "FinishSyncJob twice", st.FinishSyncJob(ctx, fin), cache.ErrConflict)
	wantErr(t, "FinishSyncJob(unknown)", st.FinishSyncJob(ctx, cache.SyncJob{ID: 9999, Status: cache.JobSucceeded}), cache.ErrNotFound)
	still := started[2]
	still.Status = cache.JobRunning
	wantErr(t, "FinishSyncJob(status running)", st.FinishSyncJob(ctx, still), cache.ErrInvalid)
	still.Status = "done"
	wantErr(t, "FinishSyncJob(status done)", st.FinishSyncJob(ctx, still), cache.ErrInvalid)
	_, err = st.StartSyncJob(ctx, "")
	wantErr(t, "StartSyncJob(empty)", err, cache.ErrInvalid)

	for i := 0; i < 22; i++ {
		if _, err := st.StartSyncJob(ctx, "incremental"); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err = st.SyncJobs(ctx, 0)
	wantErr(t, "SyncJobs(0)", err, nil)
	if len(jobs) != 20 {
		t.Errorf("SyncJobs(0) returned %d jobs, want the default 20", len(jobs))
	}
}

func testAssignments(t *testing.T, st cache.Store) {
	ctx := context.Background()
	for _, a := range []cache.Assignment{
		{AgentID: 1, App: "SLACK", Type: "composio", Active: true},
		{AgentID: 1, App: "gmail", Type: "composio", Active: true},
		{AgentID: 2, App: "gmail", Type: "composio", Active: false},
	} {
		if err := st.AssignApp(ctx, a); err != nil {
			t.Fatalf("AssignApp(%+v): %v", a, err)
		}
	}
	got, err := st.AgentApps(ctx, 1)
	wantErr(t, "AgentApps(1)", err, nil)
	want := []cache.Assignment{
		{AgentID: 1, App: "gmail", Type: "composio", Active: true},
		{AgentID: 1, App: "slack", Type: "composio", Active: true},
	}
	if diff := cmp.Diff(want, got, noTimes); diff != "" {
		t.Errorf("AgentApps(1) (-want +got):\n%s", diff)
	}
	for _, a := range got {
		if a.CreatedAt.IsZero() {
			t.Errorf("assignment %s: CreatedAt not set", a.App)
		}
	}
	// Upsert by (agent, app): the flags change, CreatedAt stays.
	time.Sleep(2 * time.Millisecond)
	if err := st.AssignApp(ctx, cache.Assignment{AgentID: 1, App: "slack", Type: "platform", Active: false}); err != nil {
		t.Fatal(err)
	}
	got2, err := st.AgentApps(ctx, 1)
	wantErr(t, "AgentApps(1)", err, nil)
	want[1] = cache.Assignment{AgentID: 1, App: "slack", Type: "platform", Active: false}
	if diff := cmp.Diff(want, got2, noTimes); diff != "" {
		t.Errorf("AgentApps(1) after upsert (-want +got):\n%s", diff)
	}
	if len(got) == 2 && len(got2) == 2 && !got2[1].CreatedAt.Equal(got[1].CreatedAt) {
		t.Errorf("upsert moved CreatedAt from %v to %v", got[1].CreatedAt, got2[1].CreatedAt)
	}
	if err := st.UnassignApp(ctx, 1, "GMAIL"); err != nil {
		t.Fatalf("UnassignApp: %v", err)
	}
	got, _ = st.AgentApps(ctx, 1)
	if diff := cmp.Diff([]string{"slack"}, slugsOf(got, func(a cache.Assignment) string { return a.App })); diff != "" {
		t.Errorf("after UnassignApp (-want +got):\n%s", diff)
	}
	got, _ = st.AgentApps(ctx, 2)
	if diff := cmp.Diff([]cache.Assignment{{AgentID: 2, App: "gmail", Type: "composio"}}, got, noTimes); diff != "" {
		t.Errorf("agent 2 untouched (-want +got):\n%s", diff)
	}
	wantErr(t, "UnassignApp twice", st.UnassignApp(ctx, 1, "gmail"), cache.ErrNotFound)
	got, err = st.AgentApps(ctx, 99)
	wantErr(t, "AgentApps(99)", err, nil)
	if len(got) != 0 {
		t.Errorf("AgentApps(99) = %v, want none", got)
	}
	wantErr(t, "AssignApp(agent 0)", st.AssignApp(ctx, cache.Assignment{AgentID: 0, App: "gmail"}), cache.ErrInvalid)
	wantErr(t, "AssignApp(empty app)", st.AssignApp(ctx, cache.Assignment{AgentID: 1}), cache.ErrInvalid)
}

func testConnectionsLifecycle(t *testing.T, st cache.Store) {
	ctx := context.Background()
	c, err := st.AddConnection(ctx, "ws1", "GMAIL")
	if err != nil {
		t.Fatalf("AddConnection: %v", err)
	}
	want := cache.Connection{WorkspaceID: "ws1", App: "gmail", Status: cache.StatusAdded}
	if diff := cmp.Diff(want, c, noTimes); diff != "" {
		t.Errorf("AddConnection (-want +got):\n%s", diff)
	}
	if c.UpdatedAt.IsZero() || !c.ConnectedAt.IsZero() {
		t.Errorf("new connection: UpdatedAt %v (want set), ConnectedAt %v (want zero)", c.UpdatedAt, c.ConnectedAt)
	}
	again, err := st.AddConnection(ctx, "ws1", "gmail")
	wantErr(t, "AddConnection twice", err, nil)
	if diff := cmp.Diff(c, again, exact); diff != "" {
		t.Errorf("AddConnection twice (-first +again):\n%s", diff)
	}

	c, err = st.SetConnectionStatus(ctx, "ws1", "gmail", cache.StatusPending, "")
	wantErr(t, "added -> pending", err, nil)
	if c.Status != cache.StatusPending || c.ConnectedAccountID != "" || !c.ConnectedAt.IsZero() {
		t.Errorf("after pending: %+v", c)
	}
	c, err = st.SetConnectionStatus(ctx, "ws1", "gmail", cache.StatusActive, "ca_123")
	wantErr(t, "pending -> active", err, nil)
	want = cache.Connection{WorkspaceID: "ws1", App: "gmail", Status: cache.StatusActive, ConnectedAccountID: "ca_123"}
	if diff := cmp.Diff(want, c, noTimes); diff != "" {
		t.Errorf("after active (-want +got):\n%s", diff)
	}
	if c.ConnectedAt.IsZero() {
		t.Error("ConnectedAt not set on becoming active")
	}
	got, err := st.Connection(ctx, "ws1", "Gmail")
	wantErr(t, "Connection", err, nil)
	if diff := cmp.Diff(c, got, exact); diff != "" {
		t.Errorf("Connection returns what SetConnectionStatus returned (-want +got):\n%s", diff)
	}
	// Re-authorising keeps the connection ID unless a new one is given.
	c, err = st.SetConnectionStatus(ctx, "ws1", "gmail", cache.StatusPending, "")
	wantErr(t, "active -> pending", err, nil)
	if c.ConnectedAccountID != "ca_123" {
		t.Errorf("ConnectedAccountID = %q after re-authorise without a new one, want ca_123", c.ConnectedAccountID)
	}
	c, err = st.SetConnectionStatus(ctx, "ws1", "gmail", cache.StatusActive, "ca_456")
	wantErr(t, "pending -> active", err, nil)
	if c.ConnectedAccountID != "ca_456" {
		t.Errorf("ConnectedAccountID = %q, want ca_456", c.ConnectedAccountID)
	}

	_, err = st.SetConnectionStatus(ctx, "ws1", "slack", cache.StatusPending, "")
	wantErr(t, "SetConnectionStatus(unknown)", err, cache.ErrNotFound)
	_, err = st.SetConnectionStatus(ctx, "ws1", "gmail", "bogus", "")
	wantErr(t, "SetConnectionStatus(bogus)", err, cache.ErrInvalid)
	_, err = st.Connection(ctx, "ws2", "gmail")
	wantErr(t, "Connection(other workspace)", err, cache.ErrNotFound)
	_, err = st.AddConnection(ctx, "", "gmail")
	wantErr(t, "AddConnection(empty workspace)", err, cache.ErrInvalid)
	_, err = st.AddConnection(ctx, "ws1", "")
	wantErr(t, "AddConnection(empty app)", err, cache.ErrInvalid)

	// Removal is explicit and works in any status; the app can then be added again.
	if err := st.RemoveConnection(ctx, "ws1", "gmail"); err != nil {
		t.Fatalf("RemoveConnection: %v", err)
	}
	_, err = st.Connection(ctx, "ws1", "gmail")
	wantErr(t, "Connection after remove", err, cache.ErrNotFound)
	wantErr(t, "RemoveConnection twice", st.RemoveConnection(ctx, "ws1", "gmail"), cache.ErrNotFound)
	c, err = st.AddConnection(ctx, "ws1", "gmail")
	wantErr(t, "AddConnection after remove", err, nil)
	if c.Status != cache.StatusAdded || c.ConnectedAccountID != "" {
		t.Errorf("re-added connection = %+v, want a fresh added one", c)
	}
}

// reach brings a new connection of app to status s along allowed transitions.
func reach(t *testing.T, st cache.Store, ws, app string, s cache.ConnectionStatus) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.AddConnection(ctx, ws, app); err != nil {
		t.Fatal(err)
	}
	path := map[cache.ConnectionStatus][]cache.ConnectionStatus{
		cache.StatusAdded:   nil,
		cache.StatusPending: {cache.StatusPending},
		cache.StatusActive:  {cache.StatusPending, cache.StatusActive},
		cache.StatusFailed:  {cache.StatusPending, cache.StatusFailed},
	}[s]
	for _, step := range path {
		if _, err := st.SetConnectionStatus(ctx, ws, app, step, ""); err != nil {
			t.Fatalf("reaching %s: %v", s, err)
		}
	}
}

func testConnectionTransitions(t *testing.T, st cache.Store) {
	ctx := context.Background()
	all := []cache.ConnectionStatus{cache.StatusAdded, cache.StatusPending, cache.StatusActive, cache.StatusFailed}
	allowed := 0
	for _, from := range all {
		for _, to := range all {
			name := fmt.Sprintf("%s->%s", from, to)
			t.Run(name, func(t *testing.T) {
				app := fmt.Sprintf("app_%s_%s", from, to)
				reach(t, st, "ws", app, from)
				before, err := st.Connection(ctx, "ws", app)
				if err != nil {
					t.Fatal(err)
				}
				got, err := st.SetConnectionStatus(ctx, "ws", app, to, "")
				if from == to { // not a transition: a no-op
					wantErr(t, "same status", err, nil)
					if diff := cmp.Diff(before, got, exact); diff != "" {
						t.Errorf("same status changed the connection (-before +got):\n%s", diff)
					}
					return
				}
				if cache.CanTransition(from, to) {
					allowed++
					if err != nil {
						t.Fatalf("allowed transition refused: %v", err)
					}
					if got.Status != to {
						t.Errorf("status = %s, want %s", got.Status, to)
					}
					if to == cache.StatusActive && got.ConnectedAt.IsZero() {
						t.Error("ConnectedAt not set")
					}
					return
				}
				wantErr(t, "refused transition", err, cache.ErrTransition)
				after, err := st.Connection(ctx, "ws", app)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(before, after, exact); diff != "" {
					t.Errorf("refused transition changed the connection (-before +after):\n%s", diff)
				}
			})
		}
	}
	if allowed != 6 {
		t.Errorf("%d allowed transitions seen, want the 6 of cache.CanTransition", allowed)
	}
}

func testConnectionsList(t *testing.T, st cache.Store) {
	ctx := context.Background()
	reach(t, st, "ws1", "slack", cache.StatusActive)
	reach(t, st, "ws1", "gmail", cache.StatusPending)
	reach(t, st, "ws1", "jira", cache.StatusAdded)
	reach(t, st, "ws2", "gmail", cache.StatusActive)
	reach(t, st, "ws2", "asana", cache.StatusFailed)
	type wa struct {
		WS, App string
		Status  cache.ConnectionStatus
	}
	list := func(cs []cache.Connection) []wa {
		out := make([]wa, len(cs))
		for i, c := range cs {
			out[i] = wa{c.WorkspaceID, c.App, c.Status}
		}
		return out
	}
	tests := []struct {
		name     string
		ws       string
		statuses []cache.ConnectionStatus
		want     []wa
	}{
		{"workspace", "ws1", nil, []wa{{"ws1", "gmail", "pending"}, {"ws1", "jira", "added"}, {"ws1", "slack", "active"}}},
		{"active", "ws1", []cache.ConnectionStatus{cache.StatusActive}, []wa{{"ws1", "slack", "active"}}},
		{"two statuses", "ws1", []cache.ConnectionStatus{cache.StatusActive, cache.StatusAdded}, []wa{{"ws1", "jira", "added"}, {"ws1", "slack", "active"}}},
		{"every workspace", "", nil, []wa{{"ws2", "asana", "failed"}, {"ws1", "gmail", "pending"}, {"ws2", "gmail", "active"}, {"ws1", "jira", "added"}, {"ws1", "slack", "active"}}},
		{"every workspace, active", "", []cache.ConnectionStatus{cache.StatusActive}, []wa{{"ws2", "gmail", "active"}, {"ws1", "slack", "active"}}},
		{"unknown workspace", "ws9", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.Connections(ctx, tt.ws, tt.statuses...)
			if err != nil {
				t.Fatalf("Connections: %v", err)
			}
			if diff := cmp.Diff(tt.want, list(got), noTimes); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	_, err := st.Connections(ctx, "ws1", "bogus")
	wantErr(t, "Connections(bogus status)", err, cache.ErrInvalid)
}

func testContext(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	if _, err := st.AddConnection(context.Background(), "ws1", "gmail"); err != nil {
		t.Fatal(err)
	}
	job, err := st.StartSyncJob(context.Background(), "full")
	if err != nil {
		t.Fatal(err)
	}
	before := Snapshot(t, st)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	job.Status = cache.JobSucceeded
	calls := map[string]func() error{
		"Apply": func() error {
			_, err := st.Apply(ctx, cache.Batch{Actions: []cache.Action{{App: "gmail", Slug: "GMAIL_X"}}})
			return err
		},
		"App":         func() error { _, err := st.App(ctx, "gmail"); return err },
		"ListApps":    func() error { _, err := st.ListApps(ctx, cache.AppQuery{}); return err },
		"AppTriggers": func() error { _, err := st.AppTriggers(ctx, "slack"); return err },
		"Action":      func() error { _, err := st.Action(ctx, "GMAIL_SEND_EMAIL"); return err },
		"Actions":     func() error { _, err := st.Actions(ctx, cache.ActionFilter{}); return err },
		"AppActions":  func() error { _, err := st.AppActions(ctx, cache.AppActionsQuery{App: "gmail"}); return err },
		"ActionMeta":  func() error { _, err := st.ActionMeta(ctx, []string{"gmail"}); return err },
		"Reclassify":  func() error { _, err := st.Reclassify(ctx, fakeClassifier{}); return err },
		"Stats":       func() error { _, err := st.Stats(ctx); return err },
		"PutStats": func() error {
			return st.PutStats(ctx, map[string]json.RawMessage{"k": json.RawMessage(`1`)})
		},
		"StartSyncJob":  func() error { _, err := st.StartSyncJob(ctx, "full"); return err },
		"FinishSyncJob": func() error { return st.FinishSyncJob(ctx, job) },
		"SyncJobs":      func() error { _, err := st.SyncJobs(ctx, 0); return err },
		"AssignApp":     func() error { return st.AssignApp(ctx, cache.Assignment{AgentID: 1, App: "gmail"}) },
		"UnassignApp":   func() error { return st.UnassignApp(ctx, 1, "gmail") },
		"AgentApps":     func() error { _, err := st.AgentApps(ctx, 1); return err },
		"AddConnection": func() error { _, err := st.AddConnection(ctx, "ws1", "slack"); return err },
		"SetConnectionStatus": func() error {
			_, err := st.SetConnectionStatus(ctx, "ws1", "gmail", cache.StatusPending, "")
			return err
		},
		"RemoveConnection":   func() error { return st.RemoveConnection(ctx, "ws1", "gmail") },
		"Connection":         func() error { _, err := st.Connection(ctx, "ws1", "gmail"); return err },
		"Connections":        func() error { _, err := st.Connections(ctx, "ws1"); return err },
		"SaveEnabledActions": func() error { return st.SaveEnabledActions(ctx, "ws1", "gmail", nil) },
		"SetAppEnabled":      func() error { return st.SetAppEnabled(ctx, "ws1", "gmail", false) },
		"ToolConfig":         func() error { _, err := st.ToolConfig(ctx, "ws1", "gmail"); return err },
		"ToolConfigs":        func() error { _, err := st.ToolConfigs(ctx, "ws1"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: error %v, want context.Canceled", name, err)
		}
	}
	bg := context.Background()
	if diff := cmp.Diff(before, Snapshot(t, st), exact); diff != "" {
		t.Errorf("calls with a cancelled context changed the catalogue (-before +after):\n%s", diff)
	}
	if c, err := st.Connection(bg, "ws1", "gmail"); err != nil || c.Status != cache.StatusAdded {
		t.Errorf("connection after cancelled calls = %+v, %v; want it unchanged", c, err)
	}
	if _, err := st.Connection(bg, "ws1", "slack"); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("cancelled AddConnection left a connection (err %v)", err)
	}
	if jobs, _ := st.SyncJobs(bg, 0); len(jobs) != 1 || jobs[0].Status != cache.JobRunning {
		t.Errorf("sync jobs after cancelled calls = %+v, want the one running job", jobs)
	}
	if s, _ := st.Stats(bg); len(s) != 0 {
		t.Errorf("cancelled PutStats stored %v", s)
	}
	if a, _ := st.AgentApps(bg, 1); len(a) != 0 {
		t.Errorf("cancelled AssignApp stored %v", a)
	}
	if c, _ := st.ToolConfigs(bg, "ws1"); len(c) != 0 {
		t.Errorf("cancelled tool config writes stored %v", c)
	}
}
