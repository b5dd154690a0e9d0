package hint_test

import (
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// TestAloneLeadNotConfident: a first action that is the only candidate of its app (a
// catalogue of one action per app) never gets the strong directive, however sure its
// probability, which the Result still reports; the same request over an app with several
// actions does.
func TestAloneLeadNotConfident(t *testing.T) {
	w := hint.DefaultWeights().With("confident_p", 0.01) // any probability would do
	b := hint.New(hint.Config{Weights: &w})
	req := hint.Request{Prompt: "send a message to #general saying the deploy is done", Apps: []string{"slack", "jira", "gmail"}}

	several := buildWith(t, b, newFake(), req)
	if len(several.Matches) == 0 || several.MatchedActions[0] != "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL" || !several.Confident {
		t.Fatalf("over apps of several actions: listed %v, confident %t; want the Slack send first, confident", several.MatchedActions, several.Confident)
	}

	single := &fakeStore{metas: classifyAll([]cache.Action{
		{App: "slack", Slug: "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", DisplayName: "Send message", Description: "Posts a message to a channel, a direct message or a thread."},
		{App: "jira", Slug: "JIRA_CREATE_ISSUE", DisplayName: "Create issue", Description: "Creates a new issue in a project."},
		{App: "gmail", Slug: "GMAIL_SEND_EMAIL", DisplayName: "Send email", Description: "Sends an email to one or more recipients."},
	})}
	alone := buildWith(t, b, single, req)
	if len(alone.Matches) == 0 || alone.MatchedActions[0] != "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL" {
		t.Fatalf("one action per app: listed %v; want the Slack send first", alone.MatchedActions)
	}
	if alone.Confident {
		t.Errorf("one action per app: confident (probability %.3f); want no directive", alone.Probability)
	}
	if alone.Probability <= 0.01 {
		t.Errorf("one action per app: probability %.3f; want it reported as calibrated", alone.Probability)
	}
}
