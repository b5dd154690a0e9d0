package hint_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// keepFixture is a mail app with many actions that send a weekly sales report, so that a
// clause asking for that has more candidates than the ranking keeps unsorted and at least
// three of them score well (the cut before sorting applies), and one action that shares no
// word with the request below; and an app more, so that no app is the only one.
func keepFixture() *fakeStore {
	acts := []cache.Action{
		{App: "mailer", Slug: "MAILER_SEND_EMAIL", DisplayName: "Send email", Description: "Sends an email message to recipients with a report attached."},
		{App: "mailer", Slug: "MAILER_QUEUE_OUTBOX_ITEM", DisplayName: "Queue outbox item", Description: "Adds an item to the outbox queue."},
	}
	for _, v := range []string{"batch", "bulk", "html", "plain", "templated", "secure", "delayed", "tracked", "signed", "encrypted", "priority", "group", "test", "draft", "reminder"} {
		acts = append(acts, cache.Action{App: "mailer", Slug: fmt.Sprintf("MAILER_SEND_%s_EMAIL", strings.ToUpper(v)),
			DisplayName: "Send " + v + " email", Description: fmt.Sprintf("Sends a %s email with a weekly sales report.", v)})
	}
	acts = append(acts, cache.Action{App: "notes", Slug: "NOTES_CREATE_NOTE", DisplayName: "Create note", Description: "Creates a note."})
	var conns []cache.Connection
	for _, a := range []string{"mailer", "notes"} {
		conns = append(conns, cache.Connection{WorkspaceID: "ws", App: a, Status: cache.StatusActive})
	}
	return &fakeStore{metas: classifyAll(acts), connections: map[string][]cache.Connection{"ws": conns}}
}

// TestUsageNeverCut pins the ranking's exemption for what a workspace's history clearly
// points to: an action the request repeats earlier successful calls of is listed even when
// its lexical score is far below keep_ratio times the clause's best, which alone would cut
// it (both the cut before sorting and the one while listing read lexical scores only).
func TestUsageNeverCut(t *testing.T) {
	const target = "MAILER_QUEUE_OUTBOX_ITEM"
	w := hint.DefaultWeights()
	keepRatio, _ := w.Get("keep_ratio")
	for _, tc := range []struct {
		name, prompt, calledFrom string
		st                       *fakeStore
		action                   string
	}{
		// Many candidates: the cut before sorting applies, then the one while listing.
		{name: "exact repeat, many candidates", prompt: "email the weekly sales report",
			calledFrom: "email the weekly sales report", st: keepFixture(), action: target},
		// The usage fixture's few candidates: only the cut while listing applies.
		// (Either cut without the exemption fails this test: checked by removing it.)
		{name: "exact repeat, few candidates", prompt: "email dana the report",
			calledFrom: "email dana the report", st: usageStore(), action: "TODOIST_CREATE_TASK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := hint.Request{Prompt: tc.prompt, WorkspaceID: "ws"}
			plain := buildWith(t, hint.New(hint.Config{}), tc.st, req)
			if len(plain.Matches) == 0 || slices.Contains(plain.MatchedActions, tc.action) {
				t.Fatalf("without usage listed %v: the test needs a lexical list without %s", plain.MatchedActions, tc.action)
			}
			rec := cache.NewMemory()
			use(t, rec, tc.action, tc.calledFrom, true, 1)
			got := buildWith(t, hint.New(hint.Config{Usage: &hint.UsageConfig{Reader: rec, Refresh: -1}}), tc.st, req)
			m, ok := matchOf(got, tc.action)
			if !ok {
				t.Fatalf("with an exact repeat of %s recorded, listed %v; want it listed", tc.action, got.MatchedActions)
			}
			// The precondition that makes the exemption matter: lexically, the action is
			// far below keep_ratio times the best the plain hint lists.
			lexical, best := m.Score-m.Usage, plain.Matches[0].Score
			if lexical >= keepRatio*best/2 {
				t.Errorf("%s scores %.3f lexically against the best's %.3f: want far below keep_ratio (%.2f) times it", tc.action, lexical, best, keepRatio)
			}
			if got.MatchedActions[0] != tc.action {
				t.Errorf("listed %v; want the exact repeat %s first", got.MatchedActions, tc.action)
			}
		})
	}
}
