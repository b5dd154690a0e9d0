package executor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/hint"
	"github.com/toolhint/toolhint/registry"
)

func TestLogAttributes(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f := newFixture(t)
	ex := newExec(f, func(c *executor.Config) {
		c.Logger = log
		c.Scope = executor.Scope{Identity: hint.Identity{AgentID: 5, WorkspaceID: "ws"}}
		c.Access = registry.AllowAll()
	})
	defer ex.Close()
	ex.Execute(context.Background(), executor.Call{ID: "ok", Name: "echo", Arguments: json.RawMessage(`{"text":"secret-ish"}`)})
	ex.Execute(context.Background(), executor.Call{ID: "bad", Name: "fail"})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d records at warn level, want only the failure:\n%s", len(lines), buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, k := range []string{"tool", "call_id", "step", "ok", "duration", "attempts", "truncated", "agent_id", "workspace_id", "error_kind", "error", "cause"} {
		if _, ok := rec[k]; ok {
			keys = append(keys, k)
		}
	}
	want := []string{"tool", "call_id", "step", "ok", "duration", "attempts", "truncated", "agent_id", "workspace_id", "error_kind", "error", "cause"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	if rec["tool"] != "fail" || rec["error_kind"] != "tool_error" || rec["cause"] != "the service said no" {
		t.Errorf("record %v", rec)
	}
	if strings.Contains(buf.String(), "secret-ish") {
		t.Error("arguments were logged")
	}
}
