package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/schema"
)

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("a", 200)
	tests := []struct {
		name, in, want string
	}{
		{"short", "slack", "slack"},
		{"64 bytes", strings.Repeat("b", 64), strings.Repeat("b", 64)},
		{"long", long, strings.Repeat("a", 64) + "…(200 bytes)"},
		{"cut at a character boundary", strings.Repeat("a", 63) + "é" + long, strings.Repeat("a", 63) + "…(265 bytes)"},
		{"newline", "a\nb", `a\nb`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"printable unicode", "données Ω", "données Ω"},
		{"long with a newline", "x\n" + long, `x\n` + strings.Repeat("a", 62) + "…(202 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, schema.Excerpt(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidationErrorBounded: failures naming huge or many model-written keys stay small
// and still say what to do.
func TestValidationErrorBounded(t *testing.T) {
	huge := strings.Repeat("k", 1<<20)
	many := map[string]int{}
	for i := range 1000 {
		many[strings.Repeat("x", 100)+string(rune('a'+i%26))+strings.Repeat("y", i)] = i
	}
	manyJSON, err := json.Marshal(many)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, schema, args, want string
	}{
		{"closed object, 1 MB key", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
			`{"` + huge + `":1}`, "remove it or use a declared property"},
		{"closed object, many keys", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
			string(manyJSON), "more; remove it"},
		{"unevaluated, 1 MB key", `{"type":"object","properties":{"a":{"type":"string"}},"unevaluatedProperties":false}`,
			`{"` + huge + `":1}`, "remove it or use a declared property"},
		{"1 MB key in the path", `{"type":"object","additionalProperties":{"type":"integer"}}`,
			`{"` + huge + `":"x"}`, "…(1048576 bytes)"},
		{"1 MB property name refused", `{"type":"object","propertyNames":{"maxLength":3}}`,
			`{"` + huge + `":1}`, "is not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := schema.Compile(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			err = v.Validate(json.RawMessage(tt.args))
			var ve *schema.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %v, want a *schema.ValidationError", err)
			}
			text := err.Error()
			if len(text) > 1024 {
				t.Errorf("error text is %d bytes, want at most 1024: %.300s…", len(text), text)
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("error text %q does not contain %q", text, tt.want)
			}
		})
	}
}
