package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// OpenAI strict-mode limits, from the Structured Outputs "supported schemas" documentation.
const (
	// strictMaxProperties: object properties in the whole schema.
	strictMaxProperties = 5000
	// strictMaxNesting: levels of nesting, counted as schema-in-schema steps (a property,
	// an array's items, an anyOf branch) along the deepest path, $defs followed.
	strictMaxNesting = 10
	// strictMaxStringTotal: characters of property names, definition names, enum values and
	// const values, in total.
	strictMaxStringTotal = 120000
	// strictMaxEnumTotal: enum values in the whole schema.
	strictMaxEnumTotal = 1000
	// strictLargeEnum and strictLargeEnumString: one enum of more than strictLargeEnum
	// string values may total at most strictLargeEnumString characters.
	strictLargeEnum       = 250
	strictLargeEnumString = 15000
)

// strictFormats are the string formats strict mode accepts.
func strictFormat(f string) bool {
	switch f {
	case "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid":
		return true
	}
	return false
}

// strictKeep reports whether a keyword kept verbatim is accepted by strict mode for a node of
// the given types.
func strictKeep(k string, types []string) bool {
	switch k {
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		return slices.Contains(types, "number") || slices.Contains(types, "integer")
	case "minItems", "maxItems":
		return slices.Contains(types, "array")
	}
	return false
}

// strictNote reports whether a keyword strict mode refuses is worth telling the model about in
// the description.
func strictNote(k string) bool {
	switch k {
	case "minLength", "maxLength", "uniqueItems", "minProperties", "maxProperties",
		"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
		"contentMediaType", "contentEncoding":
		return true
	}
	return false
}

// strictStructural reports whether a keyword changes what a value may be in a way strict mode
// cannot express; its presence makes the schema non-strict.
func strictStructural(k string) bool {
	switch k {
	case "patternProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems",
		"if", "then", "else", "dependentSchemas", "dependentRequired", "dependencies",
		"contains", "minContains", "maxContains", "additionalItems":
		return true
	}
	return false
}

type strictor struct {
	root   *Schema
	reason string
}

func (st *strictor) fail(path, format string, args ...any) {
	if st.reason == "" {
		if path == "" {
			path = "/"
		}
		st.reason = fmt.Sprintf(format, args...) + " at " + path
	}
}

// makeStrict returns the OpenAI strict-mode variant of root, or a reason it cannot be made.
func makeStrict(root *Schema) (*Schema, string) {
	st := &strictor{root: root}
	if len(root.AnyOf)+len(root.OneOf)+len(root.AllOf) > 0 || !slices.Equal(root.Type, []string{"object"}) {
		return nil, "root is not a plain object schema"
	}
	out := st.node(root, "", true)
	if st.reason != "" {
		return nil, st.reason
	}
	if len(root.Defs) > 0 {
		out.Defs = make(map[string]*Schema, len(root.Defs))
		for _, k := range sortedKeys(root.Defs) {
			out.Defs[k] = st.node(root.Defs[k], "/$defs/"+escapePointer(k), false)
		}
	}
	if st.reason != "" {
		return nil, st.reason
	}
	if reason := checkStrictLimits(out); reason != "" {
		return nil, reason
	}
	return out, ""
}

