package schema

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// geminiMaxRefDepth is how many times one reference may be inlined inside itself before the
// recursion is cut.
const geminiMaxRefDepth = 2

// geminiType maps a JSON Schema type to Gemini's upper-case Type.
func geminiType(t string) string { return strings.ToUpper(t) }

// geminiKeep reports whether a verbatim keyword exists in Gemini's Schema for a node of type t.
func geminiKeep(k, t string) bool {
	switch k {
	case "minimum", "maximum":
		return t == "NUMBER" || t == "INTEGER"
	case "minItems", "maxItems":
		return t == "ARRAY"
	case "minLength", "maxLength":
		return t == "STRING"
	case "minProperties", "maxProperties":
		return t == "OBJECT"
	}
	return false
}

// geminiFormat reports whether Gemini accepts format f on type t.
func geminiFormat(f, t string) bool {
	switch t {
	case "STRING":
		return f == "date-time" || f == "enum"
	case "INTEGER":
		return f == "int32" || f == "int64"
	case "NUMBER":
		return f == "float" || f == "double"
	}
	return false
}

// geminiBudget bounds the nodes one conversion may produce: inlining references can
// otherwise grow a small schema exponentially.
const geminiBudget = 20000

type geminiConv struct {
	root   *Schema
	stack  []string
	budget int
}

// toGemini converts a normalised parameter schema to Gemini's OpenAPI 3.0 subset. It returns
// nil for a root without parameters. It never fails: what Gemini cannot express is dropped
// or described in words.
func toGemini(root *Schema) *Schema {
	g := &geminiConv{root: root, budget: geminiBudget}
	out := g.node(root, true)
	if out == nil || len(out.Properties) == 0 {
		return nil
	}
	return out
}

func geminiString(desc string, notes ...string) *Schema {
	return &Schema{Type: []string{"STRING"}, Description: joinNote(desc, notes)}
}

