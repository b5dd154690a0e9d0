package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/schema"
)

// dagSchema builds n definitions where each is an anyOf of two references to the next: a
// small document whose naive expansion has 2^n nodes.
func dagSchema(n int) string {
	var defs []string
	for i := 0; i < n; i++ {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"type":"object","properties":{"v":{"$ref":"#/$defs/d%d"}}}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string"}`, n))
	return `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"x":{"$ref":"#/$defs/d0"}}}`
}

// TestHostileSchemas runs every entry point over schemas built to make naive code loop,
// recurse without end or blow up, and checks each ends with a result or a clear error.
func TestHostileSchemas(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		convert error // nil: Convert succeeds
	}{
		{"anyOf reference loop", `{"type":"object","$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"},{"type":"null"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, schema.ErrInvalidSchema},
		{"self reference", `{"type":"object","$defs":{"a":{"$ref":"#/$defs/a"}}}`, schema.ErrInvalidSchema},
		{"recursive array definition", `{"type":"object","$defs":{"L":{"type":"array","items":{"$ref":"#/$defs/L"}}},"properties":{"x":{"$ref":"#/$defs/L"}}}`, nil},
		{"recursive root", `{"type":"object","properties":{"child":{"$ref":"#"},"kids":{"type":"array","items":{"$ref":"#"}}}}`, nil},
		{"exponential reference DAG", dagSchema(40), nil},
		{"huge enum", `{"type":"object","properties":{"e":{"enum":[` + strings.TrimSuffix(strings.Repeat(`"v",`, 1999), ",") + `]}}}`, nil},
		{"deep nesting", `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"object","properties":{"a":`, 40) + `{"type":"string"}` + strings.Repeat(`}}`, 40) + `}}`, schema.ErrLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := schema.Convert("HOSTILE", "d", json.RawMessage(tt.schema))
			if tt.convert != nil {
				if !errors.Is(err, tt.convert) {
					t.Fatalf("Convert error = %v, want %v", err, tt.convert)
				}
				if _, err := schema.Compile(json.RawMessage(tt.schema)); err == nil {
					t.Error("Compile accepted a schema Convert refused")
				}
				return
			}
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			for _, render := range []func() (json.RawMessage, error){
				func() (json.RawMessage, error) { return f.OpenAI(true) }, f.Anthropic, f.Gemini,
			} {
				out, err := render()
				if err != nil || !json.Valid(out) {
					t.Fatalf("render: %v", err)
				}
				if len(out) > 4<<20 {
					t.Fatalf("render produced %d bytes", len(out))
				}
			}
			if _, err := schema.GenerateGo(schema.GoConfig{Package: "p", Types: []schema.GoType{{Action: "H", Parameters: json.RawMessage(tt.schema)}}}); err != nil {
				t.Fatalf("GenerateGo: %v", err)
			}
			v, err := schema.Compile(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if _, _, err := v.Coerce(json.RawMessage(`{"x":{"v":{"v":"1"}},"child":{"child":{}},"e":"v"}`)); err != nil {
				t.Fatalf("Coerce: %v", err)
			}
		})
	}
}
