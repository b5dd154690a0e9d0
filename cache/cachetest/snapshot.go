package cachetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
)

func testConcurrent(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	ctx := context.Background()
	const writers, rounds = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds*4)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				b := cache.Batch{Actions: []cache.Action{
					{App: "gmail", Slug: fmt.Sprintf("GMAIL_W%d_%02d", w, i), DisplayName: "w"},
					// Every writer also rewrites one shared action and one shared app.
					{App: "slack", Slug: "SLACK_SHARED", Description: fmt.Sprintf("by %d/%d", w, i)},
				}}
				if i%3 == 0 {
					b.Apps = []cache.App{{Slug: "slack", DisplayName: fmt.Sprintf("Slack %d", w)}}
				}
				if _, err := st.Apply(ctx, b); err != nil {
					errs <- fmt.Errorf("writer %d Apply %d: %w", w, i, err)
				}
				if err := st.AssignApp(ctx, cache.Assignment{AgentID: int64(w + 1), App: fmt.Sprintf("app_%d", i), Active: i%2 == 0}); err != nil {
					errs <- fmt.Errorf("writer %d AssignApp %d: %w", w, i, err)
				}
				if _, err := st.AddConnection(ctx, fmt.Sprintf("ws%d", i), "gmail"); err != nil && !errors.Is(err, cache.ErrConflict) {
					errs <- fmt.Errorf("writer %d AddConnection %d: %w", w, i, err)
				}
				if _, err := st.ActionMeta(ctx, []string{"gmail", "slack"}); err != nil {
					errs <- fmt.Errorf("writer %d ActionMeta: %w", w, err)
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	gmail, err := st.App(ctx, "gmail")
	wantErr(t, "App(gmail)", err, nil)
	wantGmail := 3 + writers*rounds
	if gmail.ActionCount != wantGmail {
		t.Errorf("gmail ActionCount = %d, want %d", gmail.ActionCount, wantGmail)
	}
	acts, err := st.Actions(ctx, cache.ActionFilter{Apps: []string{"gmail"}})
	wantErr(t, "Actions(gmail)", err, nil)
	if len(acts) != wantGmail {
		t.Errorf("%d gmail actions, want %d", len(acts), wantGmail)
	}
	meta, err := st.ActionMeta(ctx, []string{"gmail", "slack"})
	wantErr(t, "ActionMeta", err, nil)
	if len(meta) != wantGmail+4 {
		t.Errorf("%d metadata rows for gmail and slack, want %d", len(meta), wantGmail+4)
	}
	slack, err := st.App(ctx, "slack")
	wantErr(t, "App(slack)", err, nil)
	if slack.ActionCount != 4 || !strings.HasPrefix(slack.DisplayName, "Slack ") {
		t.Errorf("slack = %+v, want 4 actions and a writer's display name", slack)
	}
	for w := 0; w < writers; w++ {
		got, err := st.AgentApps(ctx, int64(w+1))
		wantErr(t, "AgentApps", err, nil)
		if len(got) != rounds {
			t.Errorf("agent %d has %d assignments, want %d", w+1, len(got), rounds)
		}
	}
	conns, err := st.Connections(ctx, "")
	wantErr(t, "Connections", err, nil)
	if len(conns) != rounds {
		t.Errorf("%d connections, want %d (one per workspace)", len(conns), rounds)
	}
}

// fixtureRow is the exported line of GMAIL_DELETE_MESSAGE: keys in the snapshot order,
// app upper case, tags and flags present.
const fixtureRow = `{"app":"GMAIL","action":"GMAIL_DELETE_MESSAGE","display_name":"Delete message","description":"Permanently delete a message.","parameters":{"type":"object","properties":{"message_id":{"type":"string"}},"required":["message_id"]},"tags":["destructiveHint"],"destructive":true,"read_only":false,"no_auth":false,"display_name_derived":false}`

func exportBoth(t *testing.T, st cache.Store) (apps, actions []byte) {
	t.Helper()
	ctx := context.Background()
	var a, b bytes.Buffer
	if _, err := cache.ExportAppsJSONL(ctx, st, &a); err != nil {
		t.Fatalf("ExportAppsJSONL: %v", err)
	}
	n, err := cache.ExportJSONL(ctx, st, &b)
	if err != nil {
		t.Fatalf("ExportJSONL: %v", err)
	}
	if lines := bytes.Count(b.Bytes(), []byte("\n")); lines != n {
		t.Errorf("ExportJSONL returned %d but wrote %d lines", n, lines)
	}
	return a.Bytes(), b.Bytes()
}

