package hint_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// usageFixture is a catalogue with sibling actions (two ways to read mail, two to post a
// message), a destructive action, and apps for the named-app test.
func usageFixture() []cache.ActionMeta {
	return classifyAll([]cache.Action{
		{App: "gmail", Slug: "GMAIL_FETCH_EMAILS", DisplayName: "Fetch emails", Description: "Fetches emails in the mailbox."},
		{App: "gmail", Slug: "GMAIL_LIST_THREADS", DisplayName: "List threads", Description: "Lists email threads in the mailbox."},
		{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Sends an email."},
		{App: "gmail", Slug: "GMAIL_DELETE_MESSAGE", DisplayName: "Delete message", Description: "Permanently deletes an email message."},
		{App: "slack", Slug: "SLACK_SEND_MESSAGE", DisplayName: "Send message", Description: "Posts a message to a channel."},
		{App: "slack", Slug: "SLACK_CHAT_POST_MESSAGE", DisplayName: "Post message", Description: "Posts a message to a channel."},
		{App: "outlook", Slug: "OUTLOOK_SEND_EMAIL", DisplayName: "Send email", Description: "Sends an email from Outlook."},
		{App: "outlook", Slug: "OUTLOOK_LIST_MESSAGES", DisplayName: "List messages", Description: "Lists email messages in the mailbox."},
		{App: "todoist", Slug: "TODOIST_CREATE_TASK", DisplayName: "Create task", Description: "Creates a task."},
	})
}

var usageApps = []string{"gmail", "slack", "outlook", "todoist"}

func usageStore() *fakeStore {
	var conns []cache.Connection
	for _, a := range usageApps {
		conns = append(conns, cache.Connection{WorkspaceID: "ws", App: a, Status: cache.StatusActive})
	}
	return &fakeStore{metas: usageFixture(), connections: map[string][]cache.Connection{"ws": conns}}
}

// usageBuilder returns a Builder whose priors read rec on every Build.
func usageBuilder(rec hint.UsageReader) *hint.Builder {
	return hint.New(hint.Config{Usage: &hint.UsageConfig{Reader: rec, Refresh: -1}})
}

// use records n calls of action in ws, led to by prompt.
func use(t *testing.T, rec *cache.Memory, action, prompt string, ok bool, n int) {
	t.Helper()
	evs := make([]cache.UsageEvent, n)
	app := strings.ToLower(action[:strings.IndexByte(action, '_')])
	for i := range evs {
		evs[i] = cache.UsageEvent{WorkspaceID: "ws", App: app, Action: action, OK: ok, Terms: hint.PromptTerms(prompt)}
	}
	if err := rec.RecordUsage(context.Background(), evs, cache.UsageLimits{}); err != nil {
		t.Fatal(err)
	}
}

func buildWith(t *testing.T, b *hint.Builder, st hint.Store, req hint.Request) hint.Result {
	t.Helper()
	res, err := b.Build(context.Background(), st, req)
	if err != nil {
		t.Fatalf("Build(%q): %v", req.Prompt, err)
	}
	return res
}

func matchOf(res hint.Result, action string) (hint.Match, bool) {
	for _, m := range res.Matches {
		if m.Action == action {
			return m, true
		}
	}
	return hint.Match{}, false
}

var usagePrompts = []string{
	"show my latest emails",
	"send a message to the team that the deploy is done",
	"email dana the report",
	"delete the email from the spammer",
	"nudge me about the dentist tomorrow",
	"post in #general: lunch is here",
}

// TestUsageOffIsIdentical: without priors configured, without a workspace, or with an
// empty record, every hint is the one the lexical ranking alone gives.
func TestUsageOffIsIdentical(t *testing.T) {
	st := usageStore()
	empty := cache.NewMemory()
	full := cache.NewMemory()
	use(t, full, "GMAIL_LIST_THREADS", "show my latest emails", true, 5)
	plain := hint.New(hint.Config{})
	for _, p := range usagePrompts {
		want := buildWith(t, plain, st, hint.Request{Prompt: p, WorkspaceID: "ws"})
		for name, tc := range map[string]struct {
			b   *hint.Builder
			req hint.Request
		}{
			"empty record":       {usageBuilder(empty), hint.Request{Prompt: p, WorkspaceID: "ws"}},
			"store is no reader": {hint.New(hint.Config{Usage: &hint.UsageConfig{}}), hint.Request{Prompt: p, WorkspaceID: "ws"}},
			"no workspace":       {usageBuilder(full), hint.Request{Prompt: p, Apps: usageApps}},
		} {
			want := want // the case without a workspace compares with its own plain hint
			got := buildWith(t, tc.b, st, tc.req)
			if tc.req.WorkspaceID == "" {
				want = buildWith(t, plain, st, tc.req)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s, %q (-without +with):\n%s", name, p, diff)
			}
		}
	}
}

// TestUsageReorders: the workspace's record puts the action it uses for requests of much
// the same words before its sibling, Match.Usage shows the prior's share, failed calls
// count against an action, and use for requests of other words changes nothing.
func TestUsageReorders(t *testing.T) {
	st := usageStore()
	req := hint.Request{Prompt: "list the emails in my mailbox", WorkspaceID: "ws"}
	base := buildWith(t, hint.New(hint.Config{}), st, req)
	if len(base.MatchedActions) < 2 {
		t.Fatalf("lexical ranking lists %v: the test needs both siblings", base.MatchedActions)
	}
	// The first action and the next one of the same app: siblings.
	first, second := base.MatchedActions[0], ""
	for _, m := range base.Matches[1:] {
		if m.App == base.Matches[0].App {
			second = m.Action
			break
		}
	}
	if !strings.HasPrefix(first, "GMAIL_") || second == "" {
		t.Fatalf("lexical ranking lists %v: the test needs two Gmail siblings", base.MatchedActions)
	}

	// Calls from requests of other words are no evidence for this one.
	unrelated := cache.NewMemory()
	use(t, unrelated, second, "check the inbox", true, 5)
	if got := buildWith(t, usageBuilder(unrelated), st, req); got.MatchedActions[0] != first {
		t.Errorf("with %s used for other requests, listed %v; want %s still first", second, got.MatchedActions, first)
	}

	rec := cache.NewMemory()
	use(t, rec, second, "list the emails in the inbox", true, 5)
	got := buildWith(t, usageBuilder(rec), st, req)
	if got.MatchedActions[0] != second {
		t.Errorf("with %s used, listed %v; want it first", second, got.MatchedActions)
	}
	if m, _ := matchOf(got, second); m.Usage <= 0 {
		t.Errorf("%s: Usage = %v, want its prior's positive share of the score", second, m.Usage)
	}
	if m, _ := matchOf(got, first); m.Usage != 0 {
		t.Errorf("%s, never used: Usage = %v, want 0", first, m.Usage)
	}

	failing := cache.NewMemory()
	use(t, failing, first, "list the emails in the inbox", false, 5)
	down := buildWith(t, usageBuilder(failing), st, req)
	m, ok := matchOf(down, first)
	b0, _ := matchOf(base, first)
	if ok && (m.Usage >= 0 || m.Score >= b0.Score) {
		t.Errorf("%s after failed calls: score %.3f (usage %.3f), without usage %.3f; want lower", first, m.Score, m.Usage, b0.Score)
	}
	if ok && down.MatchedActions[0] == first {
		t.Errorf("the action whose calls failed is still first: %v", down.MatchedActions)
	}
}

// TestUsageLifts: an action the prompt shares no word with is listed when requests with
// the same words led to it before, and not on a prompt of other words.
func TestUsageLifts(t *testing.T) {
	st := usageStore()
	prompt := "nudge me about the dentist tomorrow"
	if got := buildWith(t, hint.New(hint.Config{}), st, hint.Request{Prompt: prompt, WorkspaceID: "ws"}); slices.Contains(got.MatchedActions, "TODOIST_CREATE_TASK") {
		t.Fatalf("lexical ranking already lists TODOIST_CREATE_TASK for %q: %v", prompt, got.MatchedActions)
	}
	rec := cache.NewMemory()
	use(t, rec, "TODOIST_CREATE_TASK", "nudge me about the dentist on monday", true, 3)
	got := buildWith(t, usageBuilder(rec), st, hint.Request{Prompt: prompt, WorkspaceID: "ws"})
	if !slices.Contains(got.MatchedActions, "TODOIST_CREATE_TASK") {
		t.Errorf("learnt terms did not lift TODOIST_CREATE_TASK: %v", got.MatchedActions)
	}
	other := buildWith(t, usageBuilder(rec), st, hint.Request{Prompt: "show my latest emails", WorkspaceID: "ws"})
	if slices.Contains(other.MatchedActions, "TODOIST_CREATE_TASK") {
		t.Errorf("a prompt of other words lists the used action: %v", other.MatchedActions)
	}
}

// TestUsageNeverBeatsNamedApp: however much the workspace uses another app and however
// heavy the priors, the actions of the app the prompt names come first.
func TestUsageNeverBeatsNamedApp(t *testing.T) {
	st := usageStore()
	rec := cache.NewMemory()
	prompt := "send an email with outlook to dana about the report"
	use(t, rec, "GMAIL_SEND_EMAIL", prompt, true, 50)
	// Priors far heavier than the shipped weights: dominance does not depend on them.
	w := hint.DefaultWeights().With("usage_prior", 10).With("usage_terms", 10)
	b := hint.New(hint.Config{Weights: &w, Usage: &hint.UsageConfig{Reader: rec, Refresh: -1}})
	got := buildWith(t, b, st, hint.Request{Prompt: prompt, WorkspaceID: "ws"})
	if len(got.Matches) == 0 || got.Matches[0].App != "outlook" {
		t.Fatalf("listed %v; want Outlook's actions first", got.MatchedActions)
	}
	// The used action outscores the named app's: only dominance keeps it second.
	if g, ok := matchOf(got, "GMAIL_SEND_EMAIL"); !ok || g.Usage <= 0 || g.Score <= got.Matches[0].Score {
		t.Errorf("GMAIL_SEND_EMAIL %+v against the first %+v: the test needs the used action to score higher", g, got.Matches[0])
	}
}

// TestUsageNeverBringsDestructive: a destructive action the workspace uses all the time,
// from requests with the very words of the prompt, is not listed for a prompt that does
// not ask to destroy.
func TestUsageNeverBringsDestructive(t *testing.T) {
	st := usageStore()
	rec := cache.NewMemory()
	use(t, rec, "GMAIL_DELETE_MESSAGE", "tidy the mailbox of the newsletter emails", true, 50)
	for _, p := range []string{"tidy the mailbox of the newsletter emails", "show my latest emails"} {
		got := buildWith(t, usageBuilder(rec), st, hint.Request{Prompt: p, WorkspaceID: "ws"})
		if slices.Contains(got.MatchedActions, "GMAIL_DELETE_MESSAGE") {
			t.Errorf("%q lists the destructive GMAIL_DELETE_MESSAGE: %v", p, got.MatchedActions)
		}
	}
	got := buildWith(t, usageBuilder(rec), st, hint.Request{Prompt: "delete the newsletter emails", WorkspaceID: "ws"})
	if !slices.Contains(got.MatchedActions, "GMAIL_DELETE_MESSAGE") {
		t.Errorf("a destructive ask does not list GMAIL_DELETE_MESSAGE: %v", got.MatchedActions)
	}
}

// TestUsageDrift: a workspace that moves from one action to its sibling is followed: after
// 20 calls of the first, the sibling comes first within 20 calls of it.
func TestUsageDrift(t *testing.T) {
	const n = 20
	st := usageStore()
	prompt := "post in #general: lunch is here"
	req := hint.Request{Prompt: prompt, WorkspaceID: "ws"}
	rec := cache.NewMemory()
	b := usageBuilder(rec)
	use(t, rec, "SLACK_SEND_MESSAGE", prompt, true, n)
	if got := buildWith(t, b, st, req); got.MatchedActions[0] != "SLACK_SEND_MESSAGE" {
		t.Fatalf("after %d calls of SLACK_SEND_MESSAGE: %v", n, got.MatchedActions)
	}
	for i := 1; ; i++ {
		use(t, rec, "SLACK_CHAT_POST_MESSAGE", prompt, true, 1)
		if got := buildWith(t, b, st, req); got.MatchedActions[0] == "SLACK_CHAT_POST_MESSAGE" {
			t.Logf("followed after %d calls", i)
			break
		}
		if i == n {
			t.Fatalf("SLACK_CHAT_POST_MESSAGE not first after %d calls of it", n)
		}
	}
}

// TestUsagePurge: after a purge the priors are gone (the record is read on every Build).
func TestUsagePurge(t *testing.T) {
	st := usageStore()
	rec := cache.NewMemory()
	b := usageBuilder(rec)
	req := hint.Request{Prompt: "nudge me about the dentist tomorrow", WorkspaceID: "ws"}
	use(t, rec, "TODOIST_CREATE_TASK", req.Prompt, true, 3)
	if got := buildWith(t, b, st, req); !slices.Contains(got.MatchedActions, "TODOIST_CREATE_TASK") {
		t.Fatalf("not lifted before the purge: %v", got.MatchedActions)
	}
	if _, err := rec.PurgeUsage(context.Background(), "ws"); err != nil {
		t.Fatal(err)
	}
	if got := buildWith(t, b, st, req); slices.Contains(got.MatchedActions, "TODOIST_CREATE_TASK") {
		t.Errorf("still lifted after the purge: %v", got.MatchedActions)
	}
}

type failingReader struct{}

func (failingReader) Usage(context.Context, string, time.Time) ([]cache.UsageEvent, error) {
	return nil, errors.New("usage table gone")
}

// TestUsageReadFails: a record that cannot be read is logged and the hint is the lexical
// one; it is not an error.
func TestUsageReadFails(t *testing.T) {
	st := usageStore()
	var logs bytes.Buffer
	b := hint.New(hint.Config{Usage: &hint.UsageConfig{Reader: failingReader{}}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	req := hint.Request{Prompt: "show my latest emails", WorkspaceID: "ws"}
	got := buildWith(t, b, st, req)
	want := buildWith(t, hint.New(hint.Config{}), st, req)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-lexical +with a failing record):\n%s", diff)
	}
	if !strings.Contains(logs.String(), "usage table gone") {
		t.Errorf("the failed read was not logged: %q", logs.String())
	}
}

// TestPromptTerms: the terms kept are stems of the instruction's words; the message body
// and the prompt's text are not among them.
func TestPromptTerms(t *testing.T) {
	got := hint.PromptTerms("Post in #general: the deploy of version 7 is done")
	if len(got) == 0 {
		t.Fatal("no terms")
	}
	for _, term := range got {
		if strings.ContainsAny(term, " :#") || term == "deploy" || term == "done" {
			t.Errorf("term %q is not a stem of the instruction (terms %v)", term, got)
		}
	}
	// Whatever the prompt, its terms are ones a store keeps.
	st := cache.NewMemory()
	for _, p := range []string{"e\u0301mail the cafe\u0301 menu", "ping\x00 the team", "\xff\xfe send it", "post 🚀 in #launch", "tab\tseparated\u00a0words", strings.Repeat("x", 200) + " now"} {
		ev := cache.UsageEvent{WorkspaceID: "ws", App: "a", Action: "A_X", OK: true, Terms: hint.PromptTerms(p)}
		if err := st.RecordUsage(context.Background(), []cache.UsageEvent{ev}, cache.UsageLimits{}); err != nil {
			t.Errorf("terms of %q refused: %v (%q)", p, err, ev.Terms)
		}
	}
	// A long prompt of many different words keeps only as many terms as a store takes.
	var long strings.Builder
	for i := range 200 {
		fmt.Fprintf(&long, "%c%c%cing ", 'a'+i%26, 'a'+i/26%26, 'b'+i%7)
	}
	if n := len(hint.PromptTerms(long.String())); n > cache.MaxUsageTerms {
		t.Errorf("%d terms for a long prompt, want at most %d", n, cache.MaxUsageTerms)
	}
}

// TestUsageTermsDirect: with two sibling actions used as often, each request's usage share
// favours the one that requests sharing its words led to; a failed call takes its terms'
// pull away and counts against.
func TestUsageTermsDirect(t *testing.T) {
	st := usageStore()
	const a, b = "SLACK_SEND_MESSAGE", "SLACK_CHAT_POST_MESSAGE"
	design, ops := "post a message to the design channel about the review", "post a message to the ops channel that the backup finished"
	usages := func(rec *cache.Memory, prompt string) (ua, ub float64) {
		t.Helper()
		got := buildWith(t, usageBuilder(rec), st, hint.Request{Prompt: prompt, WorkspaceID: "ws"})
		ma, okA := matchOf(got, a)
		mb, okB := matchOf(got, b)
		if !okA || !okB {
			t.Fatalf("%q: listed %v, the test needs both %s and %s", prompt, got.MatchedActions, a, b)
		}
		return ma.Usage, mb.Usage
	}
	rec := cache.NewMemory()
	use(t, rec, a, design, true, 3)
	use(t, rec, b, ops, true, 3)
	if ua, ub := usages(rec, "post a message to the design channel: the review moved to 3pm"); ua <= ub {
		t.Errorf("design request: usage share %.3f for %s, %.3f for %s; want the first larger", ua, a, ub, b)
	}
	if ua, ub := usages(rec, "post a message to the ops channel: the backup failed"); ub <= ua {
		t.Errorf("ops request: usage share %.3f for %s, %.3f for %s; want the second larger", ua, a, ub, b)
	}
	failing := cache.NewMemory()
	use(t, failing, a, design, false, 3)
	use(t, failing, b, ops, true, 3)
	if ua, ub := usages(failing, "post a message to the design channel: the review moved to 3pm"); ua >= 0 || ub <= ua {
		t.Errorf("after %s's calls failed: usage share %.3f for it, %.3f for %s; want it negative and below", a, ua, ub, b)
	}
}

// TestUsageRepeats: a request that repeats an earlier successful call names its action
// first, with confidence when the repeat is exact; a near repeat leads without claiming
// to be sure; failures take the lesson away; and another workspace learns nothing.
func TestUsageRepeats(t *testing.T) {
	type call struct {
		action, prompt string
		ok             bool
		n              int
	}
	for _, tc := range []struct {
		name           string
		prompt         string
		calls          []call
		first          string // "" when the list must be the lexical one
		confident      bool
		minProbability float64
	}{
		{name: "exact repeat of a sibling", prompt: "list the emails in my mailbox",
			calls: []call{{"GMAIL_LIST_THREADS", "list the emails in my mailbox", true, 1}}, first: "GMAIL_LIST_THREADS", confident: true, minProbability: 0.9},
		{name: "exact repeat of an action sharing no word", prompt: "nudge me about the dentist tomorrow",
			calls: []call{{"TODOIST_CREATE_TASK", "nudge me about the dentist tomorrow", true, 1}}, first: "TODOIST_CREATE_TASK", confident: true, minProbability: 0.9},
		{name: "near repeat", prompt: "nudge me about the dentist tomorrow",
			calls: []call{{"TODOIST_CREATE_TASK", "nudge me about the dentist on monday", true, 1}}, first: "TODOIST_CREATE_TASK"},
		{name: "failures outweigh a success", prompt: "nudge me about the dentist tomorrow",
			calls: []call{{"TODOIST_CREATE_TASK", "nudge me about the dentist tomorrow", true, 1}, {"TODOIST_CREATE_TASK", "nudge me about the dentist tomorrow", false, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := usageStore()
			st.connections["other"] = st.connections["ws"]
			req := hint.Request{Prompt: tc.prompt, WorkspaceID: "ws"}
			plain := buildWith(t, hint.New(hint.Config{}), st, req)
			rec := cache.NewMemory()
			for _, c := range tc.calls {
				use(t, rec, c.action, c.prompt, c.ok, c.n)
			}
			b := hint.New(hint.Config{Usage: &hint.UsageConfig{Reader: rec}})
			got := buildWith(t, b, st, req)
			switch {
			case tc.first == "":
				if diff := cmp.Diff(plain.MatchedActions, got.MatchedActions); diff != "" {
					t.Errorf("listed (-without usage +with):\n%s", diff)
				}
			case len(got.MatchedActions) == 0 || got.MatchedActions[0] != tc.first:
				t.Errorf("listed %v, want %s first", got.MatchedActions, tc.first)
			}
			if got.Confident != tc.confident || got.Probability < tc.minProbability {
				t.Errorf("confident %t, probability %.3f; want %t, at least %.3f", got.Confident, got.Probability, tc.confident, tc.minProbability)
			}
			other := buildWith(t, b, st, hint.Request{Prompt: tc.prompt, WorkspaceID: "other"})
			if diff := cmp.Diff(plain, other); diff != "" {
				t.Errorf("another workspace's hint changed (-without usage +with ws's record):\n%s", diff)
			}
		})
	}
}
