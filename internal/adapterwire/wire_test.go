package adapterwire_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/internal/adaptertest"
	"github.com/toolhint/toolhint/internal/adapterwire"
	"github.com/toolhint/toolhint/schema"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]any
		ok       bool
	}{
		{"object", `{"a":1,"b":[true]}`, map[string]any{"a": 1.0, "b": []any{true}}, true},
		{"empty", ``, map[string]any{}, true},
		{"null", ` null `, map[string]any{}, true},
		{"array", `[1]`, nil, false},
		{"string", `"x"`, nil, false},
		{"broken", `{"a":`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := adapterwire.Decode(json.RawMessage(tt.in))
			if (err == nil) != tt.ok {
				t.Fatalf("Decode(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestArgumentsAndErrorResult(t *testing.T) {
	if got := string(adapterwire.Arguments(json.RawMessage("  "))); got != "{}" {
		t.Errorf("Arguments(blank) = %q, want {}", got)
	}
	if got := string(adapterwire.Arguments(json.RawMessage(`{"a":1}`))); got != `{"a":1}` {
		t.Errorf("Arguments kept %q", got)
	}
	for in, want := range map[string]bool{"error (timeout): x": true, `{"error":"x"}`: false, "ok": false} {
		if got := adapterwire.IsErrorResult(in); got != want {
			t.Errorf("IsErrorResult(%q) = %v, want %v", in, got, want)
		}
	}
}

// named is a tool type implementing fmt.Stringer, standing in for a framework's tool.
type named struct{ name string }

func (n *named) String() string { return n.name }

// TestBind: Bind gives newTool the executor and types its tool as the interface, passes
// newTool's error through, and reports a tool type that does not implement the interface.
func TestBind(t *testing.T) {
	ex := adaptertest.Executor()
	defer ex.Close()
	fns := []schema.Function{{Name: "a", Slug: "A"}, {Name: "b", Slug: "B"}}
	newNamed := func(got *executor.Executor, fn schema.Function) (*named, error) {
		if got != ex {
			return nil, errors.New("not the bound executor")
		}
		return &named{fn.Slug}, nil
	}
	tools, err := adapterwire.Map(fns, adapterwire.Bind[fmt.Stringer](ex, newNamed))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.String())
	}
	if diff := cmp.Diff([]string{"A", "B"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	refuse := errors.New("refused")
	failing := func(*executor.Executor, schema.Function) (*named, error) { return nil, refuse }
	if _, err := adapterwire.Map(fns, adapterwire.Bind[fmt.Stringer](ex, failing)); !errors.Is(err, refuse) {
		t.Errorf("newTool's error: got %v", err)
	}
	notATool := func(*executor.Executor, schema.Function) (int, error) { return 1, nil }
	if _, err := adapterwire.Map(fns, adapterwire.Bind[fmt.Stringer](ex, notATool)); err == nil {
		t.Error("a tool type that is not a fmt.Stringer was accepted")
	}
}
