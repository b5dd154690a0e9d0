package cachetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolhint/toolhint/cache"
)

// RunPlugins runs the conformance suite of cache.PluginStore against the stores newStore
// returns: a fresh, empty store per subtest. Beyond the interface's doc comments it pins
// down: plugin slugs are lower-cased and trimmed; a plugin needs a name; token
// estimates below 0 or above cache.MaxTokenEstimate, unnamed skills or commands and metadata that is not a JSON object are
// ErrInvalid; metadata comes back byte for byte; listings are ordered by slug; a plugin of
// one workspace is invisible to others (listing, enabling: ErrNotFound); assigning a
// plugin not enabled in the workspace is ErrPluginNotEnabled and changes nothing; a
// cancelled context makes every method fail with context.Canceled.
func RunPlugins(t *testing.T, newStore func(t *testing.T) cache.PluginStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, st cache.PluginStore)
	}{
		{"Put", testPluginPut},
		{"Put/Invalid", testPluginPutInvalid},
		{"List", testPluginList},
		{"Enable", testPluginEnable},
		{"Assign", testPluginAssign},
		{"Assign/NotEnabled", testPluginAssignNotEnabled},
		{"Disable", testPluginDisable},
		{"Delete", testPluginDelete},
		{"Scope", testPluginScope},
		{"Context", testPluginContext},
		{"Concurrent", testPluginConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newStore(t)) })
	}
}

var pluginTimes = cmp.Options{
	cmpopts.EquateEmpty(), rawJSON,
	cmpopts.IgnoreFields(cache.Plugin{}, "CreatedAt", "UpdatedAt"),
	cmpopts.IgnoreFields(cache.PluginEnablement{}, "EnabledAt"),
	cmpopts.IgnoreFields(cache.PluginAssignment{}, "AssignedAt"),
}

// fixturePlugins are three global plugins and one of workspace ws2.
func fixturePlugins() []cache.Plugin {
	return []cache.Plugin{
		{Slug: "code-review", Name: "Code review", Version: "1.2.0", Description: "Reviews pull requests.", Author: "acme", Source: "github",
			Skills: []cache.PluginSkill{
				{Name: "review", Description: "Review a diff.", Content: "When asked to review, read the diff first.", TokenEstimate: 300},
				{Name: "nits", Content: "Point out style nits last.", TokenEstimate: 100},
			},
			Commands:      []cache.PluginCommand{{Name: "/review", Description: "Review the open PR."}},
			TokenEstimate: 400, Metadata: json.RawMessage(`{"dependencies": ["github"],"z":1, "a":2}`)},
		{Slug: "meeting-notes", Name: "Meeting notes", Description: "Summarises meetings.", Source: "s3",
			Skills: []cache.PluginSkill{{Name: "summarise", Content: "Summarise in five bullets."}}, TokenEstimate: 150},
		{Slug: "sql-helper", Name: "SQL helper", Description: "Writes SQL queries.", Source: "local", TokenEstimate: 80},
		{Slug: "ws2-private", Name: "Private tool", Description: "Only for ws2.", WorkspaceID: "ws2", TokenEstimate: 10},
	}
}

func putPlugins(t *testing.T, st cache.PluginStore) {
	t.Helper()
	for _, p := range fixturePlugins() {
		if _, err := st.PutPlugin(context.Background(), p); err != nil {
			t.Fatalf("PutPlugin(%s): %v", p.Slug, err)
		}
	}
}

func pluginSlugs(ps []cache.Plugin) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Slug)
	}
	return out
}

func assignedSlugs(as []cache.PluginAssignment) []string {
	out := []string{}
	for _, a := range as {
		out = append(out, fmt.Sprintf("%s@%d", a.Plugin, a.Priority))
	}
	return out
}

