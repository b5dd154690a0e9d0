package cachetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
)

// oddStrings are identifiers and search strings at the edges of what a store takes. A
// workspace ID or query that no stored text can hold (a NUL byte, bytes that are not
// UTF-8, over-long) is ErrInvalid in every store; the rest are ordinary text, kept and
// matched byte for byte, whatever a SQL store makes of them.
var oddStrings = []struct {
	name string
	s    string
	// workspace says whether the string is a valid workspace ID; query whether it is a
	// valid search or filter string.
	workspace, query bool
}{
	{"NUL", "ws\x00evil", false, false},
	{"only NUL", "\x00", false, false},
	{"invalid UTF-8", "ws\xff", false, false},
	{"truncated rune", "caf\xc3", false, false},
	{"spaces only", "   ", false, true},
	{"longest", strings.Repeat("w", cache.MaxSlugLen), true, true},
	{"too long", strings.Repeat("w", cache.MaxSlugLen+1), false, true},
	{"LIKE wildcards", `50%_off\`, true, true},
	{"quotes", `o'brien "x"`, true, true},
	{"SQL", `'; DROP TABLE connections; --`, true, true},
	{"unicode", "équipe-日本", true, true},
	{"unit separator", "a\x1fb", true, true},
	{"tab and newline", "a\tb\nc", true, true},
}

// testOddIdentifiers checks every method that takes a workspace ID or a query string
// against oddStrings: the invalid ones are ErrInvalid, the valid ones round-trip exactly
// and match nothing they should not.
func testOddIdentifiers(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	for _, o := range oddStrings {
		t.Run(o.name, func(t *testing.T) {
			ws, q := o.s, o.s
			want := func(valid bool) error {
				if valid {
					return nil
				}
				return cache.ErrInvalid
			}
			_, err := st.Connections(ctx, ws)
			wantErr(t, "Connections", err, want(o.workspace))
			_, err = st.Connections(ctx, ws, cache.StatusActive)
			wantErr(t, "Connections(active)", err, want(o.workspace))
			_, err = st.ToolConfigs(ctx, ws)
			wantErr(t, "ToolConfigs", err, want(o.workspace))
			_, err = st.ToolConfig(ctx, ws, "gmail")
			wantErr(t, "ToolConfig", err, errIf(!o.workspace, cache.ErrInvalid, cache.ErrNotFound))
			_, err = st.Connection(ctx, ws, "gmail")
			wantErr(t, "Connection", err, errIf(!o.workspace, cache.ErrInvalid, cache.ErrNotFound))
			_, err = st.AppActions(ctx, cache.AppActionsQuery{App: "gmail", WorkspaceID: ws})
			wantErr(t, "AppActions(workspace)", err, want(o.workspace))

			_, err = st.ListApps(ctx, cache.AppQuery{Search: q})
			wantErr(t, "ListApps(search)", err, want(o.query))
			_, err = st.ListApps(ctx, cache.AppQuery{Category: q})
			wantErr(t, "ListApps(category)", err, want(o.query))
			_, err = st.ListApps(ctx, cache.AppQuery{Hidden: []string{q}})
			wantErr(t, "ListApps(hidden)", err, want(o.query))
			_, err = st.AppActions(ctx, cache.AppActionsQuery{App: "gmail", Search: q})
			wantErr(t, "AppActions(search)", err, want(o.query))

			if !o.workspace {
				_, err = st.AddConnection(ctx, ws, "gmail")
				wantErr(t, "AddConnection", err, cache.ErrInvalid)
				wantErr(t, "SetAppEnabled", st.SetAppEnabled(ctx, ws, "gmail", false), cache.ErrInvalid)
				return
			}
			// A valid workspace ID is kept byte for byte and sees only its own data.
			if _, err := st.AddConnection(ctx, ws, "gmail"); err != nil {
				t.Fatalf("AddConnection: %v", err)
			}
			if _, err := st.SetConnectionStatus(ctx, ws, "gmail", cache.StatusActive, ""); err != nil {
				t.Fatalf("SetConnectionStatus: %v", err)
			}
			if err := st.SaveEnabledActions(ctx, ws, "gmail", []string{"GMAIL_SEND_EMAIL"}); err != nil {
				t.Fatalf("SaveEnabledActions: %v", err)
			}
			conns, err := st.Connections(ctx, ws, cache.StatusActive)
			if err != nil || len(conns) != 1 || conns[0].WorkspaceID != ws || conns[0].App != "gmail" {
				t.Errorf("Connections = %+v, %v; want the one gmail connection of %q", conns, err, ws)
			}
			cfgs, err := st.ToolConfigs(ctx, ws)
			if err != nil || len(cfgs) != 1 || cfgs[0].WorkspaceID != ws {
				t.Errorf("ToolConfigs = %+v, %v; want the one config of %q", cfgs, err, ws)
			}
			page, err := st.AppActions(ctx, cache.AppActionsQuery{App: "gmail", WorkspaceID: ws})
			if err != nil {
				t.Fatalf("AppActions: %v", err)
			}
			for _, a := range page.Actions {
				if a.Enabled != (a.Action.Slug == "GMAIL_SEND_EMAIL") {
					t.Errorf("AppActions in %q: %s enabled = %v", ws, a.Action.Slug, a.Enabled)
				}
			}
			// Other workspaces see none of it: the LIKE wildcards match nothing else.
			for _, other := range []string{"ws", "50", "w"} {
				if other == ws {
					continue
				}
				if conns, err := st.Connections(ctx, other); err != nil || len(conns) != 0 {
					t.Errorf("Connections(%q) = %+v, %v; want none", other, conns, err)
				}
			}
			if err := st.RemoveConnection(ctx, ws, "gmail"); err != nil {
				t.Errorf("RemoveConnection: %v", err)
			}
		})
	}
}

func errIf(cond bool, yes, no error) error {
	if cond {
		return yes
	}
	return no
}

// testApplyOddText checks text at the edges of what a row may hold: refused alike by every
// store when PostgreSQL cannot hold it (a NUL, escaped or not, or bytes that are not UTF-8,
// in any field, schemas included), kept byte for byte when it can.
func testApplyOddText(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	action := func(params, response string) cache.Action {
		a := cache.Action{App: "gmail", Slug: "GMAIL_ODD", DisplayName: "Odd", Parameters: json.RawMessage(params)}
		if response != "" {
			a.Response = json.RawMessage(response)
		}
		return a
	}
	refused := []struct {
		name string
		b    cache.Batch
	}{
		{"schema with \\u0000", cache.Batch{Actions: []cache.Action{action(`{"type":"object","properties":{"q":{"description":"a\u0000b"}}}`, "")}}},
		{"schema key with \\u0000", cache.Batch{Actions: []cache.Action{action(`{"type":"object","properties":{"a\u0000":{}}}`, "")}}},
		{"schema after an escaped backslash", cache.Batch{Actions: []cache.Action{action(`{"description":"a\\\u0000"}`, "")}}},
		{"schema not UTF-8", cache.Batch{Actions: []cache.Action{action("{\"description\":\"caf\xe9\"}", "")}}},
		{"response with \\u0000", cache.Batch{Actions: []cache.Action{action(`{}`, `{"description":"\u0000"}`)}}},
		{"response not UTF-8", cache.Batch{Actions: []cache.Action{action(`{}`, "{\"x\":\"\xff\"}")}}},
		{"trigger config with \\u0000", cache.Batch{Apps: []cache.App{{Slug: "odd", Triggers: []cache.Trigger{{Slug: "T", Config: json.RawMessage(`{"a":"\u0000"}`)}}}}}},
		{"trigger name not UTF-8", cache.Batch{Apps: []cache.App{{Slug: "odd", Triggers: []cache.Trigger{{Slug: "T", Name: "\xff"}}}}}},
		{"category with NUL", cache.Batch{Apps: []cache.App{{Slug: "odd", Categories: []string{"a\x00"}}}}},
		{"tag not UTF-8", cache.Batch{Actions: []cache.Action{func() cache.Action { a := action(`{}`, ""); a.Tags = []string{"\xc3"}; return a }()}}},
		{"version with NUL", cache.Batch{Actions: []cache.Action{func() cache.Action { a := action(`{}`, ""); a.Version = "1\x00"; return a }()}}},
	}
	before := Snapshot(t, st)
	for _, tt := range refused {
		t.Run("refused/"+tt.name, func(t *testing.T) {
			_, err := st.Apply(ctx, tt.b)
			wantErr(t, "Apply", err, cache.ErrInvalid)
		})
	}
	if diff := cmp.Diff(before, Snapshot(t, st), exact); diff != "" {
		t.Errorf("refused batches changed the store (-before +after):\n%s", diff)
	}
	err := st.PutStats(ctx, map[string]json.RawMessage{"odd": json.RawMessage(`"\u0000"`)})
	wantErr(t, "PutStats(\\u0000)", err, cache.ErrInvalid)
	err = st.PutStats(ctx, map[string]json.RawMessage{"odd": json.RawMessage("\"\xff\"")})
	wantErr(t, "PutStats(not UTF-8)", err, cache.ErrInvalid)

	kept := []string{
		`{"description":"a backslash and u0000: \\u0000"}`,
		`{"description":"a lone surrogate: \ud800"}`,
		`{"description":"escaped control \u0001 and unicode é 日本"}`,
	}
	for i, params := range kept {
		t.Run(fmt.Sprintf("kept/%d", i), func(t *testing.T) {
			a := action(params, params)
			a.Slug = fmt.Sprintf("GMAIL_ODD_%d", i)
			if _, err := st.Apply(ctx, cache.Batch{Actions: []cache.Action{a}}); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			got, err := st.Action(ctx, a.Slug)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Parameters) != params || string(got.Response) != params {
				t.Errorf("stored %s / %s, want %s byte for byte", got.Parameters, got.Response, params)
			}
			if _, err := st.ActionMeta(ctx, []string{"gmail"}); err != nil {
				t.Errorf("ActionMeta: %v", err)
			}
		})
	}
	if err := st.PutStats(ctx, map[string]json.RawMessage{"odd": json.RawMessage(`"\\u0000"`)}); err != nil {
		t.Errorf("PutStats of an escaped backslash: %v", err)
	}
	if t.Failed() {
		return
	}
	var le *cache.LineError
	_, err = cache.ImportJSONL(ctx, st, strings.NewReader(strings.Join(goodRows(3), "\n")+"\n"+
		`{"app":"GMAIL","action":"GMAIL_NUL","parameters":{"description":"\u0000"}}`+"\n"))
	if !errors.As(err, &le) || le.Line != 4 || !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("ImportJSONL of a NUL row on line 4: %v, want a *cache.LineError for line 4 wrapping ErrInvalid", err)
	}
}
