package main

import (
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var b strings.Builder
	if err := run(context.Background(), "../../testdata/catalog/actions.jsonl", &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"resolved (explicit): GITHUB_CREATE_AN_ISSUE, SLACK_SENDS_A_MESSAGE_TO_A_SLACK_CHANNEL",
		"tool choice: required",
		"call_1 GITHUB_CREATE_AN_ISSUE ok=true",
		"stripped=[threadId]",
		"composio executions: 2",
		"(2 tool results). (2 turns)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