func testPluginPut(t *testing.T, st cache.PluginStore) {
	ctx := context.Background()
	in := fixturePlugins()[0]
	in.Slug = "  Code-Review "
	got, err := st.PutPlugin(ctx, in)
	wantErr(t, "PutPlugin", err, nil)
	want := fixturePlugins()[0]
	if diff := cmp.Diff(want, got, pluginTimes); diff != "" {
		t.Errorf("PutPlugin (-want +got):\n%s", diff)
	}
	if got.CreatedAt.IsZero() || got.UpdatedAt.IsZero() {
		t.Errorf("times not set: %v %v", got.CreatedAt, got.UpdatedAt)
	}
	read, err := st.Plugin(ctx, "CODE-REVIEW")
	wantErr(t, "Plugin", err, nil)
	if diff := cmp.Diff(got, read, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Plugin after PutPlugin (-put +read):\n%s", diff)
	}
	if string(read.Metadata) != `{"dependencies": ["github"],"z":1, "a":2}` {
		t.Errorf("metadata not byte-exact: %s", read.Metadata)
	}
	// Replace: the content changes, CreatedAt stays.
	time.Sleep(2 * time.Millisecond)
	in2 := fixturePlugins()[0]
	in2.Version, in2.Skills, in2.Metadata = "2.0.0", nil, nil
	got2, err := st.PutPlugin(ctx, in2)
	wantErr(t, "PutPlugin (replace)", err, nil)
	if diff := cmp.Diff(in2, got2, pluginTimes); diff != "" {
		t.Errorf("replaced (-want +got):\n%s", diff)
	}
	if !got2.CreatedAt.Equal(got.CreatedAt) || !got2.UpdatedAt.After(got.UpdatedAt) {
		t.Errorf("replace: CreatedAt %v -> %v, UpdatedAt %v -> %v", got.CreatedAt, got2.CreatedAt, got.UpdatedAt, got2.UpdatedAt)
	}
	_, err = st.Plugin(ctx, "nope")
	wantErr(t, "Plugin(nope)", err, cache.ErrNotFound)
}

func testPluginPutInvalid(t *testing.T, st cache.PluginStore) {
	base := fixturePlugins()[1]
	tests := []struct {
		name string
		mod  func(p *cache.Plugin)
	}{
		{"empty slug", func(p *cache.Plugin) { p.Slug = " " }},
		{"bad slug", func(p *cache.Plugin) { p.Slug = "code review" }},
		{"empty name", func(p *cache.Plugin) { p.Name = "" }},
		{"negative tokens", func(p *cache.Plugin) { p.TokenEstimate = -1 }},
		{"unnamed skill", func(p *cache.Plugin) { p.Skills = []cache.PluginSkill{{Content: "x"}} }},
		{"skill with negative tokens", func(p *cache.Plugin) { p.Skills = []cache.PluginSkill{{Name: "x", TokenEstimate: -3}} }},
		{"absurd tokens", func(p *cache.Plugin) { p.TokenEstimate = math.MaxInt }},
		{"tokens just over the bound", func(p *cache.Plugin) { p.TokenEstimate = cache.MaxTokenEstimate + 1 }},
		{"skill with absurd tokens", func(p *cache.Plugin) { p.Skills = []cache.PluginSkill{{Name: "x", TokenEstimate: math.MaxInt - 1}} }},
		{"unnamed command", func(p *cache.Plugin) { p.Commands = []cache.PluginCommand{{Description: "x"}} }},
		{"metadata array", func(p *cache.Plugin) { p.Metadata = json.RawMessage(`[1]`) }},
		{"metadata invalid", func(p *cache.Plugin) { p.Metadata = json.RawMessage(`{"a":`) }},
		{"NUL in the name", func(p *cache.Plugin) { p.Name = "a\x00b" }},
		{"invalid UTF-8", func(p *cache.Plugin) { p.Description = "\xff" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base
			tt.mod(&p)
			_, err := st.PutPlugin(context.Background(), p)
			wantErr(t, "PutPlugin", err, cache.ErrInvalid)
		})
	}
	page, err := st.Plugins(context.Background(), cache.PluginQuery{})
	wantErr(t, "Plugins", err, nil)
	if page.Total != 0 {
		t.Errorf("refused plugins were stored: %v", pluginSlugs(page.Plugins))
	}
}

