package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Schema is one node of a parsed, normalised JSON Schema. Keywords the package understands
// have their own field; every other keyword is kept verbatim in Extra, so nothing is lost.
//
// A Schema is a plain value tree; it is safe for concurrent reads, and the package never
// modifies a tree it has returned. A tree built by hand must not contain pointer cycles:
// recursion is written with Ref.
type Schema struct {
	// Bool is non-nil for the boolean schemas true (anything) and false (nothing); every
	// other field is then empty.
	Bool *bool
	// Ref is a local reference ("#" or "#/$defs/name"); remote and file references are
	// refused when parsing.
	Ref string
	// Type lists the allowed JSON types ("object", "string", "null", …), without duplicates.
	// Empty means any type. `nullable: true` is folded in as "null".
	Type []string
	// Title is the schema's title.
	Title string
	// Description is the schema's description.
	Description string
	// Format is the string format ("date-time", "uri", …).
	Format string
	// Pattern is the regular expression a string must match.
	Pattern string
	// Enum lists the allowed values, as JSON.
	Enum []json.RawMessage
	// Const is the only allowed value, as JSON; nil when absent (a const of null is "null").
	Const json.RawMessage
	// Default is the default value, as JSON; nil when absent.
	Default json.RawMessage
	// Examples lists example values, as JSON. A single "example" is folded in.
	Examples []json.RawMessage
	// Properties maps property names to their schemas.
	Properties map[string]*Schema
	// Required lists the required property names, without duplicates.
	Required []string
	// AdditionalProperties is the schema of undeclared properties; nil when absent (which
	// JSON Schema reads as true).
	AdditionalProperties *Schema
	// Items is the schema of array elements; nil when absent.
	Items *Schema
	// PrefixItems are the schemas of the leading array elements (tuples).
	PrefixItems []*Schema
	// AnyOf, OneOf and AllOf are the composition keywords. An allOf whose members are all
	// plain objects is merged into this node when parsing.
	AnyOf, OneOf, AllOf []*Schema
	// Not is the schema a value must not match; nil when absent.
	Not *Schema
	// Defs holds the definitions; draft-07 "definitions" are folded in and references to
	// them rewritten to "#/$defs/…".
	Defs map[string]*Schema
	// Extra keeps every other keyword verbatim (minimum, maxLength, file_uploadable, …).
	Extra map[string]json.RawMessage
}

// Limits bound what the package accepts from untrusted input: parameter schemas, and the
// arguments a model writes against them. Zero fields take the defaults; a negative field
// means no limit. A Limits is a plain value, safe to share.
type Limits struct {
	// MaxBytes is the largest schema document accepted. Optional. Defaults to 1 MiB.
	MaxBytes int
	// MaxDepth is the deepest nesting of schemas inside schemas. Optional. Defaults to 32.
	MaxDepth int
	// MaxNodes is the largest number of schema nodes. Optional. Defaults to 20,000.
	MaxNodes int
	// MaxEnum is the largest number of values in one enum. Optional. Defaults to 2,000.
	MaxEnum int
	// MaxArgBytes is the largest argument document a [Validator] checks; larger ones fail
	// with [ErrTooLarge] before they are decoded. Optional. Defaults to 4 MiB.
	MaxArgBytes int
	// MaxArgDepth is the deepest nesting of arrays and objects in arguments a [Validator]
	// checks; deeper ones fail with [ErrTooDeep] before they are decoded. Optional. Defaults
	// to 64.
	MaxArgDepth int
}

func (l Limits) withDefaults() Limits {
	def := func(v, d int) int {
		switch {
		case v == 0:
			return d
		case v < 0:
			return int(^uint(0) >> 1)
		}
		return v
	}
	return Limits{
		MaxBytes:    def(l.MaxBytes, 1<<20),
		MaxDepth:    def(l.MaxDepth, 32),
		MaxNodes:    def(l.MaxNodes, 20000),
		MaxEnum:     def(l.MaxEnum, 2000),
		MaxArgBytes: def(l.MaxArgBytes, 4<<20),
		MaxArgDepth: def(l.MaxArgDepth, 64),
	}
}

