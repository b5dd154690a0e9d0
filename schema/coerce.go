package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CoercionKind names one kind of repair [Validator.Coerce] makes.
type CoercionKind string

// The repairs Coerce makes to model-written arguments.
const (
	// CoerceNumber turns a string holding a number into that number ("42" -> 42).
	CoerceNumber CoercionKind = "number"
	// CoerceInteger turns a string holding a whole number, or a whole float (3.0), into an
	// integer.
	CoerceInteger CoercionKind = "integer"
	// CoerceBoolean turns "true"/"false" (any case) into a boolean.
	CoerceBoolean CoercionKind = "boolean"
	// CoerceNull turns "null" into null where only null fits.
	CoerceNull CoercionKind = "null"
	// CoerceString turns a number or boolean into its text where a string is wanted.
	CoerceString CoercionKind = "string"
	// CoerceJSON decodes a string holding a JSON object or array where one is wanted.
	CoerceJSON CoercionKind = "json"
	// CoerceWrap wraps a single value in a one-element array where an array is wanted.
	CoerceWrap CoercionKind = "wrap"
	// CoerceOmitNull removes a null given for an optional property that does not accept
	// null: strict mode's way of leaving a property out.
	CoerceOmitNull CoercionKind = "omit-null"
	// CoerceEmpty takes empty arguments (what some models send for a function without
	// parameters) as {}.
	CoerceEmpty CoercionKind = "empty"
	// CoerceFillNull fills a missing required property that can only be null (Gemini
	// definitions leave such properties out) with null.
	CoerceFillNull CoercionKind = "fill-null"
	// CoerceDefault fills a missing property with its schema default; only with
	// [CoerceOptions].FillDefaults.
	CoerceDefault CoercionKind = "default"
)

// CoerceOptions tune [Validator.CoerceAndValidate] and [Validator.Coerce]. The zero
// value is what [Validator.Coerce] does: repair the values the model wrote and fill in
// nothing it did not write. It is a plain value, safe to share.
type CoerceOptions struct {
	// FillDefaults fills a missing property that has a non-null schema default fitting its
	// own schema with that default (recorded as [CoerceDefault]). Optional. Defaults to
	// false: a default in a catalogue schema documents what the server does when the
	// property is left out, and sending it can overwrite a value the user did not mention.
	FillDefaults bool
}

// Coercion records one repair made to the arguments. It is a plain value.
type Coercion struct {
	// Path is a JSON Pointer to the repaired value.
	Path string
	// Kind says what was done.
	Kind CoercionKind
}

// maxCoerceDepth bounds recursion through values and references.
const maxCoerceDepth = 64

// Coerce repairs the near misses models make before validation: "42" -> 42, "true" -> true,
// a JSON-encoded string holding an object or array -> that value (which is also how strict
// and Gemini definitions send free-form objects), a single value -> a one-element array, a
// number -> its text where a string is wanted, a null for an optional property that does not
// accept null -> left out (how strict mode says "not given"). It repairs only values the
// model wrote: it fills in no missing property, except a missing required property that can
// only be null (Gemini definitions leave such properties out), which gets null; schema
// defaults are filled only with [CoerceOptions].FillDefaults; opts holds at most one.
// Empty arguments are taken as {}. Run it with the validator of the original schema, not of
// a strict or Gemini variant. It changes only values that do not already fit their schema,
// and returns the arguments unchanged (same bytes) when nothing was repaired. Arguments over
// the limits ([Validator.CheckLimits]) or that are not JSON are a *ValidationError, and are
// not decoded past what shows that.
//
// Coerce is the first half of [Validator.CoerceAndValidate], the one way to check a model's
// arguments; call it alone only to repair arguments that are checked elsewhere.
func (v *Validator) Coerce(args json.RawMessage, opts ...CoerceOptions) (json.RawMessage, []Coercion, error) {
	o, err := oneOption("coerce", opts)
	if err != nil {
		return nil, nil, err
	}
	return v.coerceOnly(args, o)
}

