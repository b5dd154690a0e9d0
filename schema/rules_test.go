package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// The checkers below restate the providers' documented rules on plain decoded JSON,
// independently of the package's own transformation code, so a bug in one is caught by the
// other.

func decodeAny(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// checkStrict lists the ways a parameter schema breaks OpenAI's strict-mode rules
// (Structured Outputs, "Supported schemas").
func checkStrict(raw json.RawMessage) []string {
	v, err := decodeAny(raw)
	if err != nil {
		return []string{"invalid JSON: " + err.Error()}
	}
	root, ok := v.(map[string]any)
	if !ok {
		return []string{"root is not an object"}
	}
	var problems []string
	add := func(path, format string, args ...any) {
		if len(problems) < 10 {
			problems = append(problems, (path+" ")+fmt.Sprintf(format, args...))
		}
	}
	if root["type"] != "object" {
		add("/", "root type is %v, want object", root["type"])
	}
	if _, ok := root["anyOf"]; ok {
		add("/", "root is anyOf")
	}
	allowed := map[string]bool{
		"type": true, "properties": true, "required": true, "additionalProperties": true, "items": true,
		"enum": true, "const": true, "anyOf": true, "description": true, "title": true, "$ref": true, "$defs": true,
		"pattern": true, "format": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
		"exclusiveMaximum": true, "multipleOf": true, "minItems": true, "maxItems": true,
	}
	formats := map[string]bool{"date-time": true, "time": true, "date": true, "duration": true, "email": true, "hostname": true, "ipv4": true, "ipv6": true, "uuid": true}
	types := map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}
	var props, strTotal, enumTotal, maxDepth int
	var walk func(n any, path string, depth int)
	walk = func(n any, path string, depth int) {
		// Nesting is counted in schema-in-schema steps: a property, an array's items, an
		// anyOf branch.
		maxDepth = max(maxDepth, depth)
		m, ok := n.(map[string]any)
		if !ok {
			add(path, "schema is %T, want an object", n)
			return
		}
		for k := range m {
			if !allowed[k] {
				add(path, "keyword %q is not supported", k)
			}
		}
		if ref, ok := m["$ref"].(string); ok {
			if len(m) != 1 {
				add(path, "$ref has siblings")
			}
			if ref != "#" && !strings.HasPrefix(ref, "#/$defs/") {
				add(path, "$ref %q", ref)
			}
			return
		}
		if f, ok := m["format"].(string); ok && !formats[f] {
			add(path, "format %q", f)
		}
		var ts []string
		switch t := m["type"].(type) {
		case string:
			ts = []string{t}
		case []any:
			for _, e := range t {
				s, _ := e.(string)
				ts = append(ts, s)
			}
		case nil:
		default:
			add(path, "type is %T", t)
		}
		for _, t := range ts {
			if !types[t] {
				add(path, "type %q", t)
			}
		}
		_, hasAnyOf := m["anyOf"]
		_, hasEnum := m["enum"]
		_, hasConst := m["const"]
		if len(ts) == 0 && !hasAnyOf && !hasEnum && !hasConst {
			add(path, "no type, anyOf, enum or const")
		}
		if enum, ok := m["enum"].([]any); ok {
			enumTotal += len(enum)
			n := 0
			for _, e := range enum {
				if s, ok := e.(string); ok {
					n += utf8.RuneCountInString(s)
				}
			}
			strTotal += n
			if len(enum) > 250 && n > 15000 {
				add(path, "enum of %d values totals %d characters", len(enum), n)
			}
		}
		if s, ok := m["const"].(string); ok {
			strTotal += utf8.RuneCountInString(s)
		}
		if slices.Contains(ts, "object") || m["properties"] != nil {
			if m["additionalProperties"] != false {
				add(path, "object without additionalProperties:false")
			}
			ps, ok := m["properties"].(map[string]any)
			if !ok {
				add(path, "object without properties")
			}
			var names []string
			for k := range ps {
				names = append(names, k)
				strTotal += utf8.RuneCountInString(k)
			}
			props += len(names)
			var req []string
			for _, r := range asSlice(m["required"]) {
				s, _ := r.(string)
				req = append(req, s)
			}
			sort.Strings(names)
			sort.Strings(req)
			if !slices.Equal(names, req) {
				add(path, "required %v is not every property %v", req, names)
			}
			for _, k := range names {
				walk(ps[k], path+"/properties/"+k, depth+1)
			}
		} else if ap, ok := m["additionalProperties"]; ok && ap != false {
			add(path, "additionalProperties on a non-object")
		}
		if slices.Contains(ts, "array") {
			items, ok := m["items"]
			if !ok {
				add(path, "array without items")
			} else {
				walk(items, path+"/items", depth+1)
			}
		}
		for i, b := range asSlice(m["anyOf"]) {
			walk(b, fmt.Sprintf("%s/anyOf/%d", path, i), depth+1)
		}
	}
	walk(root, "", 0)
	if defs, ok := root["$defs"].(map[string]any); ok {
		for k, d := range defs {
			strTotal += utf8.RuneCountInString(k)
			walk(d, "/$defs/"+k, 0)
		}
	}
	if props > 5000 {
		add("/", "%d properties", props)
	}
	if maxDepth > 10 {
		add("/", "nested %d levels deep", maxDepth)
	}
	if strTotal > 120000 {
		add("/", "string total %d", strTotal)
	}
	if enumTotal > 1000 {
		add("/", "%d enum values", enumTotal)
	}
	return problems
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// checkGemini lists the ways a FunctionDeclaration breaks Gemini's OpenAPI 3.0 subset.
func checkGemini(raw json.RawMessage) []string {
	v, err := decodeAny(raw)
	if err != nil {
		return []string{"invalid JSON: " + err.Error()}
	}
	decl, ok := v.(map[string]any)
	if !ok {
		return []string{"declaration is not an object"}
	}
	var problems []string
	add := func(path, format string, args ...any) {
		if len(problems) < 10 {
			problems = append(problems, (path+" ")+fmt.Sprintf(format, args...))
		}
	}
	for k := range decl {
		if k != "name" && k != "description" && k != "parameters" {
			add("", "declaration key %q", k)
		}
	}
	params, ok := decl["parameters"]
	if !ok {
		return problems
	}
	allowed := map[string]bool{
		"type": true, "format": true, "description": true, "nullable": true, "enum": true, "properties": true,
		"required": true, "items": true, "anyOf": true, "minimum": true, "maximum": true, "minItems": true,
		"maxItems": true, "minLength": true, "maxLength": true, "pattern": true, "minProperties": true,
		"maxProperties": true, "title": true,
	}
	types := map[string]bool{"STRING": true, "NUMBER": true, "INTEGER": true, "BOOLEAN": true, "OBJECT": true, "ARRAY": true}
	var walk func(n any, path string)
	walk = func(n any, path string) {
		m, ok := n.(map[string]any)
		if !ok {
			add(path, "schema is %T", n)
			return
		}
		for k := range m {
			if !allowed[k] {
				add(path, "keyword %q", k)
			}
		}
		t, _ := m["type"].(string)
		if _, any := m["anyOf"]; !any && !types[t] {
			add(path, "type %v", m["type"])
		}
		if _, ok := m["enum"]; ok && t != "STRING" {
			add(path, "enum on %s", t)
		}
		if t == "OBJECT" {
			ps, _ := m["properties"].(map[string]any)
			if len(ps) == 0 && path != "" {
				add(path, "OBJECT without properties")
			}
			for _, r := range asSlice(m["required"]) {
				if _, ok := ps[r.(string)]; !ok {
					add(path, "required %v is not a property", r)
				}
			}
			for k, p := range ps {
				walk(p, path+"/properties/"+k)
			}
		}
		if t == "ARRAY" {
			items, ok := m["items"]
			if !ok {
				add(path, "ARRAY without items")
			} else {
				walk(items, path+"/items")
			}
		}
		for i, b := range asSlice(m["anyOf"]) {
			walk(b, fmt.Sprintf("%s/anyOf/%d", path, i))
		}
	}
	walk(params, "")
	if m, ok := params.(map[string]any); ok && m["type"] != "OBJECT" {
		add("", "parameters type %v, want OBJECT", m["type"])
	}
	return problems
}
