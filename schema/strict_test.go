package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/schema"
)

func TestStrict(t *testing.T) {
	tests := []struct {
		name   string
		params string
		want   string // strict parameters, or "" when not strict
		reason string // substring of StrictReason when not strict
	}{
		{"optional becomes nullable and required",
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","default":3,"minLength":2}},"required":["a"]}`,
			`{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"description":"Default: 3. minLength: 2.","type":["integer","null"]}},"required":["a","b"],"type":"object"}`, ""},
		{"unsupported format moves to the description",
			`{"type":"object","properties":{"u":{"type":"string","format":"uri","description":"Link"}},"required":["u"]}`,
			`{"additionalProperties":false,"properties":{"u":{"description":"Link. Format: uri.","type":"string"}},"required":["u"],"type":"object"}`, ""},
		{"free-form nested object travels as JSON text",
			`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}},"required":["m"]}`,
			`{"additionalProperties":false,"properties":{"m":{"description":"A JSON object, encoded as a string.","type":"string"}},"required":["m"],"type":"object"}`, ""},
		{"several scalar types become anyOf",
			`{"type":"object","properties":{"v":{"type":["string","number","null"]}},"required":["v"]}`,
			`{"additionalProperties":false,"properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"},{"type":"null"}]}},"required":["v"],"type":"object"}`, ""},
		{"optional reference wrapped with null",
			`{"type":"object","$defs":{"D":{"type":"string","enum":["x"]}},"properties":{"d":{"$ref":"#/$defs/D"}}}`,
			`{"$defs":{"D":{"enum":["x"],"type":"string"}},"additionalProperties":false,"properties":{"d":{"anyOf":[{"$ref":"#/$defs/D"},{"type":"null"}]}},"required":["d"],"type":"object"}`, ""},
		{"free-form root", `{"type":"object","additionalProperties":true}`, "", "free-form root object"},
		{"unconstrained value", `{"type":"object","properties":{"x":{"description":"anything"}}}`, "", "unconstrained value"},
		{"array without items", `{"type":"object","properties":{"x":{"type":"array"}}}`, "", "array without item schema at /properties/x"},
		{"patternProperties", `{"type":"object","properties":{"x":{"type":"object","patternProperties":{"^a":{"type":"string"}}}}}`, "", "keyword patternProperties"},
		{"too many enum values", `{"type":"object","properties":{"e":{"type":"string","enum":[` + strings.TrimSuffix(strings.Repeat(`"v",`, 1001), ",") + `]}},"required":["e"]}`, "", "1001 enum values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Strict mode keeps the required lists as declared: what is tested here is
			// the rendering, not the normaliser.
			f, err := schema.ConvertWith("T", "d", json.RawMessage(tt.params), schema.ConvertOptions{Mode: schema.Strict})
			if err != nil {
				t.Fatal(err)
			}
			got, ok := f.StrictParameters()
			if tt.want == "" {
				if ok || !strings.Contains(f.StrictReason, tt.reason) {
					t.Fatalf("StrictParameters ok = %v, StrictReason = %q; want a fallback with %q", ok, f.StrictReason, tt.reason)
				}
				def, _ := f.OpenAI(true)
				if !strings.Contains(string(def), `"strict":false`) {
					t.Errorf("OpenAI(true) of a non-strict schema: %s", def)
				}
				return
			}
			if !ok {
				t.Fatalf("not strict: %s", f.StrictReason)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("strict parameters (-want +got):\n%s", diff)
			}
			if problems := checkStrict(got); len(problems) > 0 {
				t.Errorf("breaks OpenAI's rules: %v", problems)
			}
		})
	}
}