func importBoth(t *testing.T, st cache.Store, apps, actions []byte) {
	t.Helper()
	ctx := context.Background()
	if _, err := cache.ImportAppsJSONL(ctx, st, bytes.NewReader(apps)); err != nil {
		t.Fatalf("ImportAppsJSONL: %v", err)
	}
	n, err := cache.ImportJSONL(ctx, st, bytes.NewReader(actions))
	if err != nil {
		t.Fatalf("ImportJSONL: %v", err)
	}
	if lines := bytes.Count(actions, []byte("\n")); n != lines {
		t.Errorf("ImportJSONL = %d, want %d (the lines)", n, lines)
	}
}

func testSnapshotRoundTrip(t *testing.T, newStore func(t *testing.T) cache.Store) {
	src := newStore(t)
	loadFixture(t, src)
	apps, actions := exportBoth(t, src)
	first, _, _ := strings.Cut(string(actions), "\n")
	if first != fixtureRow {
		t.Errorf("first exported row:\n got %s\nwant %s", first, fixtureRow)
	}
	if !bytes.Contains(actions, []byte(`"parameters":`+sendEmailParams+`,`)) {
		t.Errorf("exported GMAIL_SEND_EMAIL parameters are not byte-exact")
	}

	dst := newStore(t)
	importBoth(t, dst, apps, actions)
	want, got := Snapshot(t, src), Snapshot(t, dst)
	if diff := cmp.Diff(want, got, noTimes); diff != "" {
		t.Errorf("catalogue after export and import (-want +got):\n%s", diff)
	}
	apps2, actions2 := exportBoth(t, dst)
	if diff := cmp.Diff(string(actions), string(actions2)); diff != "" {
		t.Errorf("actions export differs after a round trip (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(string(apps), string(apps2)); diff != "" {
		t.Errorf("apps export differs after a round trip (-first +second):\n%s", diff)
	}

	// Importing a store's own export changes nothing, times included.
	importBoth(t, src, apps, actions)
	if diff := cmp.Diff(want, Snapshot(t, src), exact); diff != "" {
		t.Errorf("re-importing the export changed the store (-before +after):\n%s", diff)
	}

	// Importing actions of apps the store lacks creates the apps from the rows.
	bare := newStore(t)
	if _, err := cache.ImportJSONL(context.Background(), bare, bytes.NewReader(actions)); err != nil {
		t.Fatalf("ImportJSONL into an empty store: %v", err)
	}
	for slug, wantApp := range map[string]cache.App{
		"google_drive": {Slug: "google_drive", DisplayName: "Google Drive", ActionCount: 1},
		"weather":      {Slug: "weather", DisplayName: "Weather", NoAuth: true, ActionCount: 1},
	} {
		got, err := bare.App(context.Background(), slug)
		if err != nil {
			t.Errorf("App(%s) after importing only actions: %v", slug, err)
			continue
		}
		if diff := cmp.Diff(wantApp, got, noTimes); diff != "" {
			t.Errorf("app made from rows (-want +got):\n%s", diff)
		}
	}
}

// goodRows returns n valid action lines for the app gmail.
func goodRows(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`{"app":"GMAIL","action":"GMAIL_ROW_%05d","display_name":"Row %d","description":"","parameters":{"type":"object","properties":{}},"tags":[],"no_auth":false,"display_name_derived":true}`, i, i)
	}
	return out
}