func testPluginList(t *testing.T, st cache.PluginStore) {
	putPlugins(t, st)
	tests := []struct {
		name      string
		q         cache.PluginQuery
		want      []string
		wantTotal int
		wantErr   error
	}{
		{"global", cache.PluginQuery{}, []string{"code-review", "meeting-notes", "sql-helper"}, 3, nil},
		{"with a workspace's own", cache.PluginQuery{WorkspaceID: "ws2"}, []string{"code-review", "meeting-notes", "sql-helper", "ws2-private"}, 4, nil},
		{"another workspace", cache.PluginQuery{WorkspaceID: "ws1"}, []string{"code-review", "meeting-notes", "sql-helper"}, 3, nil},
		{"search", cache.PluginQuery{Search: "SQL"}, []string{"sql-helper"}, 1, nil},
		{"search description", cache.PluginQuery{Search: "meetings"}, []string{"meeting-notes"}, 1, nil},
		{"search is literal", cache.PluginQuery{Search: "%"}, []string{}, 0, nil},
		{"page", cache.PluginQuery{Limit: 2, Offset: 1}, []string{"meeting-notes", "sql-helper"}, 3, nil},
		{"past the end", cache.PluginQuery{Offset: 10}, []string{}, 3, nil},
		{"negative", cache.PluginQuery{Limit: -1}, nil, 0, cache.ErrInvalid},
		{"workspace with NUL", cache.PluginQuery{WorkspaceID: "ws2\x00"}, nil, 0, cache.ErrInvalid},
		{"workspace not UTF-8", cache.PluginQuery{WorkspaceID: "ws\xff"}, nil, 0, cache.ErrInvalid},
		{"search with NUL", cache.PluginQuery{Search: "sql\x00"}, nil, 0, cache.ErrInvalid},
		{"search not UTF-8", cache.PluginQuery{Search: "\xc3"}, nil, 0, cache.ErrInvalid},
		{"workspace of LIKE wildcards", cache.PluginQuery{WorkspaceID: "ws%"}, []string{"code-review", "meeting-notes", "sql-helper"}, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := st.Plugins(context.Background(), tt.q)
			wantErr(t, "Plugins", err, tt.wantErr)
			if tt.wantErr != nil {
				return
			}
			if diff := cmp.Diff(tt.want, pluginSlugs(page.Plugins)); diff != "" {
				t.Errorf("slugs (-want +got):\n%s", diff)
			}
			if page.Total != tt.wantTotal {
				t.Errorf("Total = %d, want %d", page.Total, tt.wantTotal)
			}
		})
	}
}

func testPluginEnable(t *testing.T, st cache.PluginStore) {
	ctx := context.Background()
	putPlugins(t, st)
	first, err := st.EnablePlugin(ctx, "ws1", "Code-Review", "alice")
	wantErr(t, "EnablePlugin", err, nil)
	if diff := cmp.Diff(cache.PluginEnablement{WorkspaceID: "ws1", Plugin: "code-review", EnabledBy: "alice"}, first, pluginTimes); diff != "" {
		t.Errorf("EnablePlugin (-want +got):\n%s", diff)
	}
	if first.EnabledAt.IsZero() {
		t.Error("EnabledAt not set")
	}
	again, err := st.EnablePlugin(ctx, "ws1", "code-review", "bob")
	wantErr(t, "EnablePlugin again", err, nil)
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("enabling again changed the enablement (-first +again):\n%s", diff)
	}
	_, err = st.EnablePlugin(ctx, "ws1", "sql-helper", "")
	wantErr(t, "EnablePlugin(sql-helper)", err, nil)
	_, err = st.EnablePlugin(ctx, "ws1", "nope", "")
	wantErr(t, "EnablePlugin(unknown)", err, cache.ErrNotFound)
	_, err = st.EnablePlugin(ctx, "ws1", "ws2-private", "")
	wantErr(t, "EnablePlugin(another workspace's plugin)", err, cache.ErrNotFound)
	_, err = st.EnablePlugin(ctx, "ws2", "ws2-private", "")
	wantErr(t, "EnablePlugin(own plugin)", err, nil)
	_, err = st.EnablePlugin(ctx, "", "code-review", "")
	wantErr(t, "EnablePlugin(no workspace)", err, cache.ErrInvalid)
	got, err := st.EnabledPlugins(ctx, "ws1")
	wantErr(t, "EnabledPlugins", err, nil)
	want := []cache.PluginEnablement{{WorkspaceID: "ws1", Plugin: "code-review", EnabledBy: "alice"}, {WorkspaceID: "ws1", Plugin: "sql-helper"}}
	if diff := cmp.Diff(want, got, pluginTimes); diff != "" {
		t.Errorf("EnabledPlugins(ws1) (-want +got):\n%s", diff)
	}
	got, err = st.EnabledPlugins(ctx, "ws9")
	wantErr(t, "EnabledPlugins(ws9)", err, nil)
	if len(got) != 0 {
		t.Errorf("EnabledPlugins(ws9) = %v, want none", got)
	}
}

