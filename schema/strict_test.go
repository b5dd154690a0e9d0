package schema_test

import (
	"encoding/json"
	"fmt"
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
			f, err := schema.Convert("T", "d", json.RawMessage(tt.params), schema.ConvertOptions{Mode: schema.Strict})
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

// nested builds an object whose property "a" nests objects levels deep below the root.
func nested(levels int) string {
	return `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"object","properties":{"a":`, levels-1) +
		`{"type":"string"}` + strings.Repeat(`},"required":["a"]}`, levels-1) + `},"required":["a"]}`
}

// manyProperties builds a flat object of n required string properties named with width
// characters each.
func manyProperties(n, width int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%0*d":{"type":"string","minLength":1}`, width, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// enumOf builds an enum property of n string values of width characters each.
func enumOf(name string, n, width int) string {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf(`"%0*d"`, width, i)
	}
	return `"` + name + `":{"type":"string","enum":[` + strings.Join(vals, ",") + `]}`
}

// TestStrictLimits checks that every documented strict-mode limit makes that function,
// and only it, fall back to non-strict, with a reason that names the limit.
func TestStrictLimits(t *testing.T) {
	tests := []struct {
		name   string
		params string
		reason string // "" when the schema stays strict
	}{
		{"nesting at the limit", nested(10), ""},
		{"nesting over the limit", nested(11), "nested 11 levels deep, over strict mode's 10"},
		{"array items count as a level", `{"type":"object","properties":{"l":{"type":"array","items":` + nested(10) + `}},"required":["l"]}`, "nested 12 levels deep"},
		{"nesting through $defs", `{"type":"object","$defs":{"D":` + nested(10) + `},"properties":{"d":{"$ref":"#/$defs/D"}},"required":["d"]}`, "nested 11 levels deep"},
		{"recursion adds nothing", `{"type":"object","properties":{"child":{"$ref":"#"},"v":{"type":"string"}},"required":["child","v"]}`, ""},
		{"properties at the limit", manyProperties(5000, 4), ""},
		{"properties over the limit", manyProperties(5001, 4), "5001 object properties, over strict mode's 5000"},
		{"enum values at the limit", `{"type":"object","properties":{` + enumOf("a", 500, 3) + `,` + enumOf("b", 500, 3) + `},"required":["a","b"]}`, ""},
		{"enum values over the limit", `{"type":"object","properties":{` + enumOf("a", 500, 3) + `,` + enumOf("b", 501, 3) + `},"required":["a","b"]}`, "1001 enum values, over strict mode's 1000"},
		{"long enum of 250 values is fine", `{"type":"object","properties":{` + enumOf("a", 250, 70) + `},"required":["a"]}`, ""},
		{"long enum over 250 values", `{"type":"object","properties":{` + enumOf("a", 251, 60) + `},"required":["a"]}`, "enum of 251 values totals 15060 characters, over strict mode's 15000"},
		{"names and values in total", manyProperties(101, 1200), "total 121200 characters, over strict mode's 120000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := schema.Convert("T", "d", json.RawMessage(tt.params), schema.ConvertOptions{Mode: schema.Strict})
			if err != nil {
				t.Fatal(err)
			}
			p, ok := f.StrictParameters()
			if tt.reason == "" {
				if !ok {
					t.Fatalf("fell back: %s", f.StrictReason)
				}
				if problems := checkStrict(p); len(problems) > 0 {
					t.Errorf("strict output breaks OpenAI's rules: %v", problems)
				}
				return
			}
			if ok || !strings.Contains(f.StrictReason, tt.reason) {
				t.Fatalf("strict = %v, StrictReason = %q; want a fallback saying %q", ok, f.StrictReason, tt.reason)
			}
			def, _ := f.OpenAI(true)
			if !strings.Contains(string(def), `"strict":false`) {
				t.Error("OpenAI(true) is strict although the schema breaks a limit")
			}
		})
	}
}
