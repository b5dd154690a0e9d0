package cache_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/cache"
)

func ptr[T any](v T) *T { return &v }

func TestClassifierCapabilities(t *testing.T) {
	c := cache.NewClassifier(nil)
	tests := []struct {
		slug, name, desc string
		want             string // first capability
	}{
		{"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", "", "Posts a message to a channel.", "message.send"},
		{"SLACK_CREATE_CHANNEL_BASED_CONVERSATION", "", "Creates a new public or private channel.", "channel.create"},
		{"GMAIL_FETCH_EMAILS", "Fetch emails", "Fetches a list of email messages.", "email.read"},
		{"GMAIL_SEND_EMAIL", "", "Sends an email.", "email.send"},
		{"JIRA_CREATE_ISSUE", "", "Creates an issue.", "issue.create"},
		{"GOOGLECALENDAR_CREATE_EVENT", "", "Creates an event.", "calendar.event.create"},
		{"GOOGLEDRIVE_UPLOAD_FILE", "", "Uploads a file.", "file.upload"},
		{"GITHUB_ISSUES_CREATE_COMMENT", "", "Creates a comment on an issue.", "comment.create"},
		{"FOO_FROBNICATE_WIDGETS", "", "Frobnicates.", "data.query"},
		{"FOO_GET_WIDGETS", "", "Gets widgets.", "data.query"},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			app := strings.ToLower(tt.slug[:strings.IndexByte(tt.slug, '_')])
			m := c.Classify(cache.Action{App: app, Slug: tt.slug, DisplayName: tt.name, Description: tt.desc})
			if len(m.Capabilities) == 0 || m.Capabilities[0] != tt.want {
				t.Errorf("Capabilities = %v, want %s first", m.Capabilities, tt.want)
			}
			if m.Action != tt.slug || m.App != app {
				t.Errorf("identity = %s/%s, want %s/%s", m.App, m.Action, app, tt.slug)
			}
			if m.Confidence <= 0 || m.Confidence > 1 {
				t.Errorf("Confidence = %v, want in (0, 1]", m.Confidence)
			}
		})
	}
}

func TestClassifierCreatingAPostSendsIt(t *testing.T) {
	c := cache.NewClassifier(nil)
	tests := []struct {
		slug, desc string
		want       []string
	}{
		{"TWITTER_CREATION_OF_A_POST", "Creates a post on behalf of the user.", []string{"post.create", "post.send"}},
		{"GMAIL_CREATE_EMAIL_DRAFT", "Creates a draft e-mail.", nil}, // a draft is not sent
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			app := strings.ToLower(tt.slug[:strings.IndexByte(tt.slug, '_')])
			m := c.Classify(cache.Action{App: app, Slug: tt.slug, Description: tt.desc})
			for _, w := range tt.want {
				if !slices.Contains(m.Capabilities, w) {
					t.Errorf("Capabilities = %v, want %s among them", m.Capabilities, w)
				}
			}
			if tt.want == nil {
				for _, id := range m.Capabilities {
					if strings.HasSuffix(id, ".send") {
						t.Errorf("Capabilities = %v, want no send", m.Capabilities)
					}
				}
			}
		})
	}
}

func TestClassifierSlackMessageVersusChannel(t *testing.T) {
	c := cache.NewClassifier(cache.DefaultTaxonomy())
	send := c.Classify(cache.Action{App: "slack", Slug: "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL"})
	create := c.Classify(cache.Action{App: "slack", Slug: "SLACK_CREATE_CHANNEL_BASED_CONVERSATION"})
	if slices.Contains(send.Capabilities, "channel.create") || !slices.Contains(send.Capabilities, "message.send") {
		t.Errorf("send message: %v", send.Capabilities)
	}
	if slices.Contains(create.Capabilities, "message.send") || !slices.Contains(create.Capabilities, "channel.create") {
		t.Errorf("create channel: %v", create.Capabilities)
	}
}