func (st *strictor) node(s *Schema, path string, isRoot bool) *Schema {
	if st.reason != "" {
		return &Schema{}
	}
	if s.Bool != nil {
		st.fail(path, "unconstrained value (boolean schema)")
		return &Schema{}
	}
	if s.Ref != "" {
		if s.Ref != "#" && (!strings.HasPrefix(s.Ref, "#/$defs/") || strings.Count(s.Ref, "/") != 2) {
			st.fail(path, "reference %s outside $defs", truncate(s.Ref, 60))
			return &Schema{}
		}
		if isBareRef(s) && len(s.Enum) == 0 && s.Const == nil {
			// Siblings that are only annotations are folded into a wrapper so the $ref
			// stays alone, as strict mode wants.
			ref := &Schema{Ref: s.Ref}
			if d := s.Description; d != "" {
				return &Schema{AnyOf: []*Schema{ref}, Description: d}
			}
			return ref
		}
		st.fail(path, "$ref with sibling keywords")
		return &Schema{}
	}
	n := &Schema{Description: s.Description, Pattern: s.Pattern, Enum: s.Enum, Const: s.Const}
	var notes []string
	if s.Format != "" {
		if strictFormat(s.Format) {
			n.Format = s.Format
		} else {
			notes = append(notes, "Format: "+s.Format+".")
		}
	}
	notes = append(notes, annotationNotes(s)...)
	for _, k := range sortedKeys(s.Extra) {
		switch {
		case strictStructural(k):
			st.fail(path, "keyword %s", k)
			return n
		case strictKeep(k, s.Type) && isNumberRaw(s.Extra[k]) && (k != "minItems" && k != "maxItems" || isIntegerRaw(s.Extra[k])):
			if n.Extra == nil {
				n.Extra = make(map[string]json.RawMessage)
			}
			n.Extra[k] = s.Extra[k]
		case strictNote(k):
			notes = append(notes, k+": "+noteValue(s.Extra[k])+".")
		}
	}
	if s.Not != nil || len(s.AllOf) > 0 || len(s.PrefixItems) > 0 {
		st.fail(path, "keyword not, allOf or prefixItems")
		return n
	}
	defer func() { n.Description = joinNote(n.Description, notes) }()

	branches := append(slices.Clip(s.AnyOf), s.OneOf...)
	if len(branches) > 0 {
		if isRoot {
			st.fail(path, "anyOf at the root")
			return n
		}
		if len(s.Type) > 0 || s.Properties != nil || s.Items != nil {
			st.fail(path, "anyOf beside type")
			return n
		}
		for i, b := range branches {
			c := st.node(b, fmt.Sprintf("%s/anyOf/%d", path, i), false)
			if len(c.AnyOf) > 0 && len(c.Type) == 0 && c.Description == "" {
				n.AnyOf = append(n.AnyOf, c.AnyOf...)
				continue
			}
			n.AnyOf = append(n.AnyOf, c)
		}
		return n
	}

	if len(s.Type) == 0 {
		if len(s.Enum) > 0 || s.Const != nil {
			return n
		}
		st.fail(path, "unconstrained value (no type)")
		return n
	}
	nonNull, nullable := splitNull(s.Type)
	n.Type = s.Type
	switch {
	case slices.Contains(nonNull, "object"):
		if len(nonNull) > 1 {
			st.fail(path, "object mixed with other types")
			return n
		}
		freeForm := len(s.Properties) == 0 && !isFalseSchema(s.AdditionalProperties)
		if freeForm && isRoot && s.AdditionalProperties != nil {
			// A root that says it takes any keys cannot be closed without losing them all.
			st.fail(path, "free-form root object")
			return n
		}
		if freeForm && !isRoot {
			// A map with no declared keys cannot be closed; it travels as JSON text that
			// Validator.Coerce decodes back into an object.
			n.Type = []string{"string"}
			if nullable {
				n.Type = append(n.Type, "null")
			}
			n.Enum, n.Const = nil, nil
			notes = append(notes, "A JSON object, encoded as a string.")
			return n
		}
		n.Properties = make(map[string]*Schema, len(s.Properties))
		n.Required = make([]string, 0, len(s.Properties))
		for _, k := range sortedKeys(s.Properties) {
			c := st.node(s.Properties[k], path+"/properties/"+escapePointer(k), false)
			if !slices.Contains(s.Required, k) {
				c = strictNullable(c)
			}
			n.Properties[k] = c
			n.Required = append(n.Required, k)
		}
		f := false
		n.AdditionalProperties = &Schema{Bool: &f}
	case slices.Contains(nonNull, "array"):
		if len(nonNull) > 1 {
			st.fail(path, "array mixed with other types")
			return n
		}
		if s.Items == nil || s.Items.Bool != nil || isEmptySchema(s.Items) {
			st.fail(path, "array without item schema")
			return n
		}
		n.Items = st.node(s.Items, path+"/items", false)
	case len(nonNull) > 1 && len(s.Enum) == 0 && s.Const == nil:
		// Several scalar types: one anyOf branch each.
		for _, t := range nonNull {
			n.AnyOf = append(n.AnyOf, &Schema{Type: []string{t}})
		}
		if nullable {
			n.AnyOf = append(n.AnyOf, &Schema{Type: []string{"null"}})
		}
		n.Type, n.Pattern, n.Format, n.Extra = nil, "", "", nil
	}
	return n
}

