package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/schema"
)

// strictSample builds the arguments a model in strict mode would write with the least
// effort: every property present, null wherever null is allowed, free-form objects as the
// JSON text "{}", the first enum value, minimal numbers and empty arrays. ok is false when
// the schema has a constraint the sample cannot be expected to meet (a pattern).
func strictSample(n any, defs map[string]any, depth int) (v any, ok bool) {
	m, _ := n.(map[string]any)
	if m == nil || depth > 20 {
		return nil, false
	}
	if ref, _ := m["$ref"].(string); ref != "" {
		if ref == "#" || depth > 12 {
			return nil, false
		}
		return strictSample(defs[strings.TrimPrefix(ref, "#/$defs/")], defs, depth+1)
	}
	if _, has := m["pattern"]; has {
		return nil, false
	}
	if branches, _ := m["anyOf"].([]any); len(branches) > 0 {
		for _, b := range branches {
			if bm, _ := b.(map[string]any); bm["type"] == "null" {
				return nil, true
			}
		}
		return strictSample(branches[0], defs, depth+1)
	}
	if enum, _ := m["enum"].([]any); len(enum) > 0 {
		for _, e := range enum {
			if e == nil {
				return nil, true
			}
		}
		return enum[0], true
	}
	if c, has := m["const"]; has {
		return c, true
	}
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, e := range t {
			s, _ := e.(string)
			types = append(types, s)
		}
	}
	for _, t := range types {
		if t == "null" {
			return nil, true
		}
	}
	if len(types) == 0 {
		return nil, false
	}
	switch types[0] {
	case "string":
		if d, _ := m["description"].(string); strings.Contains(d, "A JSON object, encoded as a string.") {
			return "{}", true
		}
		return "x", true
	case "integer", "number":
		if min, has := m["minimum"]; has {
			return min, true
		}
		return json.Number("1"), true
	case "boolean":
		return true, true
	case "array":
		return []any{}, true
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for k, p := range props {
			v, ok := strictSample(p, defs, depth+1)
			if !ok {
				return nil, false
			}
			out[k] = v
		}
		return out, true
	}
	return nil, false
}

// geminiSample builds the least-effort arguments a Gemini model would write from a
// FunctionDeclaration's parameters: required properties only, null where nullable, JSON text
// for free-form objects.
func geminiSample(n any, depth int) (any, bool) {
	m, _ := n.(map[string]any)
	if m == nil || depth > 30 {
		return nil, false
	}
	if _, has := m["pattern"]; has {
		return nil, false
	}
	d, _ := m["description"].(string)
	if strings.Contains(d, "nested too deep to describe") {
		return nil, false
	}
	if m["nullable"] == true {
		return nil, true
	}
	if branches, _ := m["anyOf"].([]any); len(branches) > 0 {
		return geminiSample(branches[0], depth+1)
	}
	if enum, _ := m["enum"].([]any); len(enum) > 0 {
		return enum[0], true
	}
	switch m["type"] {
	case "STRING":
		if strings.Contains(d, "A JSON object, encoded as a string.") {
			return "{}", true
		}
		if strings.Contains(d, "Allowed values:") {
			return nil, false // a non-string enum described in words
		}
		return "x", true
	case "INTEGER", "NUMBER":
		if min, has := m["minimum"]; has {
			return min, true
		}
		return json.Number("1"), true
	case "BOOLEAN":
		return true, true
	case "ARRAY":
		return []any{}, true
	case "OBJECT":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for _, r := range asSlice(m["required"]) {
			k, _ := r.(string)
			v, ok := geminiSample(props[k], depth+1)
			if !ok {
				return nil, false
			}
			out[k] = v
		}
		return out, true
	}
	return nil, false
}

// TestCatalogArguments checks the contract between the model-facing definitions and
// coercion: arguments shaped by a strict definition (nulls for left-out properties, free-form
// objects as JSON text) and by a Gemini declaration (optional properties left out, number
// enums as text) pass CoerceAndValidate against the original schema.
func TestCatalogArguments(t *testing.T) {
	rows := loadCatalog(t)
	var strictChecked, strictSkipped, geminiChecked, geminiSkipped int
	for _, r := range rows {
		f, err := schema.Convert(r.Action, r.Description, r.Parameters)
		if err != nil {
			t.Fatalf("%s: %v", r.Action, err)
		}
		v, err := schema.Compile(f.Parameters)
		if err != nil {
			t.Fatalf("%s: %v", r.Action, err)
		}
		if p, ok := f.StrictParameters(); ok {
			decoded, err := decodeAny(p)
			if err != nil {
				t.Fatal(err)
			}
			root := decoded.(map[string]any)
			defs, _ := root["$defs"].(map[string]any)
			if args, ok := strictSample(root, defs, 0); ok {
				strictChecked++
				raw, _ := json.Marshal(args)
				if _, _, err := v.CoerceAndValidate(raw); err != nil {
					t.Errorf("%s: strict-shaped arguments %s fail the original schema: %v", r.Action, raw, err)
				}
			} else {
				strictSkipped++
			}
		}
		g, err := f.Gemini()
		if err != nil {
			t.Fatal(err)
		}
		decl, err := decodeAny(g)
		if err != nil {
			t.Fatal(err)
		}
		params, has := decl.(map[string]any)["parameters"]
		if !has {
			params = map[string]any{"type": "OBJECT"}
		}
		if args, ok := geminiSample(params, 0); ok {
			geminiChecked++
			raw, _ := json.Marshal(args)
			if _, _, err := v.CoerceAndValidate(raw); err != nil {
				t.Errorf("%s: Gemini-shaped arguments %s fail the original schema: %v", r.Action, truncateLines(string(raw), 3), err)
			}
		} else {
			geminiSkipped++
		}
	}
	t.Logf("strict-shaped: %d checked, %d skipped (patterns); Gemini-shaped: %d checked, %d skipped", strictChecked, strictSkipped, geminiChecked, geminiSkipped)
	if strictChecked == 0 || geminiChecked == 0 {
		t.Fatal("nothing checked")
	}
}
