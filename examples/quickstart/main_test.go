package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun runs the quickstart on the project's test catalogue and checks the parts a
// newcomer reads: the catalogue summary, a hint naming the message action first, and
// each kind of tool result.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), filepath.Join("..", "..", "testdata", "catalog"), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"== catalogue: 8 apps",
		"SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL: capabilities [message.send], destructive false",
		"matched SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL,",
		"- SLACK: SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL",
		`"parameters":`,
		`call_1 SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL -> {"account":"ca_slack"`,
		"call_2 SLACK_SEND_MESAGE -> error (unknown_tool)",
		"call_3 GMAIL_SEND_EMAIL -> error (invalid_arguments)",
		"call_4 GOOGLECALENDAR_DELETE_EVENT -> error (needs_confirmation)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q\n%s", want, got)
		}
	}
	if strings.Contains(got, `"threadId"`) {
		t.Errorf("runtime-context key threadId reached the remote:\n%s", got)
	}
}