// strictNullable makes an optional property accept null, the strict-mode way of saying
// "optional".
func strictNullable(c *Schema) *Schema {
	switch {
	case len(c.AnyOf) > 0 && len(c.Type) == 0:
		for _, b := range c.AnyOf {
			if slices.Equal(b.Type, []string{"null"}) {
				return c
			}
		}
		n := *c
		n.AnyOf = append(slices.Clip(c.AnyOf), &Schema{Type: []string{"null"}})
		return &n
	case len(c.Type) > 0 && c.Ref == "":
		if slices.Contains(c.Type, "null") {
			return c
		}
		n := *c
		n.Type = append(slices.Clip(c.Type), "null")
		if n.Const != nil {
			n.Enum, n.Const = []json.RawMessage{c.Const}, nil
		}
		if n.Enum != nil && !slices.ContainsFunc(n.Enum, isNullRaw) {
			n.Enum = append(slices.Clip(n.Enum), json.RawMessage("null"))
		}
		return &n
	case len(c.Type) == 0 && c.Ref == "" && (len(c.Enum) > 0 || c.Const != nil):
		n := *c
		if n.Const != nil {
			n.Enum, n.Const = []json.RawMessage{c.Const}, nil
		}
		if !slices.ContainsFunc(n.Enum, isNullRaw) {
			n.Enum = append(slices.Clip(n.Enum), json.RawMessage("null"))
		}
		return &n
	}
	return &Schema{AnyOf: []*Schema{c, {Type: []string{"null"}}}}
}

// checkStrictLimits applies strict mode's size limits to a strict schema, returning which
// one it breaks, or "".
func checkStrictLimits(root *Schema) string {
	var props, strTotal, enumTotal int
	var reason string
	seen := make(map[*Schema]bool)
	var walk func(s *Schema)
	walk = func(s *Schema) {
		if reason != "" || s == nil || seen[s] {
			return
		}
		seen[s] = true
		props += len(s.Properties)
		for k := range s.Properties {
			strTotal += utf8.RuneCountInString(k)
		}
		for k := range s.Defs {
			strTotal += utf8.RuneCountInString(k)
		}
		values := s.Enum
		enumTotal += len(values)
		if s.Const != nil {
			values = append(slices.Clip(values), s.Const)
		}
		enumStr := 0
		for _, v := range values {
			if len(v) > 0 && v[0] == '"' {
				var str string
				if json.Unmarshal(v, &str) == nil {
					enumStr += utf8.RuneCountInString(str)
				}
			}
		}
		strTotal += enumStr
		if len(s.Enum) > strictLargeEnum && enumStr > strictLargeEnumString {
			reason = fmt.Sprintf("enum of %d values totals %d characters, over strict mode's %d for enums of more than %d values", len(s.Enum), enumStr, strictLargeEnumString, strictLargeEnum)
			return
		}
		s.each("", func(c *Schema, _ string) bool {
			walk(c)
			return reason == ""
		})
	}
	walk(root)
	switch {
	case reason != "":
		return reason
	case props > strictMaxProperties:
		return fmt.Sprintf("%d object properties, over strict mode's %d", props, strictMaxProperties)
	case enumTotal > strictMaxEnumTotal:
		return fmt.Sprintf("%d enum values, over strict mode's %d", enumTotal, strictMaxEnumTotal)
	case strTotal > strictMaxStringTotal:
		return fmt.Sprintf("property names, definition names, enum and const values total %d characters, over strict mode's %d", strTotal, strictMaxStringTotal)
	}
	if d := (&nesting{root: root, memo: map[*Schema]int{}, open: map[*Schema]bool{}}).height(root); d > strictMaxNesting {
		return fmt.Sprintf("nested %d levels deep, over strict mode's %d", d, strictMaxNesting)
	}
	return ""
}