func (g *geminiConv) node(s *Schema, isRoot bool) *Schema {
	if s == nil || s.Bool != nil {
		return geminiString("")
	}
	g.budget--
	if s.Ref != "" {
		target, err := resolveRef(g.root, s.Ref)
		depth := 0
		for _, r := range g.stack {
			if r == s.Ref {
				depth++
			}
		}
		if err != nil || depth >= geminiMaxRefDepth || g.budget <= 0 {
			return geminiString(s.Description, "A JSON value, encoded as a string (nested too deep to describe).")
		}
		g.stack = append(g.stack, s.Ref)
		out := g.node(target, false)
		g.stack = g.stack[:len(g.stack)-1]
		if out != nil && s.Description != "" {
			c := *out
			c.Description = s.Description
			out = &c
		}
		return out
	}
	notes := annotationNotes(s)
	nonNull, nullable := splitNull(s.Type)

	branches := append(slices.Clip(s.AnyOf), s.OneOf...)
	if len(s.AllOf) > 0 && len(branches) == 0 && len(s.Type) == 0 {
		// An allOf that could not be merged: Gemini has no intersection, the first member
		// is the closest single schema.
		branches = s.AllOf[:1]
	}
	if len(branches) > 0 && len(nonNull) == 0 {
		var outs []*Schema
		for _, b := range branches {
			if b.Bool == nil && slices.Equal(b.Type, []string{"null"}) && len(b.AnyOf) == 0 {
				nullable = true
				continue
			}
			if c := g.node(b, false); c != nil {
				if c.Extra != nil && string(c.Extra["nullable"]) == "true" {
					nullable = true
				}
				outs = append(outs, c)
			}
		}
		var n *Schema
		switch len(outs) {
		case 0:
			return nil
		case 1:
			c := *outs[0]
			n = &c
			if s.Description != "" {
				n.Description = s.Description
			}
		default:
			n = &Schema{AnyOf: outs, Description: s.Description}
		}
		n.Description = joinNote(n.Description, notes)
		return geminiNullable(n, nullable)
	}

	if len(nonNull) == 0 {
		if nullable {
			return nil // a value that can only be null tells the model nothing
		}
		if len(s.Enum) > 0 || s.Const != nil {
			nonNull = inferType(&Schema{Enum: s.Enum, Const: s.Const})
		}
		if len(nonNull) == 0 {
			return geminiString(s.Description, notes...)
		}
	}
	if len(nonNull) > 1 {
		n := &Schema{Description: joinNote(s.Description, notes)}
		for _, t := range nonNull {
			one := *s
			one.Type, one.Description, one.Default, one.Examples = []string{t}, "", nil, nil
			if c := g.node(&one, false); c != nil {
				n.AnyOf = append(n.AnyOf, c)
			}
		}
		return geminiNullable(n, nullable)
	}

	t := geminiType(nonNull[0])
	n := &Schema{Type: []string{t}}
	if s.Format != "" {
		if geminiFormat(s.Format, t) {
			n.Format = s.Format
		} else {
			notes = append(notes, "Format: "+s.Format+".")
		}
	}
	if s.Pattern != "" && t == "STRING" {
		n.Pattern = s.Pattern
	}
	for _, k := range sortedKeys(s.Extra) {
		// Count limits are int64 in Gemini's Schema; only whole numbers pass.
		if geminiKeep(k, t) && isNumberRaw(s.Extra[k]) && (k == "minimum" || k == "maximum" || isIntegerRaw(s.Extra[k])) {
			if n.Extra == nil {
				n.Extra = make(map[string]json.RawMessage)
			}
			n.Extra[k] = s.Extra[k]
		}
	}
	values := s.Enum
	if s.Const != nil {
		values = []json.RawMessage{s.Const}
	}
	if len(values) > 0 {
		var strs []json.RawMessage
		allStrings := true
		for _, v := range values {
			switch {
			case isNullRaw(v):
				nullable = true
			case rawType(v) == "string":
				strs = append(strs, v)
			default:
				allStrings = false
			}
		}
		switch {
		case allStrings && t == "STRING" && len(strs) > 0:
			n.Enum = strs
			n.Format = "enum"
		case t == "NUMBER" || t == "INTEGER" || t == "BOOLEAN":
			// Gemini enums are strings only. A number or boolean enum travels as the
			// values' text, which Validator.Coerce turns back into numbers or booleans,
			// and the model is held to the listed values.
			if texts, ok := scalarEnumTexts(values, t); ok {
				n.Type = []string{"STRING"}
				n.Enum, n.Format, n.Extra = texts, "enum", nil
				break
			}
			fallthrough
		default:
			parts := make([]string, 0, len(values))
			for _, v := range values {
				parts = append(parts, noteValue(v))
			}
			notes = append(notes, "Allowed values: "+truncate(strings.Join(parts, ", "), 500)+".")
		}
	}
	switch t {
	case "OBJECT":
		if len(s.Properties) == 0 {
			if isRoot {
				n.Properties = map[string]*Schema{}
				break
			}
			// Gemini refuses OBJECT without properties; the map travels as JSON text that
			// Validator.Coerce decodes back into an object.
			n.Type = []string{"STRING"}
			n.Extra = nil
			notes = append(notes, "A JSON object, encoded as a string.")
			break
		}
		n.Properties = make(map[string]*Schema, len(s.Properties))
		for _, k := range sortedKeys(s.Properties) {
			if c := g.node(s.Properties[k], false); c != nil {
				n.Properties[k] = c
			}
		}
		for _, r := range s.Required {
			if _, ok := n.Properties[r]; ok {
				n.Required = append(n.Required, r)
			}
		}
	case "ARRAY":
		switch {
		case s.Items != nil:
			n.Items = g.node(s.Items, false)
		case len(s.PrefixItems) > 0:
			n.Items = g.node(s.PrefixItems[0], false)
		}
		if n.Items == nil {
			n.Items = &Schema{Type: []string{"STRING"}}
		}
	}
	n.Description = joinNote(s.Description, notes)
	return geminiNullable(n, nullable)
}

func geminiNullable(n *Schema, nullable bool) *Schema {
	if !nullable {
		return n
	}
	if n.Extra == nil {
		n.Extra = make(map[string]json.RawMessage, 1)
	}
	n.Extra["nullable"] = json.RawMessage("true")
	return n
}

// scalarEnumTexts returns the non-null values of a number, integer or boolean enum as JSON
// strings of their text, or false when a value does not have that type.
func scalarEnumTexts(values []json.RawMessage, t string) ([]json.RawMessage, bool) {
	var out []json.RawMessage
	for _, v := range values {
		if isNullRaw(v) {
			continue
		}
		k := rawType(v)
		switch {
		case t == "BOOLEAN" && k == "boolean":
		case t == "INTEGER" && k == "integer" && !bytes.ContainsAny(v, ".eE"):
		case t == "NUMBER" && (k == "number" || k == "integer"):
		default:
			return nil, false
		}
		out = append(out, appendString(nil, string(v)))
	}
	return out, len(out) > 0
}