func enable(t *testing.T, st cache.PluginStore, ws string, slugs ...string) {
	t.Helper()
	for _, s := range slugs {
		if _, err := st.EnablePlugin(context.Background(), ws, s, "test"); err != nil {
			t.Fatalf("EnablePlugin(%s, %s): %v", ws, s, err)
		}
	}
}

func testPluginAssign(t *testing.T, st cache.PluginStore) {
	ctx := context.Background()
	putPlugins(t, st)
	enable(t, st, "ws1", "code-review", "meeting-notes", "sql-helper")
	got, err := st.SetAgentPlugins(ctx, "ws1", 7, []string{"sql-helper", "CODE-REVIEW", "sql-helper", "meeting-notes", "code-review"})
	wantErr(t, "SetAgentPlugins", err, nil)
	want := []string{"sql-helper@0", "code-review@1", "meeting-notes@2"}
	if diff := cmp.Diff(want, assignedSlugs(got)); diff != "" {
		t.Errorf("SetAgentPlugins (-want +got):\n%s", diff)
	}
	read, err := st.AgentPlugins(ctx, 7)
	wantErr(t, "AgentPlugins", err, nil)
	if diff := cmp.Diff(got, read); diff != "" {
		t.Errorf("AgentPlugins after set (-set +read):\n%s", diff)
	}
	for _, a := range read {
		if a.WorkspaceID != "ws1" || a.AgentID != 7 || a.AssignedAt.IsZero() {
			t.Errorf("assignment %+v: want workspace ws1, agent 7 and a time", a)
		}
	}
	// Replace all, in the new order.
	got, err = st.SetAgentPlugins(ctx, "ws1", 7, []string{"meeting-notes"})
	wantErr(t, "SetAgentPlugins (replace)", err, nil)
	if diff := cmp.Diff([]string{"meeting-notes@0"}, assignedSlugs(got)); diff != "" {
		t.Errorf("replace (-want +got):\n%s", diff)
	}
	read, _ = st.AgentPlugins(ctx, 7)
	if diff := cmp.Diff([]string{"meeting-notes@0"}, assignedSlugs(read)); diff != "" {
		t.Errorf("AgentPlugins after replace (-want +got):\n%s", diff)
	}
	// Another agent is untouched; an empty list clears.
	if _, err := st.SetAgentPlugins(ctx, "ws1", 8, []string{"code-review"}); err != nil {
		t.Fatal(err)
	}
	got, err = st.SetAgentPlugins(ctx, "ws1", 7, nil)
	wantErr(t, "SetAgentPlugins(nil)", err, nil)
	if len(got) != 0 {
		t.Errorf("clearing returned %v", got)
	}
	read, _ = st.AgentPlugins(ctx, 7)
	if len(read) != 0 {
		t.Errorf("AgentPlugins after clearing = %v", read)
	}
	read, _ = st.AgentPlugins(ctx, 8)
	if diff := cmp.Diff([]string{"code-review@0"}, assignedSlugs(read)); diff != "" {
		t.Errorf("agent 8 (-want +got):\n%s", diff)
	}
	_, err = st.SetAgentPlugins(ctx, "ws1", 0, nil)
	wantErr(t, "SetAgentPlugins(agent 0)", err, cache.ErrInvalid)
	_, err = st.SetAgentPlugins(ctx, "ws1", 7, []string{"bad slug"})
	wantErr(t, "SetAgentPlugins(bad slug)", err, cache.ErrInvalid)
	_, err = st.AgentPlugins(ctx, -1)
	wantErr(t, "AgentPlugins(-1)", err, cache.ErrInvalid)
}