func testSnapshotBadInput(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	before := Snapshot(t, st)
	with := func(n int, bad string) string {
		rows := goodRows(n)
		rows[n-1] = bad
		return strings.Join(rows, "\n") + "\n"
	}
	tests := []struct {
		name string
		in   string
		line int
		want error
	}{
		{"malformed JSON", with(3, `{"app":"GMAIL","action":`), 3, cache.ErrInvalid},
		{"not an object", with(2, `["GMAIL_X"]`), 2, cache.ErrInvalid},
		{"schema not an object", with(5, `{"app":"GMAIL","action":"GMAIL_X","parameters":[1,2]}`), 5, cache.ErrInvalid},
		{"schema a string", with(2, `{"app":"GMAIL","action":"GMAIL_X","parameters":"{}"}`), 2, cache.ErrInvalid},
		{"no parameters", with(2, `{"app":"GMAIL","action":"GMAIL_X"}`), 2, cache.ErrInvalid},
		{"no app", with(2, `{"action":"GMAIL_X","parameters":{}}`), 2, cache.ErrInvalid},
		{"no action", with(2, `{"app":"GMAIL","parameters":{}}`), 2, cache.ErrInvalid},
		{"bad slug", with(2, `{"app":"GMAIL","action":"GMAIL X","parameters":{}}`), 2, cache.ErrInvalid},
		{"wrong type", with(2, `{"app":"GMAIL","action":"GMAIL_X","parameters":{},"tags":"readOnlyHint"}`), 2, cache.ErrInvalid},
		{"name too long", with(2, `{"app":"GMAIL","action":"GMAIL_X","parameters":{},"display_name":"`+long(cache.MaxNameLen+1)+`"}`), 2, cache.ErrInvalid},
		{"description too long", with(2, `{"app":"GMAIL","action":"GMAIL_X","parameters":{},"description":"`+long(cache.MaxDescriptionLen+1)+`"}`), 2, cache.ErrInvalid},
		{"line too long", with(2, `{"app":"GMAIL","action":"GMAIL_X","parameters":{},"description":"`+long(cache.MaxLineLen)+`"}`), 2, cache.ErrInvalid},
		{"duplicate slug", with(4, `{"app":"GMAIL","action":"gmail_row_00001","parameters":{}}`), 4, cache.ErrConflict},
		{"bad line far down", with(3000, `{"app":"GMAIL","action":"GMAIL_X","parameters":null}`), 3000, cache.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := cache.ImportJSONL(context.Background(), st, strings.NewReader(tt.in))
			wantErr(t, "ImportJSONL", err, tt.want)
			var le *cache.LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *cache.LineError", err)
			}
			if le.Line != tt.line {
				t.Errorf("LineError.Line = %d, want %d", le.Line, tt.line)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("line %d", tt.line)) {
				t.Errorf("error %q does not name line %d", err, tt.line)
			}
			if tt.want == cache.ErrConflict && !strings.Contains(err.Error(), "line 2") {
				t.Errorf("duplicate error %q does not name the first line (2)", err)
			}
			if n != 0 {
				t.Errorf("ImportJSONL = %d on error, want 0", n)
			}
		})
	}
	badApps := []struct {
		name string
		in   string
		line int
		want error
	}{
		{"malformed", "{\"app\":\"X1\"}\n{\"app\":", 2, cache.ErrInvalid},
		{"duplicate", "{\"app\":\"X1\"}\n\n{\"app\":\"x1\"}\n", 3, cache.ErrConflict},
		{"empty slug", "{\"app\":\"X1\"}\n{\"display_name\":\"Nameless\"}\n", 2, cache.ErrInvalid},
		{"wrong type", "{\"app\":\"X1\",\"categories\":\"crm\"}\n", 1, cache.ErrInvalid},
	}
	for _, tt := range badApps {
		t.Run("apps "+tt.name, func(t *testing.T) {
			_, err := cache.ImportAppsJSONL(context.Background(), st, strings.NewReader(tt.in))
			wantErr(t, "ImportAppsJSONL", err, tt.want)
			var le *cache.LineError
			if !errors.As(err, &le) || le.Line != tt.line {
				t.Errorf("error %v, want a *cache.LineError for line %d", err, tt.line)
			}
		})
	}
	if diff := cmp.Diff(before, Snapshot(t, st), exact); diff != "" {
		t.Errorf("failed imports changed the store (-before +after):\n%s", diff)
	}
}

// cancellingReader cancels a context once it has handed out more than after bytes.
type cancellingReader struct {
	r      io.Reader
	after  int
	read   int
	cancel context.CancelFunc
}

func (c *cancellingReader) Read(p []byte) (int, error) {
	if len(p) > 512 {
		p = p[:512]
	}
	n, err := c.r.Read(p)
	c.read += n
	if c.read > c.after {
		c.cancel()
	}
	return n, err
}

func testSnapshotCancelled(t *testing.T, st cache.Store) {
	loadFixture(t, st)
	before := Snapshot(t, st)
	in := strings.Join(goodRows(5000), "\n") + "\n"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n, err := cache.ImportJSONL(ctx, st, &cancellingReader{r: strings.NewReader(in), after: len(in) / 3, cancel: cancel})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ImportJSONL cancelled mid-way: n=%d, error %v, want context.Canceled", n, err)
	}
	if diff := cmp.Diff(before, Snapshot(t, st), exact); diff != "" {
		t.Errorf("a cancelled import changed the store (-before +after):\n%s", diff)
	}
}