// nesting measures how deeply schemas nest: the most schema-in-schema steps (property,
// items, additionalProperties, anyOf branch) on a path from a node down, following
// references into $defs. A reference back into a definition being measured (recursion,
// which strict mode allows) adds nothing.
type nesting struct {
	root *Schema
	memo map[*Schema]int
	open map[*Schema]bool
}

func (n *nesting) height(s *Schema) int {
	if s.Ref != "" {
		t, err := resolveRef(n.root, s.Ref)
		if err != nil || n.open[t] {
			return 0
		}
		if h, ok := n.memo[t]; ok {
			return h
		}
		n.open[t] = true
		h := n.height(t)
		delete(n.open, t)
		n.memo[t] = h
		return h
	}
	h := 0
	step := func(c *Schema) {
		if c != nil {
			h = max(h, 1+n.height(c))
		}
	}
	for _, k := range sortedKeys(s.Properties) {
		step(s.Properties[k])
	}
	step(s.Items)
	step(s.AdditionalProperties)
	for _, c := range s.PrefixItems {
		step(c)
	}
	for _, c := range s.AnyOf {
		step(c)
	}
	return h
}

func isFalseSchema(s *Schema) bool { return s != nil && s.Bool != nil && !*s.Bool }

// isEmptySchema reports whether s constrains nothing ({} or only annotations).
func isEmptySchema(s *Schema) bool {
	return s.Bool == nil && s.Ref == "" && len(s.Type) == 0 && s.Enum == nil && s.Const == nil &&
		len(s.AnyOf)+len(s.OneOf)+len(s.AllOf) == 0 && s.Not == nil && s.Properties == nil && s.Items == nil
}

// isIntegerRaw reports whether r is a non-negative integer written without a fraction or
// exponent.
func isIntegerRaw(r json.RawMessage) bool {
	if len(r) == 0 {
		return false
	}
	for _, c := range r {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isNumberRaw(r json.RawMessage) bool {
	t := rawType(r)
	return t == "number" || t == "integer"
}

// splitNull splits a type list into its non-null types and whether "null" is among them.
func splitNull(types []string) (nonNull []string, nullable bool) {
	for _, t := range types {
		if t == "null" {
			nullable = true
		} else {
			nonNull = append(nonNull, t)
		}
	}
	return nonNull, nullable
}

// annotationNotes returns the notes that carry s's default and first three examples into
// a description, for renderers whose target has no such keywords.
func annotationNotes(s *Schema) []string {
	var notes []string
	if s.Default != nil && !isNullRaw(s.Default) {
		notes = append(notes, "Default: "+noteValue(s.Default)+".")
	}
	if len(s.Examples) > 0 {
		ex := make([]string, 0, 3)
		for _, e := range s.Examples[:min(len(s.Examples), 3)] {
			ex = append(ex, noteValue(e))
		}
		notes = append(notes, "Examples: "+strings.Join(ex, ", ")+".")
	}
	return notes
}

// noteValue renders a JSON value for a description, cut short if long.
func noteValue(r json.RawMessage) string {
	return truncate(string(r), 80)
}

// joinNote appends notes to a description.
func joinNote(desc string, notes []string) string {
	if len(notes) == 0 {
		return desc
	}
	n := strings.Join(notes, " ")
	if desc == "" {
		return n
	}
	if !strings.HasSuffix(desc, ".") && !strings.HasSuffix(desc, " ") {
		desc += "."
	}
	return desc + " " + n
}