func testPluginAssignNotEnabled(t *testing.T, st cache.PluginStore) {
	ctx := context.Background()
	putPlugins(t, st)
	enable(t, st, "ws1", "code-review")
	enable(t, st, "ws2", "sql-helper")
	if _, err := st.SetAgentPlugins(ctx, "ws1", 7, []string{"code-review"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		ws    string
		slugs []string
		want  error
	}{
		{"never enabled", "ws1", []string{"meeting-notes"}, cache.ErrPluginNotEnabled},
		{"enabled in another workspace", "ws1", []string{"code-review", "sql-helper"}, cache.ErrPluginNotEnabled},
		{"another workspace's plugin", "ws1", []string{"ws2-private"}, cache.ErrPluginNotEnabled},
		{"unknown", "ws1", []string{"code-review", "nope"}, cache.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := st.SetAgentPlugins(ctx, tt.ws, 7, tt.slugs)
			wantErr(t, "SetAgentPlugins", err, tt.want)
			read, err := st.AgentPlugins(ctx, 7)
			wantErr(t, "AgentPlugins", err, nil)
			if diff := cmp.Diff([]string{"code-review@0"}, assignedSlugs(read)); diff != "" {
				t.Errorf("a refused assignment changed the agent's plugins (-want +got):\n%s", diff)
			}
		})
	}
}