func TestClassifierDestructive(t *testing.T) {
	c := cache.NewClassifier(nil)
	tests := []struct {
		name         string
		a            cache.Action
		destr, ronly bool
	}{
		{"delete", cache.Action{App: "github", Slug: "GITHUB_DELETE_A_REPOSITORY"}, true, false},
		{"archive", cache.Action{App: "slack", Slug: "SLACK_ARCHIVE_A_SLACK_CONVERSATION"}, true, false},
		{"remove", cache.Action{App: "googlecalendar", Slug: "GOOGLECALENDAR_REMOVE_ATTENDEE"}, true, false},
		{"revoke", cache.Action{App: "slack", Slug: "SLACK_REVOKES_A_TOKEN"}, true, false},
		{"cancel", cache.Action{App: "stripe", Slug: "STRIPE_CANCEL_SUBSCRIPTION"}, true, false},
		{"purge", cache.Action{App: "cdn", Slug: "CDN_PURGE_CACHE"}, true, false},
		{"trash anywhere", cache.Action{App: "gmail", Slug: "GMAIL_MOVE_TO_TRASH"}, true, false},
		{"read of deleted things", cache.Action{App: "x", Slug: "X_LIST_DELETED_ITEMS"}, false, true},
		{"send", cache.Action{App: "gmail", Slug: "GMAIL_SEND_EMAIL"}, false, false},
		{"get", cache.Action{App: "jira", Slug: "JIRA_GET_ISSUE"}, false, true},
		{"tag wins: destructive", cache.Action{App: "x", Slug: "X_UPDATE_THING", Tags: []string{"destructiveHint"}}, true, false},
		{"tag wins: read only", cache.Action{App: "x", Slug: "X_DELETE_PREVIEW", Tags: []string{"readOnlyHint"}}, false, true},
		{"catalogue flag wins", cache.Action{App: "x", Slug: "X_DELETE_THING", Destructive: ptr(false)}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := c.Classify(tt.a)
			if m.Destructive != tt.destr || m.ReadOnly != tt.ronly {
				t.Errorf("Destructive, ReadOnly = %v, %v; want %v, %v", m.Destructive, m.ReadOnly, tt.destr, tt.ronly)
			}
		})
	}
}

func TestClassifierTermsAndParams(t *testing.T) {
	c := cache.NewClassifier(nil)
	a := cache.Action{
		App:         "zendesk",
		Slug:        "ZENDESK_GET_ZENDESK_TICKET_BY_ID",
		DisplayName: "Get Zendesk ticket by ID",
		Description: "Retrieves a Zendesk ticket by its ID. Use when you need the ticket's status.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
			"include":{"type":["string","null"],"description":"Side-loads to include. Comma separated."},
			"ticket_id":{"type":"integer","description":"The ID of the ticket."},
			"flag":{"anyOf":[{"type":"null"},{"type":"boolean"}],"title":"Flag"}},
			"required":["ticket_id"]}`),
	}
	m := c.Classify(a)
	if slices.Contains(m.SlugTerms, "zendesk") || slices.Contains(m.NameTerms, "zendesk") || slices.Contains(m.DescTerms, "zendesk") {
		t.Errorf("app name kept in terms: %v %v %v", m.SlugTerms, m.NameTerms, m.DescTerms)
	}
	if len(m.SlugTerms) == 0 || m.SlugTerms[0] != "get" {
		t.Errorf("SlugTerms = %v, want get first", m.SlugTerms)
	}
	want := []cache.Param{
		{Name: "ticket_id", Type: "integer", Required: true, Description: "The ID of the ticket."},
		{Name: "include", Type: "string", Description: "Side-loads to include."},
		{Name: "flag", Type: "boolean", Description: "Flag"},
	}
	if diff := cmp.Diff(want, m.Params); diff != "" {
		t.Errorf("Params (-want +got):\n%s", diff)
	}
	if !slices.Contains(m.Keywords, "get") {
		t.Errorf("Keywords = %v, want the verb among them", m.Keywords)
	}
}

func TestClassifierBadInput(t *testing.T) {
	c := cache.NewClassifier(nil)
	long := strings.Repeat("delete everything ", 10000)
	for _, a := range []cache.Action{
		{},
		{Slug: "_"},
		{App: "x", Slug: "X", Parameters: json.RawMessage(`[1,2]`)},
		{App: "x", Slug: "X_GET", Parameters: json.RawMessage(`{"properties":`)},
		{App: "x", Slug: "X_GET", Parameters: json.RawMessage(`{"properties":{"a":1}}`)},
		{App: "x", Slug: "X_GET", Description: long, DisplayName: "\xff\xfe"},
	} {
		m := c.Classify(a) // must not panic
		if len(m.DescTerms) > 20 {
			t.Errorf("DescTerms has %d terms, want at most 20", len(m.DescTerms))
		}
	}
}

func TestClassifierIsDeterministic(t *testing.T) {
	a := cache.Action{App: "slack", Slug: "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", DisplayName: "Send message",
		Description: "Posts a message to a channel, a DM or a thread."}
	first := cache.NewClassifier(nil).Classify(a)
	for i := 0; i < 3; i++ {
		if diff := cmp.Diff(first, cache.NewClassifier(nil).Classify(a)); diff != "" {
			t.Fatalf("classification changed (-first +now):\n%s", diff)
		}
	}
}