// Parse parses and normalises a parameter schema with the default [Limits]. The root must be
// an object schema. See [ParseWith].
func Parse(data json.RawMessage) (*Schema, error) { return ParseWith(data, Limits{}) }

// ParseWith parses and normalises a parameter schema. The root must be an object schema (a
// missing root type is taken as "object"). Normalisation folds `nullable: true` into the type,
// moves draft-07 definitions to $defs, maps Python-style type names ("None", "int", "str",
// …) to JSON Schema types, infers a missing type from the other keywords, wraps a scalar
// "examples" in an array and merges allOf members that are plain objects. A type that cannot
// be understood, a $ref that leaves the document, or a schema over the limits is an error.
func ParseWith(data json.RawMessage, lim Limits) (*Schema, error) {
	lim = lim.withDefaults()
	if len(data) > lim.MaxBytes {
		return nil, &SchemaError{Reason: fmt.Sprintf("document of %d bytes is over the %d-byte limit", len(data), lim.MaxBytes), Err: ErrLimit}
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, &SchemaError{Reason: "not valid JSON: " + err.Error(), Err: ErrInvalidSchema}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &SchemaError{Reason: "root is " + jsonKind(v) + ", want an object schema", Err: ErrInvalidSchema}
	}
	p := parser{lim: lim, root: m}
	s, err := p.node(m, "", 0)
	if err != nil {
		return nil, err
	}
	if len(s.Type) == 0 && s.Ref == "" && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && len(s.AllOf) == 0 {
		s.Type = []string{"object"}
	}
	if !slices.Contains(s.Type, "object") && s.Ref == "" && len(s.AnyOf)+len(s.OneOf)+len(s.AllOf) == 0 {
		return nil, &SchemaError{Reason: "root type is " + strings.Join(s.Type, ","), Err: ErrInvalidSchema}
	}
	if err := checkRefs(s); err != nil {
		return nil, err
	}
	return s, nil
}

// jsonKind names the JSON type of a decoded value with its article ("an object").
func jsonKind(v any) string {
	switch t := typeName(v); t {
	case "null", "unknown":
		return t
	case "array", "object":
		return "an " + t
	default:
		return "a " + t
	}
}

type parser struct {
	lim   Limits
	root  map[string]any
	nodes int
}

// typeAlias maps a type name seen in the wild to a JSON Schema type.
func typeAlias(name string) (string, bool) {
	switch name {
	case "string", "number", "integer", "boolean", "object", "array", "null":
		return name, true
	case "None", "none", "NoneType", "Null", "NULL":
		return "null", true
	case "str", "String", "STRING":
		return "string", true
	case "int", "Integer", "INTEGER":
		return "integer", true
	case "float", "Number", "NUMBER":
		return "number", true
	case "bool", "Boolean", "BOOLEAN":
		return "boolean", true
	case "dict", "Object", "OBJECT":
		return "object", true
	case "list", "Array", "ARRAY":
		return "array", true
	}
	return "", false
}

func (p *parser) fail(path string, err error, format string, args ...any) error {
	return &SchemaError{Path: path, Reason: fmt.Sprintf(format, args...), Err: err}
}

func (p *parser) sub(v any, path string, depth int) (*Schema, error) {
	switch t := v.(type) {
	case bool:
		b := t
		p.nodes++
		return &Schema{Bool: &b}, nil
	case map[string]any:
		return p.node(t, path, depth)
	}
	return nil, p.fail(path, ErrInvalidSchema, "schema is %s, want an object or a boolean", jsonKind(v))
}

