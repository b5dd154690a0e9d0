package adapterwire_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/internal/adapterwire"
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