// CoerceWith is [Validator.Coerce] with options.
//
// Deprecated: use v.Coerce(args, opts).
func (v *Validator) CoerceWith(args json.RawMessage, opts CoerceOptions) (json.RawMessage, []Coercion, error) {
	return v.coerceOnly(args, opts)
}

func (v *Validator) coerceOnly(args json.RawMessage, opts CoerceOptions) (json.RawMessage, []Coercion, error) {
	out, done, _, err := v.coerce(args, opts)
	if err != nil {
		return nil, nil, err
	}
	if len(done) == 0 {
		return args, nil, nil
	}
	return appendValue(nil, out), done, nil
}

// coerce checks the limits, then decodes and repairs args, returning the repaired value,
// the repairs and the numbers out of range.
func (v *Validator) coerce(args json.RawMessage, opts CoerceOptions) (any, []Coercion, []Failure, error) {
	if err := v.CheckLimits(args); err != nil {
		return nil, nil, nil, err
	}
	c := coercer{root: v.tree, steps: coerceBudget, fillDefaults: opts.FillDefaults}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
		c.record("", CoerceEmpty)
	}
	val, err := decodeJSON(args)
	if err != nil {
		return nil, nil, nil, &ValidationError{Failures: []Failure{{Reason: "arguments are not valid JSON: " + err.Error()}}}
	}
	out := c.value(val, v.tree, "", 0)
	return out, c.done, c.outOfRange, nil
}

// CoerceAndValidate is the one way to check a model's arguments: it runs [Validator.Coerce]
// (with opts, at most one) then [Validator.Validate] on the result, in one pass. It returns
// the repaired arguments and the repairs made even when validation fails. Besides what
// Validate checks, a number the schema types as a number or an integer must fit a 64-bit
// float, unless the mode is [Off]: 1e400 is refused, not taken as an integer, with that one
// reason for its path.
func (v *Validator) CoerceAndValidate(args json.RawMessage, opts ...CoerceOptions) (json.RawMessage, []Coercion, error) {
	o, err := oneOption("coerce and validate", opts)
	if err != nil {
		return nil, nil, err
	}
	return v.coerceAndValidate(args, o)
}

// CoerceAndValidateWith is [Validator.CoerceAndValidate] with options.
//
// Deprecated: use v.CoerceAndValidate(args, opts).
func (v *Validator) CoerceAndValidateWith(args json.RawMessage, opts CoerceOptions) (json.RawMessage, []Coercion, error) {
	return v.coerceAndValidate(args, opts)
}

func (v *Validator) coerceAndValidate(args json.RawMessage, opts CoerceOptions) (json.RawMessage, []Coercion, error) {
	out, done, outOfRange, err := v.coerce(args, opts)
	if err != nil {
		return nil, nil, err
	}
	fixed := args
	if len(done) > 0 {
		fixed = appendValue(nil, out)
	}
	err = v.validateValue(out)
	if len(outOfRange) == 0 || v.mode == Off {
		return fixed, done, err
	}
	var ve *ValidationError
	if err != nil && (!errors.As(err, &ve) || ve.limit != nil) {
		return fixed, done, err
	}
	fails := outOfRange
	if ve != nil {
		// The validator's reasons for an out-of-range number ("expected integer, but got
		// number") say less than the range does.
		for _, f := range ve.Failures {
			if !slices.ContainsFunc(outOfRange, func(o Failure) bool { return o.Path == f.Path }) {
				fails = append(fails, f)
			}
		}
	}
	return fixed, done, &ValidationError{Failures: fails}
}

// coerceBudget bounds the schema lookups one Coerce call makes: a schema whose anyOf
// branches share references could otherwise be walked an exponential number of times.
const coerceBudget = 100000

type coercer struct {
	root         *Schema
	done         []Coercion
	steps        int
	fillDefaults bool
	// outOfRange lists the numbers that no 64-bit float holds.
	outOfRange []Failure
}