func (p *parser) subs(v any, path string, depth int) ([]*Schema, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, p.fail(path, ErrInvalidSchema, "want an array of schemas, got %s", jsonKind(v))
	}
	out := make([]*Schema, 0, len(arr))
	for i, e := range arr {
		s, err := p.sub(e, path+"/"+strconv.Itoa(i), depth)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (p *parser) schemaMap(v any, path string, depth int) (map[string]*Schema, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, p.fail(path, ErrInvalidSchema, "want an object of schemas, got %s", jsonKind(v))
	}
	out := make(map[string]*Schema, len(m))
	for k, e := range m {
		s, err := p.sub(e, path+"/"+escapePointer(k), depth)
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, nil
}

func (p *parser) node(m map[string]any, path string, depth int) (*Schema, error) {
	if depth > p.lim.MaxDepth {
		return nil, p.fail(path, ErrLimit, "nested deeper than %d levels", p.lim.MaxDepth)
	}
	p.nodes++
	if p.nodes > p.lim.MaxNodes {
		return nil, p.fail(path, ErrLimit, "more than %d schema nodes", p.lim.MaxNodes)
	}
	s := &Schema{}
	d := depth + 1
	nullable := false
	var example json.RawMessage // OpenAPI's single example, appended after "examples"
	var err error
	// Sorted keys make the result independent of map order where keywords overlap
	// ($defs and definitions, items and prefixItems).
	for _, k := range sortedKeys(m) {
		v := m[k]
		kp := path + "/" + escapePointer(k)
		switch k {
		case "$ref":
			r, ok := v.(string)
			if !ok {
				return nil, p.fail(kp, ErrInvalidSchema, "$ref is %s, want a string", jsonKind(v))
			}
			if !strings.HasPrefix(r, "#") {
				return nil, p.fail(kp, ErrRefRefused, "reference %q leaves the document", truncate(r, 80))
			}
			if strings.HasPrefix(r, "#/definitions/") {
				r = "#/$defs/" + strings.TrimPrefix(r, "#/definitions/")
			}
			s.Ref = r
		case "$dynamicRef", "$recursiveRef":
			return nil, p.fail(kp, ErrRefRefused, "%s is not supported", k)
		case "$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary", "id":
			// Meta keywords: the schema is compiled from memory, so identifiers and
			// meta-schemas are dropped rather than resolved.
			if k == "id" {
				if _, isStr := v.(string); !isStr {
					s.extra(k, v)
				}
			}
		case "type":
			if s.Type, err = p.types(v, kp); err != nil {
				return nil, err
			}
		case "nullable":
			nullable = v == true
		case "title", "description", "format", "pattern":
			str, ok := v.(string)
			if !ok {
				s.extra(k, v)
				continue
			}
			switch k {
			case "title":
				s.Title = str
			case "description":
				s.Description = str
			case "format":
				s.Format = str
			case "pattern":
				s.Pattern = str
			}
		case "enum":
			arr, ok := v.([]any)
			if !ok {
				return nil, p.fail(kp, ErrInvalidSchema, "enum is %s, want an array", jsonKind(v))
			}
			if len(arr) > p.lim.MaxEnum {
				return nil, p.fail(kp, ErrLimit, "enum of %d values is over the limit of %d", len(arr), p.lim.MaxEnum)
			}
			s.Enum = make([]json.RawMessage, len(arr))
			for i, e := range arr {
				s.Enum[i] = rawValue(e)
			}
		case "const":
			s.Const = rawValue(v)
		case "default":
			s.Default = rawValue(v)
		case "examples":
			if arr, ok := v.([]any); ok {
				for _, e := range arr {
					s.Examples = append(s.Examples, rawValue(e))
				}
			} else {
				s.Examples = append(s.Examples, rawValue(v))
			}
		case "example":
			example = rawValue(v)
		case "properties":
			if s.Properties, err = p.schemaMap(v, kp, d); err != nil {
				return nil, err
			}
		case "required":
			arr, ok := v.([]any)
			if !ok {
				continue // draft-3 style "required": true on a property; meaningless here
			}
			for _, e := range arr {
				if str, ok := e.(string); ok && !slices.Contains(s.Required, str) {
					s.Required = append(s.Required, str)
				}
			}
		case "additionalProperties", "not":
			sub, err := p.sub(v, kp, d)
			if err != nil {
				return nil, err
			}
			if k == "not" {
				s.Not = sub
			} else {
				s.AdditionalProperties = sub
			}
		case "items":
			if _, isArr := v.([]any); isArr {
				if s.PrefixItems, err = p.subs(v, kp, d); err != nil {
					return nil, err
				}
				continue
			}
			if s.Items, err = p.sub(v, kp, d); err != nil {
				return nil, err
			}
		case "prefixItems":
			if s.PrefixItems, err = p.subs(v, kp, d); err != nil {
				return nil, err
			}
		case "anyOf", "oneOf", "allOf":
			subs, err := p.subs(v, kp, d)
			if err != nil {
				return nil, err
			}
			switch k {
			case "anyOf":
				s.AnyOf = subs
			case "oneOf":
				s.OneOf = subs
			case "allOf":
				s.AllOf = subs
			}
		case "$defs", "definitions":
			defs, err := p.schemaMap(v, kp, d)
			if err != nil {
				return nil, err
			}
			if s.Defs == nil {
				s.Defs = defs
			} else {
				for name, def := range defs {
					if _, dup := s.Defs[name]; !dup {
						s.Defs[name] = def
					}
				}
			}
		default:
			if err := p.checkExtra(k, v, kp, 0); err != nil {
				return nil, err
			}
			s.extra(k, v)
		}
	}
	if example != nil {
		s.Examples = append(s.Examples, example)
	}
	if nullable && len(s.Type) > 0 && !slices.Contains(s.Type, "null") {
		s.Type = append(s.Type, "null")
		if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, isNullRaw) {
			s.Enum = append(s.Enum, json.RawMessage("null"))
		}
	}
	if len(s.Type) == 0 {
		s.Type = inferType(s)
	}
	if nullable && len(s.Type) == 0 && len(s.AnyOf) > 0 {
		s.AnyOf = append(s.AnyOf, &Schema{Type: []string{"null"}})
	}
	if len(s.AllOf) > 0 {
		mergeAllOf(s)
	}
	slices.Sort(s.Required)
	return s, nil
}