// RoundTrip imports a full catalogue snapshot (actionsPath, in the JSON Lines format of
// Composio's catalogue, and optionally appsPath) into a fresh store, exports it, and checks
// that the export is the file's content (byte for byte when the file is ordered by app then
// action, as ExportJSONL writes), that importing the export into a second fresh store gives
// the same catalogue and the same export, and that the apps survive too. It skips when
// actionsPath is empty.
func RoundTrip(t *testing.T, newStore func(t *testing.T) cache.Store, actionsPath, appsPath string) {
	t.Helper()
	if actionsPath == "" {
		t.Skip("no catalogue snapshot given (set -catalog or TOOLHINT_CATALOG)")
	}
	ctx := context.Background()
	orig, err := os.ReadFile(actionsPath)
	if err != nil {
		t.Fatalf("reading the catalogue: %v", err)
	}
	var origApps []byte
	if appsPath != "" {
		if origApps, err = os.ReadFile(appsPath); err != nil {
			t.Fatalf("reading the apps: %v", err)
		}
	}

	st := newStore(t)
	if origApps != nil {
		if _, err := cache.ImportAppsJSONL(ctx, st, bytes.NewReader(origApps)); err != nil {
			t.Fatalf("ImportAppsJSONL: %v", err)
		}
	}
	n, err := cache.ImportJSONL(ctx, st, bytes.NewReader(orig))
	if err != nil {
		t.Fatalf("ImportJSONL: %v", err)
	}
	if want := countLines(orig); n != want {
		t.Errorf("ImportJSONL = %d, want %d (non-blank lines)", n, want)
	}
	apps, actions := exportBoth(t, st)

	// The export holds the file's rows: the same lines, in the store's order.
	wantLines, gotLines := splitLines(orig), splitLines(actions)
	if bytes.Equal(orig, actions) {
		t.Logf("the export of %d actions is byte-identical to %s", n, actionsPath)
	} else {
		sortedWant := slices.Clone(wantLines)
		slices.Sort(sortedWant)
		sortedGot := slices.Clone(gotLines)
		slices.Sort(sortedGot)
		if !slices.Equal(sortedWant, sortedGot) {
			t.Errorf("the export's rows differ from the file's:\n%s", rowDiff(t, wantLines, gotLines))
		}
	}

	if origApps != nil {
		if diff := cmp.Diff(appRows(t, origApps), appRows(t, apps)); diff != "" {
			t.Errorf("exported apps differ from the file's (-file +export):\n%s", diff)
		}
	}

	st2 := newStore(t)
	importBoth(t, st2, apps, actions)
	apps2, actions2 := exportBoth(t, st2)
	if !bytes.Equal(actions, actions2) {
		t.Errorf("the second export differs from the first:\n%s", rowDiff(t, splitLines(actions), splitLines(actions2)))
	}
	if !bytes.Equal(apps, apps2) {
		t.Errorf("the second apps export differs from the first (-first +second):\n%s", cmp.Diff(string(apps), string(apps2)))
	}
	if diff := diffCatalogue(Snapshot(t, st), Snapshot(t, st2), false); diff != "" {
		t.Errorf("catalogue after the round trip (-first +second):\n%s", truncate(diff, 4000))
	}
}

func countLines(b []byte) int {
	return len(splitLines(b))
}

func splitLines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, cache.MaxLineLen)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// rowDiff describes how two lists of JSON rows differ, by action slug, parsing the rows.
func rowDiff(t *testing.T, want, got []string) string {
	t.Helper()
	parse := func(lines []string) map[string]map[string]any {
		m := make(map[string]map[string]any, len(lines))
		for _, l := range lines {
			var row map[string]any
			if err := json.Unmarshal([]byte(l), &row); err != nil {
				t.Fatalf("unparsable row %.200s: %v", l, err)
			}
			m[fmt.Sprint(row["action"])] = row
		}
		return m
	}
	return truncate(cmp.Diff(parse(want), parse(got)), 4000)
}

// appRows parses an apps snapshot into rows by app slug, leaving out keys with empty lists
// (a snapshot may spell "none" either way).
func appRows(t *testing.T, b []byte) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, l := range splitLines(b) {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("unparsable apps row %.200s: %v", l, err)
		}
		for k, v := range row {
			if list, ok := v.([]any); ok && len(list) == 0 {
				delete(row, k)
			}
		}
		out[strings.ToLower(fmt.Sprint(row["app"]))] = row
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n... (truncated)"
}
