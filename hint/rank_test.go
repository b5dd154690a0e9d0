package hint_test

import (
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// socialFixture is a small catalogue of e-mail drafts, social posts and a CRM.
func socialFixture() []cache.ActionMeta {
	acts := []cache.Action{
		{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Sends an email to one or more recipients."},
		{App: "gmail", Slug: "GMAIL_SEND_DRAFT", DisplayName: "Send draft", Description: "Sends an existing draft."},
		{App: "gmail", Slug: "GMAIL_LIST_DRAFTS", DisplayName: "List drafts", Description: "Lists the drafts in the mailbox."},
		{App: "gmail", Slug: "GMAIL_CREATE_EMAIL_DRAFT", DisplayName: "Create draft", Description: "Creates a draft email."},
		{App: "twitter", Slug: "TWITTER_CREATION_OF_A_POST", DisplayName: "Create a post", Description: "Creates a post (a tweet) for the user."},
		{App: "twitter", Slug: "TWITTER_SEND_A_NEW_MESSAGE_TO_A_USER", DisplayName: "Send a direct message", Description: "Sends a direct message to a user."},
		{App: "twitter", Slug: "TWITTER_RECENT_SEARCH", DisplayName: "Recent search", Description: "Searches posts from the last seven days."},
		{App: "twitter", Slug: "TWITTER_POST_LOOKUP_BY_POST_ID", DisplayName: "Post lookup", Description: "Gets a post by its ID."},
		{App: "twitter", Slug: "TWITTER_GET_USER_FOLLOWERS", DisplayName: "Get followers", Description: "Lists the followers of a user."},
		{App: "hubspot", Slug: "HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA", DisplayName: "Search contacts", Description: "Searches contacts by property values."},
		{App: "hubspot", Slug: "HUBSPOT_GET_CONTACT_BY_ID", DisplayName: "Get contact", Description: "Gets a contact by its ID."},
		{App: "hubspot", Slug: "HUBSPOT_CREATE_CONTACT", DisplayName: "Create contact", Description: "Creates a contact."},
		{App: "hubspot", Slug: "HUBSPOT_LIST_DEALS", DisplayName: "List deals", Description: "Lists the deals of the pipeline."},
	}
	return classifyAll(acts)
}

// TestGeneralRanking covers techniques beyond word overlap: implied steps, names that are
// not objects, and topics that are searched for.
func TestGeneralRanking(t *testing.T) {
	apps := []string{"gmail", "twitter", "hubspot"}
	tests := []struct {
		name, prompt string
		want         map[string]int // action -> worst acceptable rank
		absent       []string
	}{
		{"sending an existing draft first finds it", "send out the draft I prepared for the investors",
			map[string]int{"GMAIL_SEND_DRAFT": 1, "GMAIL_LIST_DRAFTS": 3}, nil},
		{"a new message implies no lookup", "send an email to dana@example.com about the offsite",
			map[string]int{"GMAIL_SEND_EMAIL": 1}, []string{"GMAIL_LIST_DRAFTS"}},
		{"a person's name is searched for in the app's main object", "find Maria Lopez in hubspot",
			map[string]int{"HUBSPOT_SEARCH_CONTACTS_BY_CRITERIA": 1}, nil},
		{"a verb that names what is sent sends that", "create a contact for Ana in hubspot and email the link to ana@example.com",
			map[string]int{"HUBSPOT_CREATE_CONTACT": 1, "GMAIL_SEND_EMAIL": 2}, nil},
		{"a topic is searched for", "search posts about our new pricing",
			map[string]int{"TWITTER_RECENT_SEARCH": 2}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := build(t, &fakeStore{metas: socialFixture()}, hint.Request{AgentID: 1, Prompt: tt.prompt, Apps: apps})
			for slug, worst := range tt.want {
				if r := rank(res, slug); r == 0 || r > worst {
					t.Errorf("%s ranked %d, want 1..%d (listed %v)", slug, r, worst, res.MatchedActions)
				}
			}
			for _, slug := range tt.absent {
				if r := rank(res, slug); r != 0 {
					t.Errorf("%s listed at %d, want absent (listed %v)", slug, r, res.MatchedActions)
				}
			}
		})
	}
}