func testPluginDisable(t *testing.T, st cache.PluginStore) {
	ctx := context.Background()
	putPlugins(t, st)
	enable(t, st, "ws1", "code-review", "meeting-notes", "sql-helper")
	enable(t, st, "ws2", "meeting-notes")
	if _, err := st.SetAgentPlugins(ctx, "ws1", 7, []string{"code-review", "meeting-notes", "sql-helper"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetAgentPlugins(ctx, "ws2", 9, []string{"meeting-notes"}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "DisablePlugin", st.DisablePlugin(ctx, "ws1", "meeting-notes"), nil)
	read, _ := st.AgentPlugins(ctx, 7)
	if diff := cmp.Diff([]string{"code-review@0", "sql-helper@1"}, assignedSlugs(read)); diff != "" {
		t.Errorf("agent 7 after disabling (-want +got):\n%s", diff)
	}
	read, _ = st.AgentPlugins(ctx, 9)
	if diff := cmp.Diff([]string{"meeting-notes@0"}, assignedSlugs(read)); diff != "" {
		t.Errorf("agent 9 in ws2 must keep its plugin (-want +got):\n%s", diff)
	}
	wantErr(t, "DisablePlugin again", st.DisablePlugin(ctx, "ws1", "meeting-notes"), cache.ErrNotFound)
	_, err := st.SetAgentPlugins(ctx, "ws1", 7, []string{"meeting-notes"})
	wantErr(t, "assigning the disabled plugin", err, cache.ErrPluginNotEnabled)
}

func testPluginDelete(t *testing.T, st cache.PluginStore) {
	ctx := context.Background()
	putPlugins(t, st)
	enable(t, st, "ws1", "code-review", "sql-helper")
	if _, err := st.SetAgentPlugins(ctx, "ws1", 7, []string{"code-review", "sql-helper"}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "DeletePlugin", st.DeletePlugin(ctx, "CODE-REVIEW"), nil)
	wantErr(t, "DeletePlugin again", st.DeletePlugin(ctx, "code-review"), cache.ErrNotFound)
	_, err := st.Plugin(ctx, "code-review")
	wantErr(t, "Plugin after delete", err, cache.ErrNotFound)
	en, _ := st.EnabledPlugins(ctx, "ws1")
	if len(en) != 1 || en[0].Plugin != "sql-helper" {
		t.Errorf("EnabledPlugins after delete = %+v, want sql-helper only", en)
	}
	read, _ := st.AgentPlugins(ctx, 7)
	if diff := cmp.Diff([]string{"sql-helper@0"}, assignedSlugs(read)); diff != "" {
		t.Errorf("agent 7 after delete (-want +got):\n%s", diff)
	}
}

func testPluginScope(t *testing.T, st cache.PluginStore) {
	ctx := context.Background()
	putPlugins(t, st)
	enable(t, st, "ws1", "sql-helper")
	p := fixturePlugins()[2]
	p.WorkspaceID = "ws2"
	_, err := st.PutPlugin(ctx, p)
	wantErr(t, "moving an enabled plugin into another workspace", err, cache.ErrConflict)
	p.WorkspaceID = "ws1"
	_, err = st.PutPlugin(ctx, p)
	wantErr(t, "moving a plugin into the workspace that enabled it", err, nil)
	page, _ := st.Plugins(ctx, cache.PluginQuery{WorkspaceID: "ws2"})
	if diff := cmp.Diff([]string{"code-review", "meeting-notes", "ws2-private"}, pluginSlugs(page.Plugins)); diff != "" {
		t.Errorf("ws2 sees (-want +got):\n%s", diff)
	}
}

func testPluginContext(t *testing.T, st cache.PluginStore) {
	putPlugins(t, st)
	enable(t, st, "ws1", "code-review")
	if _, err := st.SetAgentPlugins(context.Background(), "ws1", 7, []string{"code-review"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"PutPlugin":      func() error { _, err := st.PutPlugin(ctx, fixturePlugins()[1]); return err },
		"Plugin":         func() error { _, err := st.Plugin(ctx, "code-review"); return err },
		"Plugins":        func() error { _, err := st.Plugins(ctx, cache.PluginQuery{}); return err },
		"DeletePlugin":   func() error { return st.DeletePlugin(ctx, "code-review") },
		"EnablePlugin":   func() error { _, err := st.EnablePlugin(ctx, "ws1", "sql-helper", ""); return err },
		"DisablePlugin":  func() error { return st.DisablePlugin(ctx, "ws1", "code-review") },
		"EnabledPlugins": func() error { _, err := st.EnabledPlugins(ctx, "ws1"); return err },
		"SetAgentPlugins": func() error {
			_, err := st.SetAgentPlugins(ctx, "ws1", 7, nil)
			return err
		},
		"AgentPlugins": func() error { _, err := st.AgentPlugins(ctx, 7); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", name, err)
		}
	}
	read, err := st.AgentPlugins(context.Background(), 7)
	wantErr(t, "AgentPlugins", err, nil)
	if diff := cmp.Diff([]string{"code-review@0"}, assignedSlugs(read)); diff != "" {
		t.Errorf("cancelled calls changed the assignments (-want +got):\n%s", diff)
	}
}

// testPluginConcurrent replaces one agent's plugins from several goroutines: every call
// succeeds and the final list is one of the lists written, whole.
func testPluginConcurrent(t *testing.T, st cache.PluginStore) {
	ctx := context.Background()
	putPlugins(t, st)
	enable(t, st, "ws1", "code-review", "meeting-notes", "sql-helper")
	lists := [][]string{
		{"code-review", "meeting-notes", "sql-helper"},
		{"sql-helper", "code-review"},
		{"meeting-notes"},
		{"sql-helper", "meeting-notes", "code-review"},
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(lists))
	for r := 0; r < 4; r++ {
		for _, l := range lists {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := st.SetAgentPlugins(ctx, "ws1", 7, l); err != nil {
					errs <- err
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent SetAgentPlugins: %v", err)
	}
	read, err := st.AgentPlugins(ctx, 7)
	wantErr(t, "AgentPlugins", err, nil)
	var got []string
	for _, a := range read {
		got = append(got, a.Plugin)
	}
	for _, l := range lists {
		if strings.Join(l, ",") == strings.Join(got, ",") {
			return
		}
	}
	t.Errorf("final assignments %v are none of the lists written", got)
}
