package cache_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

// The shared catalogue is never copied into the repository; tests that use it take its path
// from these flags (or the environment variables) and skip when they are empty.
var (
	catalogFlag = flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "path of the shared actions snapshot (composio-actions.jsonl)")
	appsFlag    = flag.String("apps", os.Getenv("TOOLHINT_APPS"), "path of the shared apps snapshot (composio-apps.jsonl)")
)

const (
	testdataActions = "../testdata/catalog/actions.jsonl"
	testdataApps    = "../testdata/catalog/apps.jsonl"
)

// loadTestdata returns a memory store holding the project's own test catalogue.
func loadTestdata(t testing.TB) *cache.Memory {
	t.Helper()
	st := cache.NewMemory()
	importFiles(t, st, testdataApps, testdataActions)
	return st
}

func importFiles(t testing.TB, st cache.Store, apps, actions string) {
	t.Helper()
	ctx := context.Background()
	if apps != "" {
		f, err := os.Open(apps)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := cache.ImportAppsJSONL(ctx, st, f); err != nil {
			t.Fatalf("ImportAppsJSONL(%s): %v", apps, err)
		}
	}
	f, err := os.Open(actions)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := cache.ImportJSONL(ctx, st, f); err != nil {
		t.Fatalf("ImportJSONL(%s): %v", actions, err)
	}
}

func TestTestdataRoundTrip(t *testing.T) {
	cachetest.RoundTrip(t, func(*testing.T) cache.Store { return cache.NewMemory() }, testdataActions, testdataApps)
}

// TestTestdataExportIsFile checks that exporting the test catalogue gives back its files
// byte for byte: they are written in the export's key order and row order.
func TestTestdataExportIsFile(t *testing.T) {
	st := loadTestdata(t)
	ctx := context.Background()
	for _, f := range []struct {
		path   string
		export func(context.Context, cache.Store, *bytes.Buffer) (int, error)
	}{
		{testdataActions, func(ctx context.Context, st cache.Store, w *bytes.Buffer) (int, error) {
			return cache.ExportJSONL(ctx, st, w)
		}},
		{testdataApps, func(ctx context.Context, st cache.Store, w *bytes.Buffer) (int, error) {
			return cache.ExportAppsJSONL(ctx, st, w)
		}},
	} {
		want, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		n, err := f.export(ctx, st, &got)
		if err != nil {
			t.Fatalf("export %s: %v", f.path, err)
		}
		if n != bytes.Count(want, []byte("\n")) {
			t.Errorf("export %s: %d rows, want %d", f.path, n, bytes.Count(want, []byte("\n")))
		}
		if diff := cmp.Diff(string(want), got.String()); diff != "" {
			t.Errorf("export differs from %s (-file +export):\n%s", f.path, diff)
		}
	}
}

