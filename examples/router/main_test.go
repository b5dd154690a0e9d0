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
		"tools offered to the model: 5",
		`{"tools":[{"slug":"GITHUB_LIST_REPOSITORY_ISSUES"`,
		`"tool":"GITHUB_LIST_REPOSITORY_ISSUES","call_id":"inner","ok":true`,
		`{"results":[{"tool":"GITHUB_CREATE_AN_ISSUE_COMMENT","call_id":"batch_0","ok":true`,
		"(5 turns)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ok=false") {
		t.Errorf("a meta-tool call failed:\n%s", out)
	}
}
