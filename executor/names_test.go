package executor_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/executor/executortest"
)

// TestToolCallIsCall: the deprecated name still compiles where hosts wrote it, and a call
// from a model message runs as it is, its Step ignored (a message's calls are one step).
func TestToolCallIsCall(t *testing.T) {
	old := executor.ToolCall{ID: "c1", Name: "GMAIL_SEND_EMAIL", Arguments: json.RawMessage(`{"recipient_email":"a@b.c","body":"hi"}`), Step: 7}
	var call executor.Call = old
	ex, _, remote, _ := stepExecutor(t)
	res, err := ex.RunStep(context.Background(), executortest.NewScriptedLLM(executortest.CallTools(call), executortest.Say("done")),
		executor.Step{Prompt: "email a@b.c"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || !res.Results[0].OK || res.Results[0].Step != 0 {
		t.Fatalf("results %+v, want one successful call at step 0", res.Results)
	}
	var ran []string
	for _, r := range remote.requests() {
		ran = append(ran, r.Action)
	}
	if diff := cmp.Diff([]string{"GMAIL_SEND_EMAIL"}, ran); diff != "" {
		t.Errorf("remote calls (-want +got):\n%s", diff)
	}
}