func TestTestdataContents(t *testing.T) {
	st := loadTestdata(t)
	ctx := context.Background()
	// Every row's parameters are stored byte-exact, and every app's action_count matches.
	raw, err := os.ReadFile(testdataActions)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, cache.MaxLineLen)
	rows := 0
	for sc.Scan() {
		var row struct {
			Action     string          `json:"action"`
			Parameters json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		a, err := st.Action(ctx, row.Action)
		if err != nil {
			t.Errorf("Action(%s): %v", row.Action, err)
			continue
		}
		if !bytes.Equal(a.Parameters, row.Parameters) {
			t.Errorf("%s: parameters not byte-exact", row.Action)
		}
		rows++
	}
	if rows < 60 {
		t.Errorf("only %d actions in the test catalogue", rows)
	}
	appsRaw, err := os.ReadFile(testdataApps)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(appsRaw)), "\n") {
		var row struct {
			App         string `json:"app"`
			ActionCount int    `json:"action_count"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		a, err := st.App(ctx, row.App)
		if err != nil {
			t.Errorf("App(%s): %v", row.App, err)
			continue
		}
		if a.Slug != strings.ToLower(row.App) || a.ActionCount != row.ActionCount {
			t.Errorf("app %s: stored as %q with %d actions, want %q with %d", row.App, a.Slug, a.ActionCount, strings.ToLower(row.App), row.ActionCount)
		}
	}
	for _, slug := range []string{"GMAIL_SEND_EMAIL", "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "SLACK_CREATE_CHANNEL_BASED_CONVERSATION", "GITHUB_CREATE_AN_ISSUE", "JIRA_GET_ISSUE", "GOOGLECALENDAR_DELETE_EVENT", "NOTION_CREATE_NOTION_PAGE"} {
		if _, err := st.Action(ctx, slug); err != nil {
			t.Errorf("Action(%s): %v", slug, err)
		}
	}
	del, err := st.Action(ctx, "GOOGLECALENDAR_DELETE_EVENT")
	if err != nil {
		t.Fatal(err)
	}
	if del.Destructive == nil || !*del.Destructive || del.ReadOnly == nil || *del.ReadOnly {
		t.Errorf("GOOGLECALENDAR_DELETE_EVENT flags destructive=%v read_only=%v, want true and false", del.Destructive, del.ReadOnly)
	}
}

// TestSharedCatalogRoundTrip imports the full shared catalogue (-catalog, -apps) into
// memory, exports it, re-imports the export into a fresh store and finds it unchanged.
func TestSharedCatalogRoundTrip(t *testing.T) {
	cachetest.RoundTrip(t, func(*testing.T) cache.Store { return cache.NewMemory() }, *catalogFlag, *appsFlag)
}

func TestExportEscaping(t *testing.T) {
	st := cache.NewMemory()
	ctx := context.Background()
	desc := "quote \" backslash \\ newline \n tab \t ctl \x01 \x1f del \x7f é ✓ \u2028 <&>"
	pretty := "{\n  \"type\": \"object\",\n  \"properties\": {}\n}"
	_, err := st.Apply(ctx, cache.Batch{
		Apps:    []cache.App{{Slug: "x", DisplayName: "X"}},
		Actions: []cache.Action{{App: "x", Slug: "X_ONE", DisplayName: "One", Description: desc, Parameters: json.RawMessage(pretty)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := cache.ExportJSONL(ctx, st, &out); err != nil {
		t.Fatal(err)
	}
	// Strings are spelled like the catalogue snapshot (Python's json.dumps with
	// ensure_ascii=False); a schema spanning lines is compacted, as a row must be one line.
	want := `{"app":"X","action":"X_ONE","display_name":"One","description":"quote \" backslash \\ newline \n tab \t ctl \u0001 \u001f del ` + "\x7f é ✓ \u2028" + ` <&>","parameters":{"type":"object","properties":{}},"tags":[],"no_auth":false,"display_name_derived":false}` + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("exported row (-want +got):\n%s", diff)
	}
	st2 := cache.NewMemory()
	if _, err := cache.ImportJSONL(ctx, st2, &out); err != nil {
		t.Fatal(err)
	}
	a, err := st2.Action(ctx, "X_ONE")
	if err != nil {
		t.Fatal(err)
	}
	if a.Description != desc {
		t.Errorf("description after a round trip = %q, want %q", a.Description, desc)
	}
}

func TestImportLineHandling(t *testing.T) {
	ctx := context.Background()
	row := func(slug string) string {
		return `{"app":"GMAIL","action":"` + slug + `","display_name":"","description":"","parameters":{"type":"object"},"tags":[],"no_auth":false,"display_name_derived":true}`
	}
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"blank lines", "\n\n" + row("GMAIL_A") + "\n\n  \n" + row("GMAIL_B"), 2},
		{"CRLF", row("GMAIL_A") + "\r\n" + row("GMAIL_B") + "\r\n", 2},
		{"no final newline", row("GMAIL_A"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := cache.NewMemory()
			n, err := cache.ImportJSONL(ctx, st, strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.want {
				t.Errorf("ImportJSONL = %d, want %d", n, tt.want)
			}
			acts, _ := st.Actions(ctx, cache.ActionFilter{})
			if len(acts) != tt.want {
				t.Errorf("%d actions stored, want %d", len(acts), tt.want)
			}
		})
	}
}

func TestLineErrorText(t *testing.T) {
	in := `{"app":"GMAIL","action":"GMAIL_A","parameters":{}}` + "\n" + `{"app":"GMAIL","action":"GMAIL_A","parameters":{}}` + "\n"
	_, err := cache.ImportJSONL(context.Background(), cache.NewMemory(), strings.NewReader(in))
	var le *cache.LineError
	if !errors.As(err, &le) || le.Line != 2 || !errors.Is(err, cache.ErrConflict) {
		t.Fatalf("error %v, want a *cache.LineError for line 2 wrapping ErrConflict", err)
	}
	want := `cache: line 2: conflict: action "GMAIL_A" is also on line 1`
	if err.Error() != want {
		t.Errorf("error text\n got %q\nwant %q", err.Error(), want)
	}
}

// failingReader returns its data, then an I/O error.
type failingReader struct{ r *strings.Reader }

func (f failingReader) Read(p []byte) (int, error) {
	if f.r.Len() == 0 {
		return 0, errors.New("disk on fire")
	}
	return f.r.Read(p)
}

func TestImportReadError(t *testing.T) {
	st := loadTestdata(t)
	ctx := context.Background()
	before, _ := st.Actions(ctx, cache.ActionFilter{})
	in := `{"app":"GMAIL","action":"GMAIL_NEW","parameters":{}}` + "\n"
	_, err := cache.ImportJSONL(ctx, st, failingReader{strings.NewReader(in)})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("error %v, want the reader's error", err)
	}
	after, _ := st.Actions(ctx, cache.ActionFilter{})
	if len(after) != len(before) {
		t.Errorf("a failed read changed the store: %d actions, was %d", len(after), len(before))
	}
}

// slowReader hands out one line per read, waiting delay before each.
type slowReader struct {
	lines []string
	delay time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	if len(s.lines) == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.delay)
	n := copy(p, s.lines[0])
	s.lines[0] = s.lines[0][n:]
	if s.lines[0] == "" {
		s.lines = s.lines[1:]
	}
	return n, nil
}

// TestImportDeadlineSlowReader imports from a reader that trickles lines: the import stops
// within a line of its deadline, not after a chunk of lines, and leaves the store as it was.
func TestImportDeadlineSlowReader(t *testing.T) {
	const deadline, delay = 200 * time.Millisecond, 20 * time.Millisecond
	rows := strings.SplitAfter(synthActions(1000, "slow"), "\n")
	for _, imp := range []struct {
		name string
		f    func(context.Context, cache.ImportStore, io.Reader) (int, error)
	}{{"ImportJSONL", cache.ImportJSONL}, {"ImportAppsJSONL", cache.ImportAppsJSONL}} {
		t.Run(imp.name, func(t *testing.T) {
			st := cache.NewMemory()
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			start := time.Now()
			_, err := imp.f(ctx, st, &slowReader{lines: slices.Clone(rows), delay: delay})
			elapsed := time.Since(start)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v, want context.DeadlineExceeded", err)
			}
			// A check every 256 lines would take 5 s; one per line takes a line's delay.
			if elapsed > deadline+time.Second {
				t.Errorf("returned %v after the deadline", elapsed-deadline)
			}
			t.Logf("returned %v after the deadline", (elapsed - deadline).Round(time.Millisecond))
			if p, _ := st.ListApps(context.Background(), cache.AppQuery{}); p.Total != 0 {
				t.Errorf("a cancelled import stored %d apps", p.Total)
			}
		})
	}
}