// checkExtra refuses references hidden in keywords kept verbatim (patternProperties, if,
// dependentSchemas, …): they would otherwise reach the validator.
func (p *parser) checkExtra(k string, v any, path string, depth int) error {
	if depth > p.lim.MaxDepth {
		return p.fail(path, ErrLimit, "nested deeper than %d levels", p.lim.MaxDepth)
	}
	switch t := v.(type) {
	case map[string]any:
		for kk, vv := range t {
			if kk == "$ref" || kk == "$dynamicRef" || kk == "$recursiveRef" {
				if r, ok := vv.(string); !ok || !strings.HasPrefix(r, "#") || kk != "$ref" {
					return p.fail(path, ErrRefRefused, "reference in %q leaves the document", k)
				}
			}
			if err := p.checkExtra(k, vv, path, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for _, vv := range t {
			if err := p.checkExtra(k, vv, path, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *parser) types(v any, path string) ([]string, error) {
	one := func(x any) (string, error) {
		str, ok := x.(string)
		if !ok {
			return "", p.fail(path, ErrInvalidSchema, "type is %s, want a string", jsonKind(x))
		}
		t, ok := typeAlias(str)
		if !ok {
			return "", p.fail(path, ErrInvalidSchema, "unknown type %q", truncate(str, 40))
		}
		return t, nil
	}
	switch t := v.(type) {
	case string:
		s, err := one(t)
		if err != nil {
			return nil, err
		}
		return []string{s}, nil
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			s, err := one(e)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, p.fail(path, ErrInvalidSchema, "type is %s, want a string or an array", jsonKind(v))
}

func (s *Schema) extra(k string, v any) {
	if s.Extra == nil {
		s.Extra = make(map[string]json.RawMessage)
	}
	s.Extra[k] = rawValue(v)
}

func isNullRaw(r json.RawMessage) bool { return string(r) == "null" }

// inferType guesses the type of a schema that has none, from its other keywords.
func inferType(s *Schema) []string {
	switch {
	case s.Properties != nil || (s.AdditionalProperties != nil && s.AdditionalProperties.Bool == nil) || s.Extra["patternProperties"] != nil:
		return []string{"object"}
	case s.Items != nil || s.PrefixItems != nil:
		return []string{"array"}
	}
	vals := s.Enum
	if s.Const != nil {
		vals = []json.RawMessage{s.Const}
	}
	if len(vals) == 0 {
		return nil
	}
	var out []string
	for _, v := range vals {
		t := rawType(v)
		if t == "integer" {
			t = "number"
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// rawType returns the JSON type of an encoded value ("integer" for whole numbers).
func rawType(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(v, ".eE") {
		if f, err := strconv.ParseFloat(string(v), 64); err == nil && f == float64(int64(f)) {
			return "integer"
		}
		return "number"
	}
	return "integer"
}

// mergeAllOf folds allOf members that are plain objects (the Pydantic "model plus extra keys"
// pattern) into s. Anything else is left as allOf.
func mergeAllOf(s *Schema) {
	if s.Ref != "" || len(s.AnyOf)+len(s.OneOf) > 0 {
		return
	}
	if len(s.Type) > 0 && !slices.Equal(s.Type, []string{"object"}) {
		return
	}
	props := map[string]*Schema{}
	for k, v := range s.Properties {
		props[k] = v
	}
	required := slices.Clone(s.Required)
	open := false
	if s.AdditionalProperties != nil {
		if s.AdditionalProperties.Bool == nil || !*s.AdditionalProperties.Bool {
			return
		}
		open = true
	}
	for _, m := range s.AllOf {
		if m.Bool != nil || m.Ref != "" || len(m.AnyOf)+len(m.OneOf)+len(m.AllOf) > 0 || m.Not != nil ||
			len(m.Extra) > 0 || len(m.Enum) > 0 || m.Const != nil || len(m.Defs) > 0 ||
			!slices.Equal(m.Type, []string{"object"}) {
			return
		}
		if m.AdditionalProperties != nil {
			if m.AdditionalProperties.Bool == nil || !*m.AdditionalProperties.Bool {
				return
			}
			open = true
		}
		for k, v := range m.Properties {
			if _, dup := props[k]; dup {
				return
			}
			props[k] = v
		}
		for _, r := range m.Required {
			if !slices.Contains(required, r) {
				required = append(required, r)
			}
		}
	}
	s.Type = []string{"object"}
	s.Properties = props
	s.Required = required
	if open {
		t := true
		s.AdditionalProperties = &Schema{Bool: &t}
	}
	s.AllOf = nil
}

// checkRefs makes sure every $ref resolves inside the document and that no reference loops
// back to itself without consuming part of the value (through properties or items), which
// would make every consumer recurse forever.
func checkRefs(root *Schema) error {
	if err := checkRefTargets(root, root, ""); err != nil {
		return err
	}
	state := map[string]int{} // 1: on the DFS stack, 2: done
	var visit func(ref string) string
	visit = func(ref string) string {
		switch state[ref] {
		case 1:
			return ref
		case 2:
			return ""
		}
		state[ref] = 1
		target, _ := resolveRef(root, ref)
		for _, next := range sameLocationRefs(target, nil) {
			if loop := visit(next); loop != "" {
				return loop
			}
		}
		state[ref] = 2
		return ""
	}
	var loop string
	var walk func(n *Schema) bool
	walk = func(n *Schema) bool {
		if n.Ref != "" {
			if loop = visit(n.Ref); loop != "" {
				return false
			}
		}
		ok := true
		n.each("", func(c *Schema, _ string) bool {
			ok = walk(c)
			return ok
		})
		return ok
	}
	if !walk(root) {
		return &SchemaError{Reason: "reference cycle through " + truncate(loop, 80) + " that never reaches a value", Err: ErrInvalidSchema}
	}
	return nil
}

// sameLocationRefs lists the references s applies to the same value: its own and those
// inside anyOf, oneOf, allOf and not.
func sameLocationRefs(s *Schema, out []string) []string {
	if s == nil {
		return out
	}
	if s.Ref != "" {
		out = append(out, s.Ref)
	}
	for _, list := range [][]*Schema{s.AnyOf, s.OneOf, s.AllOf} {
		for _, c := range list {
			out = sameLocationRefs(c, out)
		}
	}
	return sameLocationRefs(s.Not, out)
}

// checkRefTargets makes sure every $ref under s resolves.
func checkRefTargets(root, s *Schema, path string) error {
	if s.Ref != "" {
		if _, err := resolveRef(root, s.Ref); err != nil {
			return &SchemaError{Path: path + "/$ref", Reason: err.Error(), Err: ErrRefRefused}
		}
	}
	var err error
	s.each(path, func(c *Schema, p string) bool {
		err = checkRefTargets(root, c, p)
		return err == nil
	})
	return err
}

// isBareRef reports whether s is nothing but a reference.
func isBareRef(s *Schema) bool {
	return s.Ref != "" && len(s.Type) == 0 && s.Properties == nil && s.Items == nil && len(s.AnyOf)+len(s.OneOf)+len(s.AllOf) == 0
}

// each calls fn for every direct child schema of s with its JSON Pointer, until fn returns
// false. Children are visited in a deterministic order.
func (s *Schema) each(path string, fn func(c *Schema, p string) bool) {
	for _, k := range sortedKeys(s.Properties) {
		if !fn(s.Properties[k], path+"/properties/"+escapePointer(k)) {
			return
		}
	}
	if s.AdditionalProperties != nil && !fn(s.AdditionalProperties, path+"/additionalProperties") {
		return
	}
	if s.Items != nil && !fn(s.Items, path+"/items") {
		return
	}
	for i, c := range s.PrefixItems {
		if !fn(c, path+"/prefixItems/"+strconv.Itoa(i)) {
			return
		}
	}
	for _, g := range []struct {
		name string
		list []*Schema
	}{{"anyOf", s.AnyOf}, {"oneOf", s.OneOf}, {"allOf", s.AllOf}} {
		for i, c := range g.list {
			if !fn(c, path+"/"+g.name+"/"+strconv.Itoa(i)) {
				return
			}
		}
	}
	if s.Not != nil && !fn(s.Not, path+"/not") {
		return
	}
	for _, k := range sortedKeys(s.Defs) {
		if !fn(s.Defs[k], path+"/$defs/"+escapePointer(k)) {
			return
		}
	}
}

// resolveRef finds the schema a local reference points at.
func resolveRef(root *Schema, ref string) (*Schema, error) {
	if ref == "#" {
		return root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("reference %q is not a JSON Pointer into the document", truncate(ref, 80))
	}
	cur := root
	parts := strings.Split(ref[2:], "/")
	for i := 0; i < len(parts); i++ {
		if cur == nil {
			break
		}
		tok := unescapePointer(parts[i])
		next := func(list []*Schema) *Schema {
			if i+1 >= len(parts) {
				return nil
			}
			i++
			n, err := strconv.Atoi(parts[i])
			if err != nil || n < 0 || n >= len(list) {
				return nil
			}
			return list[n]
		}
		named := func(m map[string]*Schema) *Schema {
			if i+1 >= len(parts) {
				return nil
			}
			i++
			return m[unescapePointer(parts[i])]
		}
		switch tok {
		case "$defs", "definitions":
			cur = named(cur.Defs)
		case "properties":
			cur = named(cur.Properties)
		case "items":
			cur = cur.Items
		case "additionalProperties":
			cur = cur.AdditionalProperties
		case "not":
			cur = cur.Not
		case "prefixItems":
			cur = next(cur.PrefixItems)
		case "anyOf":
			cur = next(cur.AnyOf)
		case "oneOf":
			cur = next(cur.OneOf)
		case "allOf":
			cur = next(cur.AllOf)
		default:
			cur = nil
		}
	}
	if cur == nil {
		return nil, fmt.Errorf("reference %q points at nothing", truncate(ref, 80))
	}
	return cur, nil
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// truncate cuts s to at most n bytes, on a character boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// rawValue encodes a decoded JSON value with sorted keys and without HTML escaping.
func rawValue(v any) json.RawMessage { return appendValue(nil, v) }
