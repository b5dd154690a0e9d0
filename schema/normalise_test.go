package schema_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhint/toolhint/schema"
)

// prop builds a one-property schema whose property is required.
func prop(p string) string {
	return `{"type":"object","properties":{"p":` + p + `,"q":{"type":"string"}},"required":["p","q"]}`
}

func TestRelax(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		want     []schema.Relaxation
		required []string // the root's required list after Relax
	}{
		{"has a default", prop(`{"type":"integer","default":3}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDefault}}, []string{"q"}},
		{"accepts null by type", prop(`{"type":["string","null"]}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleNullable}}, []string{"q"}},
		{"accepts null by anyOf", prop(`{"anyOf":[{"type":"string"},{"type":"null"}]}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleNullable}}, []string{"q"}},
		{"accepts null through a reference", `{"type":"object","$defs":{"N":{"type":["integer","null"]}},"properties":{"p":{"$ref":"#/$defs/N"}},"required":["p"]}`,
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleNullable}}, []string{}},
		{"Optional. first", prop(`{"type":"string","description":"Optional. The label to apply."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDescribedOptional}}, []string{"q"}},
		{"(optional) inside", prop(`{"type":"string","description":"A label (optional) to apply."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDescribedOptional}}, []string{"q"}},
		{"omit", prop(`{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"description":"File to attach. Omit or set to null for none."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDescribedOptional}}, []string{"q"}},
		{"if not provided", prop(`{"type":"string","description":"Time zone; UTC if not provided."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDescribedOptional}}, []string{"q"}},
		{"defaults to", prop(`{"type":"integer","description":"Page size. Defaults to 50."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDescribedOptional}}, []string{"q"}},
		{"required only if", prop(`{"type":"string","description":"Required if kind is custom."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDescribedOptional}}, []string{"q"}},
		{"leave empty", prop(`{"type":"string","description":"Leave it empty for no expiry."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDescribedOptional}}, []string{"q"}},
		{"set to null", prop(`{"type":"string","description":"Due date; set it to null to clear."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDescribedNull}}, []string{"q"}},
		{"or null", prop(`{"type":"string","description":"A cover image id, or null."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleDescribedNull}}, []string{"q"}},
		{"read-only in words", prop(`{"type":"string","description":"Creation time. Read-only, set by the server."}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleReadOnly}}, []string{"q"}},
		{"readOnly keyword", prop(`{"type":"string","readOnly":true}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleReadOnly}}, []string{"q"}},
		{"empty array", prop(`{"type":"array","items":{"type":"string"}}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleEmptyContainer}}, []string{"q"}},
		{"empty object", prop(`{"type":"object","additionalProperties":{"type":"string"}}`),
			[]schema.Relaxation{{Property: "p", Rule: schema.RuleEmptyContainer}}, []string{"q"}},
		{"array that needs an item stays", prop(`{"type":"array","items":{"type":"string"},"minItems":1}`), nil, []string{"p", "q"}},
		{"object that needs a key stays", prop(`{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"description":"The note, containing content and optional visibility."}`), nil, []string{"p", "q"}},
		{"system-generated id stays", prop(`{"type":"string","description":"The system-generated ID of the company to archive."}`), nil, []string{"p", "q"}},
		{"insisting description wins", prop(`{"type":"string","description":"Required. The recipient; defaults to the sender when empty."}`), nil, []string{"p", "q"}},
		{"at least one wins", prop(`{"type":"array","items":{"type":"string"},"description":"Recipients, at least one."}`), nil, []string{"p", "q"}},
		{"undeclared required name is left alone", `{"type":"object","properties":{"a":{"type":"string","default":"x"}},"required":["a","ghost"]}`,
			[]schema.Relaxation{{Property: "a", Rule: schema.RuleDefault}}, []string{"ghost"}},
		{"nested object", `{"type":"object","properties":{"data":{"type":"object","properties":{"n":{"type":"string"},"d":{"type":"string","description":"Optional. Notes."}},"required":["n","d"]}},"required":["data"]}`,
			[]schema.Relaxation{{Path: "/properties/data", Property: "d", Rule: schema.RuleDescribedOptional}}, []string{"data"}},
		{"inside array items and anyOf", `{"type":"object","properties":{"l":{"type":"array","minItems":1,"items":{"anyOf":[{"type":"object","properties":{"x":{"type":"integer","default":1}},"required":["x"]},{"type":"string"}]}}},"required":["l"]}`,
			[]schema.Relaxation{{Path: "/properties/l/items/anyOf/0", Property: "x", Rule: schema.RuleDefault}}, []string{"l"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := schema.Parse(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			before, _ := tree.MarshalJSON()
			out, got := schema.Relax(tree)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("relaxations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.required, out.Required); diff != "" {
				t.Errorf("required (-want +got):\n%s", diff)
			}
			after, _ := tree.MarshalJSON()
			if string(before) != string(after) {
				t.Error("Relax modified its input")
			}
			if len(got) == 0 && out != tree {
				t.Error("Relax copied a tree it did not change")
			}
			if _, again := schema.Relax(out); len(again) != 0 {
				t.Errorf("Relax is not idempotent: a second pass relaxed %v", again)
			}
		})
	}
}

// wide builds an object of n string properties, all required; extra is added to the
// properties.
func wide(n int, extra string) string {
	var props, req []string
	for i := 0; i < n; i++ {
		props = append(props, fmt.Sprintf(`"f%02d":{"type":"string"}`, i))
		req = append(req, fmt.Sprintf(`"f%02d"`, i))
	}
	if extra != "" {
		props = append(props, extra)
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
}

func TestRelaxInferredRequired(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		relaxed int
	}{
		{"at the bound, kept", wide(schema.InferredRequiredMin, ""), 0},
		{"over the bound, all relaxed", wide(schema.InferredRequiredMin+1, ""), schema.InferredRequiredMin + 1},
		{"a property with a default does not break the pattern", wide(30, `"opt":{"type":"string","default":"x"}`), 30},
		{"an optional property without a default means the list was written by hand", wide(30, `"opt":{"type":"string"}`), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := schema.Parse(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			_, got := schema.Relax(tree)
			if len(got) != tt.relaxed {
				t.Fatalf("relaxed %d properties, want %d", len(got), tt.relaxed)
			}
			for _, r := range got {
				if r.Rule != schema.RuleInferredRequired {
					t.Errorf("%s relaxed by %s, want %s", r.Property, r.Rule, schema.RuleInferredRequired)
				}
			}
		})
	}
	// An insisting description keeps its property even in an inferred list.
	s := strings.Replace(wide(20, ""), `"f00":{"type":"string"}`, `"f00":{"type":"string","description":"This field is required."}`, 1)
	tree, err := schema.Parse(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := schema.Relax(tree)
	if diff := cmp.Diff([]string{"f00"}, out.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
}