func (c *coercer) record(path string, k CoercionKind) {
	c.done = append(c.done, Coercion{Path: path, Kind: k})
}

// resolve follows references, up to the depth bound.
func (c *coercer) resolve(s *Schema) *Schema {
	for i := 0; s != nil && s.Ref != "" && i < maxCoerceDepth; i++ {
		t, err := resolveRef(c.root, s.Ref)
		if err != nil {
			return nil
		}
		s = t
	}
	return s
}

// allowed returns the JSON types s accepts (nil: any), looking through anyOf/oneOf and
// references.
func (c *coercer) allowed(s *Schema, depth int) []string {
	c.steps--
	s = c.resolve(s)
	if s == nil || s.Bool != nil || depth > maxCoerceDepth || c.steps < 0 {
		return nil
	}
	if len(s.Type) > 0 {
		return s.Type
	}
	branches := append(slices.Clip(s.AnyOf), s.OneOf...)
	if len(branches) == 0 {
		if len(s.AllOf) > 0 {
			return c.allowed(s.AllOf[0], depth+1)
		}
		return nil
	}
	var out []string
	for _, b := range branches {
		ts := c.allowed(b, depth+1)
		if ts == nil {
			return nil
		}
		for _, t := range ts {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// branch picks the schema to descend into for a value of JSON type t: the node itself, or the
// first anyOf/oneOf branch that accepts t.
func (c *coercer) branch(s *Schema, t string, depth int) *Schema {
	c.steps--
	s = c.resolve(s)
	if s == nil || depth > maxCoerceDepth || c.steps < 0 {
		return s
	}
	if len(s.Type) > 0 || s.Properties != nil || s.Items != nil {
		return s
	}
	for _, b := range append(slices.Clip(s.AnyOf), s.OneOf...) {
		if fits(t, c.allowed(b, depth+1)) {
			return c.branch(b, t, depth+1)
		}
	}
	if len(s.AllOf) > 0 {
		return c.branch(s.AllOf[0], t, depth+1)
	}
	return s
}

func kindOf(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := t.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// fits reports whether a value of JSON type t is accepted by a type list (nil: any).
func fits(t string, types []string) bool {
	if types == nil || slices.Contains(types, t) {
		return true
	}
	return t == "integer" && slices.Contains(types, "number")
}

func (c *coercer) value(v any, s *Schema, path string, depth int) any {
	if s == nil || depth > maxCoerceDepth {
		return v
	}
	types := c.allowed(s, depth)
	k := kindOf(v)
	if n, ok := v.(json.Number); ok && (fits("number", types) || fits("integer", types)) {
		if _, err := strconv.ParseFloat(string(n), 64); err != nil {
			c.outOfRange = append(c.outOfRange, Failure{Path: path, Reason: "the number " + truncate(string(n), 40) + " is out of range; send a number a 64-bit float can hold"})
		}
	}
	if !fits(k, types) {
		if nv, kind, ok := convert(v, k, types); ok {
			c.record(path, kind)
			if kind == CoerceWrap {
				return c.value(nv, s, path, depth+1)
			}
			v, k = nv, kindOf(nv)
		}
	}
	node := c.branch(s, k, depth)
	if node == nil {
		return v
	}
	switch t := v.(type) {
	case map[string]any:
		for _, name := range sortedKeys(t) {
			ps, declared := node.Properties[name]
			if t[name] == nil && declared && !slices.Contains(node.Required, name) && !c.acceptsNull(ps, depth) {
				delete(t, name)
				c.record(path+"/"+pointerKey(name), CoerceOmitNull)
			}
		}
		for _, name := range sortedKeys(t) {
			ps, ok := node.Properties[name]
			if !ok {
				ps = node.AdditionalProperties
			}
			if ps != nil {
				t[name] = c.value(t[name], ps, path+"/"+pointerKey(name), depth+1)
			}
		}
		for _, name := range sortedKeys(node.Properties) {
			if _, present := t[name]; present {
				continue
			}
			ps := c.resolve(node.Properties[name])
			if slices.Contains(node.Required, name) && slices.Equal(c.allowed(ps, depth), []string{"null"}) {
				t[name] = nil
				c.record(path+"/"+pointerKey(name), CoerceFillNull)
				continue
			}
			if c.fillDefaults && ps != nil && ps.Default != nil && !isNullRaw(ps.Default) {
				// Catalogue defaults are sometimes wrong ("True" beside enum
				// ["true","false"], true for an array): one that does not fit its own
				// schema is not filled in.
				if dv, err := decodeJSON(ps.Default); err == nil && c.defaultFits(ps, dv, depth) {
					t[name] = dv
					c.record(path+"/"+pointerKey(name), CoerceDefault)
				}
			}
		}
	case []any:
		for i, e := range t {
			is := node.Items
			if i < len(node.PrefixItems) {
				is = node.PrefixItems[i]
			}
			if is != nil {
				t[i] = c.value(e, is, path+"/"+strconv.Itoa(i), depth+1)
			}
		}
	}
	return v
}

// defaultFits reports whether a default value has a type s allows and, for an enum, is one
// of its values.
func (c *coercer) defaultFits(s *Schema, v any, depth int) bool {
	if !fits(kindOf(v), c.allowed(s, depth)) {
		return false
	}
	if s.Enum == nil {
		return true
	}
	enc := string(appendValue(nil, v))
	for _, e := range s.Enum {
		if string(e) == enc {
			return true
		}
	}
	return false
}

// acceptsNull reports whether s may accept null.
func (c *coercer) acceptsNull(s *Schema, depth int) bool {
	if !fits("null", c.allowed(s, depth)) {
		return false
	}
	r := c.resolve(s)
	return r == nil || r.Enum == nil || slices.ContainsFunc(r.Enum, isNullRaw)
}

// bigInteger reports whether s is a JSON integer (no sign but '-', no leading zero).
func bigInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// convert tries to turn v (of JSON type k) into one of the wanted types.
func convert(v any, k string, types []string) (any, CoercionKind, bool) {
	want := func(t string) bool { return slices.Contains(types, t) }
	switch k {
	case "string":
		s := strings.TrimSpace(v.(string))
		if (want("object") || want("array")) && s != "" && (s[0] == '{' || s[0] == '[') {
			if dv, err := decodeJSON([]byte(s)); err == nil && fits(kindOf(dv), types) {
				return dv, CoerceJSON, true
			}
		}
		if want("integer") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return json.Number(strconv.FormatInt(n, 10)), CoerceInteger, true
			}
			if bigInteger(s) {
				return json.Number(s), CoerceInteger, true // beyond int64, kept exact
			}
			if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return json.Number(strconv.FormatInt(int64(f), 10)), CoerceInteger, true
			}
		}
		if want("number") {
			if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), CoerceNumber, true
			}
		}
		if want("boolean") {
			switch strings.ToLower(s) {
			case "true":
				return true, CoerceBoolean, true
			case "false":
				return false, CoerceBoolean, true
			}
		}
		if want("null") && (s == "null" || s == "None") {
			return nil, CoerceNull, true
		}
	case "number":
		if want("integer") {
			if f, err := v.(json.Number).Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return json.Number(strconv.FormatInt(int64(f), 10)), CoerceInteger, true
			}
		}
		if want("string") {
			return v.(json.Number).String(), CoerceString, true
		}
	case "integer":
		if want("string") {
			return v.(json.Number).String(), CoerceString, true
		}
	case "boolean":
		if want("string") {
			return strconv.FormatBool(v.(bool)), CoerceString, true
		}
	}
	if want("array") && k != "array" && k != "null" {
		return []any{v}, CoerceWrap, true
	}
	return nil, "", false
}
