package hint_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// slackSend is Slack's send-message action with its parameters in the catalogue's
// alphabetical order: the one required parameter, channel, and text far down the list.
func slackSend() []cache.ActionMeta {
	props := []string{"as_user", "attachments", "blocks", "channel", "icon_emoji", "icon_url", "link_names",
		"mrkdwn", "parse", "reply_broadcast", "text", "thread_ts"}
	var b strings.Builder
	for i, p := range props {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + p + `":{"type":"string"}`)
	}
	return classifyAll([]cache.Action{{App: "slack", Slug: "SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL", DisplayName: "Send message",
		Description: "Posts a message to a channel.",
		Parameters:  []byte(`{"type":"object","properties":{` + b.String() + `},"required":["channel"]}`)}})
}

// TestParamHintsOrder: parameter hints list the required parameters first, then those the
// prompt mentions, then the rest in the catalogue's order.
func TestParamHintsOrder(t *testing.T) {
	tests := []struct {
		prompt string
		want   []string
	}{
		{"send it to the #eng channel on slack", []string{"channel", "as_user", "attachments", "blocks", "icon_emoji"}},
		{"send a message to #general on slack saying hi", []string{"channel", "text", "as_user", "attachments", "blocks"}},
		{"send the text 'deploy done' to the #eng channel on slack", []string{"channel", "text", "as_user", "attachments", "blocks"}},
		{"reply in the thread with the text 'done' on slack", []string{"channel", "reply_broadcast", "text", "thread_ts", "as_user"}},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			res := build(t, &fakeStore{metas: slackSend()}, hint.Request{AgentID: 1, Apps: []string{"slack"}, Prompt: tt.prompt})
			if len(res.Matches) == 0 {
				t.Fatal("nothing matched")
			}
			var got []string
			for _, p := range res.Matches[0].Params {
				got = append(got, p.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("params of %s (-want +got):\n%s", res.MatchedActions[0], diff)
			}
			if len(got) > 0 && !strings.Contains(res.Text, "- SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL: "+got[0]+"*") {
				t.Errorf("the text does not show the params in that order:\n%s", res.Text)
			}
		})
	}
}
