package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A program is a parsed schema compiled for validation: one vnode per schema node, references
// linked, keyword values decoded and checked, patterns compiled. Building one is also how the
// package decides whether a schema is acceptable at all, so [Convert] and [Compile] refuse
// exactly the same schemas.

// JSON type bits of a vnode's type set.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
)

func typeBit(t string) uint8 {
	switch t {
	case "null":
		return tNull
	case "boolean":
		return tBoolean
	case "integer":
		return tInteger
	case "number":
		return tNumber
	case "string":
		return tString
	case "array":
		return tArray
	case "object":
		return tObject
	}
	return 0
}

// vnode is one compiled schema node. Absent integer limits are -1.
type vnode struct {
	boolean int8 // 1: the schema true, -1: false, 0: neither
	ref     *vnode
	refName string
	types   uint8 // 0: any type
	typeMsg string

	enum     []any
	enumMsg  string
	hasConst bool
	konst    any
	constMsg string

	minimum, maximum, exclMin, exclMax, multipleOf *bound

	minLength, maxLength int
	pattern              *regexp.Regexp

	props       map[string]*vnode
	required    []string
	addl        *vnode
	patProps    []patternProp
	propNames   *vnode
	minProps    int
	maxProps    int
	depRequired []dependency
	depSchemas  []depSchema
	unevalProps *vnode

	prefix      []*vnode
	items       *vnode
	contains    *vnode
	minContains int
	maxContains int
	minItems    int
	maxItems    int
	unique      bool
	unevalItems *vnode

	allOf, anyOf, oneOf []*vnode
	not                 *vnode
	ifS, thenS, elseS   *vnode

	// memo marks the target of a $ref: a shared node, whose results are memoised per
	// value so that no value is checked against it twice.
	memo bool
}

type patternProp struct {
	re *regexp.Regexp
	n  *vnode
}

type dependency struct {
	name  string
	needs []string
}

type depSchema struct {
	name string
	n    *vnode
}

// bound is a number from a schema: exact when it has a reasonable exponent, a float always.
type bound struct {
	rat *big.Rat // nil when the exponent is out of range
	f   float64
	raw string
}

// program is a compiled schema.
type program struct {
	root *vnode
	// annotations is true when some node uses unevaluatedProperties or unevaluatedItems,
	// whose evaluation needs to know which properties and items other keywords looked at.
	annotations bool
}

// builder compiles a tree into vnodes.
type builder struct {
	root  *Schema
	lim   Limits
	nodes map[*Schema]*vnode
	prog  *program
	// inPlace lists the edges that apply a schema to the same value (references,
	// composition, conditionals), to find cycles that never consume part of the value.
	inPlace map[*vnode][]*vnode
}

// compileProgram checks and compiles a parsed schema. Errors wrap ErrInvalidSchema,
// ErrRefRefused or ErrLimit.
func compileProgram(root *Schema, lim Limits) (*program, error) {
	b := &builder{root: root, lim: lim.withDefaults(), nodes: make(map[*Schema]*vnode), prog: &program{}, inPlace: make(map[*vnode][]*vnode)}
	n, err := b.node(root, "")
	if err != nil {
		return nil, err
	}
	b.prog.root = n
	if err := b.checkCycles(); err != nil {
		return nil, err
	}
	return b.prog, nil
}

func (b *builder) fail(path string, err error, format string, args ...any) error {
	return &SchemaError{Path: path, Reason: fmt.Sprintf(format, args...), Err: err}
}

// node compiles s, once per schema node: shared nodes (reference targets) compile once.
func (b *builder) node(s *Schema, path string) (*vnode, error) {
	if n, ok := b.nodes[s]; ok {
		return n, nil
	}
	n := &vnode{minLength: -1, maxLength: -1, minProps: -1, maxProps: -1, minContains: -1, maxContains: -1, minItems: -1, maxItems: -1}
	b.nodes[s] = n
	if s.Bool != nil {
		n.boolean = -1
		if *s.Bool {
			n.boolean = 1
		}
		return n, nil
	}
	var err error
	sub := func(c *Schema, p string) *vnode {
		if err != nil || c == nil {
			return nil
		}
		var v *vnode
		v, err = b.node(c, p)
		return v
	}
	subs := func(list []*Schema, p string) []*vnode {
		if len(list) == 0 {
			return nil
		}
		out := make([]*vnode, 0, len(list))
		for i, c := range list {
			out = append(out, sub(c, p+"/"+strconv.Itoa(i)))
		}
		return out
	}
	if s.Ref != "" {
		target, rerr := resolveRef(b.root, s.Ref)
		if rerr != nil {
			return nil, b.fail(path+"/$ref", ErrRefRefused, "%s", rerr.Error())
		}
		n.ref = sub(target, s.Ref)
		n.refName = s.Ref
		if n.ref != nil {
			n.ref.memo = true
			b.inPlace[n] = append(b.inPlace[n], n.ref)
		}
	}
	for _, t := range s.Type {
		n.types |= typeBit(t)
	}
	if n.types != 0 {
		n.typeMsg = strings.Join(s.Type, " or ")
	}
	if s.Enum != nil {
		n.enum = make([]any, 0, len(s.Enum))
		for _, e := range s.Enum {
			v, derr := decodeJSON(e)
			if derr != nil {
				return nil, b.fail(path+"/enum", ErrInvalidSchema, "enum value is not valid JSON")
			}
			n.enum = append(n.enum, v)
		}
		n.enumMsg = enumMessage(s.Enum)
	}
	if s.Const != nil {
		v, derr := decodeJSON(s.Const)
		if derr != nil {
			return nil, b.fail(path+"/const", ErrInvalidSchema, "const is not valid JSON")
		}
		n.hasConst, n.konst = true, v
		n.constMsg = "value must be " + truncate(string(s.Const), 120)
	}
	if s.Pattern != "" {
		re, rerr := regexp.Compile(s.Pattern)
		if rerr != nil {
			return nil, b.fail(path+"/pattern", ErrInvalidSchema, "pattern %q does not compile: %v", truncate(s.Pattern, 80), rerr)
		}
		n.pattern = re
	}
	if s.PrefixItems != nil && len(s.PrefixItems) == 0 {
		return nil, b.fail(path+"/prefixItems", ErrInvalidSchema, "prefixItems is empty")
	}
	if s.Properties != nil {
		n.props = make(map[string]*vnode, len(s.Properties))
		for _, k := range sortedKeys(s.Properties) {
			n.props[k] = sub(s.Properties[k], path+"/properties/"+escapePointer(k))
		}
	}
	n.required = s.Required
	n.addl = sub(s.AdditionalProperties, path+"/additionalProperties")
	n.items = sub(s.Items, path+"/items")
	n.prefix = subs(s.PrefixItems, path+"/prefixItems")
	n.allOf = subs(s.AllOf, path+"/allOf")
	n.anyOf = subs(s.AnyOf, path+"/anyOf")
	n.oneOf = subs(s.OneOf, path+"/oneOf")
	n.not = sub(s.Not, path+"/not")
	for _, k := range sortedKeys(s.Defs) {
		sub(s.Defs[k], path+"/$defs/"+escapePointer(k))
	}
	if err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(s.Extra) {
		if err := b.extra(n, k, s.Extra[k], path+"/"+escapePointer(k)); err != nil {
			return nil, err
		}
	}
	for _, list := range [][]*vnode{n.allOf, n.anyOf, n.oneOf} {
		b.inPlace[n] = append(b.inPlace[n], list...)
	}
	for _, c := range []*vnode{n.not, n.ifS, n.thenS, n.elseS} {
		if c != nil {
			b.inPlace[n] = append(b.inPlace[n], c)
		}
	}
	for _, d := range n.depSchemas {
		b.inPlace[n] = append(b.inPlace[n], d.n)
	}
	return n, nil
}

// extra compiles one keyword kept verbatim, refusing values the JSON Schema 2020-12
// meta-schema refuses.
func (b *builder) extra(n *vnode, k string, raw json.RawMessage, path string) error {
	v, err := decodeJSON(raw)
	if err != nil {
		return b.fail(path, ErrInvalidSchema, "value is not valid JSON")
	}
	want := func(ok bool, what string) error {
		if ok {
			return nil
		}
		return b.fail(path, ErrInvalidSchema, "%s is %s, want %s", k, jsonKind(v), what)
	}
	switch k {
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
		i, ok := nonNegativeInt(v)
		if err := want(ok, "a non-negative integer"); err != nil {
			return err
		}
		switch k {
		case "minLength":
			n.minLength = i
		case "maxLength":
			n.maxLength = i
		case "minItems":
			n.minItems = i
		case "maxItems":
			n.maxItems = i
		case "minProperties":
			n.minProps = i
		case "maxProperties":
			n.maxProps = i
		case "minContains":
			n.minContains = i
		case "maxContains":
			n.maxContains = i
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		num, ok := v.(json.Number)
		if err := want(ok, "a number"); err != nil {
			return err
		}
		bd := newBound(num)
		switch k {
		case "minimum":
			n.minimum = bd
		case "maximum":
			n.maximum = bd
		case "exclusiveMinimum":
			n.exclMin = bd
		case "exclusiveMaximum":
			n.exclMax = bd
		case "multipleOf":
			if bd.f <= 0 || (bd.rat != nil && bd.rat.Sign() <= 0) {
				return b.fail(path, ErrInvalidSchema, "multipleOf is %s, want a number above 0", truncate(string(num), 40))
			}
			n.multipleOf = bd
		}
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		bv, ok := v.(bool)
		if err := want(ok, "a boolean"); err != nil {
			return err
		}
		if k == "uniqueItems" {
			n.unique = bv
		}
	case "contentEncoding", "contentMediaType":
		_, ok := v.(string)
		return want(ok, "a string")
	case "dependentRequired":
		m, ok := v.(map[string]any)
		if err := want(ok, "an object"); err != nil {
			return err
		}
		for _, name := range sortedKeys(m) {
			needs, ok := stringSet(m[name])
			if !ok {
				return b.fail(path+"/"+escapePointer(name), ErrInvalidSchema, "want an array of distinct strings")
			}
			n.depRequired = append(n.depRequired, dependency{name: name, needs: needs})
		}
	case "dependencies":
		// Not a 2020-12 keyword, but still validated by the common implementations: an
		// array means dependentRequired, a schema dependentSchemas.
		m, ok := v.(map[string]any)
		if err := want(ok, "an object"); err != nil {
			return err
		}
		for _, name := range sortedKeys(m) {
			if needs, ok := stringSet(m[name]); ok {
				n.depRequired = append(n.depRequired, dependency{name: name, needs: needs})
				continue
			}
			c, err := b.extraSchema(m[name], path+"/"+escapePointer(name))
			if err != nil {
				return err
			}
			n.depSchemas = append(n.depSchemas, depSchema{name: name, n: c})
		}
	case "patternProperties", "dependentSchemas":
		m, ok := v.(map[string]any)
		if err := want(ok, "an object of schemas"); err != nil {
			return err
		}
		for _, name := range sortedKeys(m) {
			c, err := b.extraSchema(m[name], path+"/"+escapePointer(name))
			if err != nil {
				return err
			}
			if k == "dependentSchemas" {
				n.depSchemas = append(n.depSchemas, depSchema{name: name, n: c})
				continue
			}
			re, rerr := regexp.Compile(name)
			if rerr != nil {
				return b.fail(path, ErrInvalidSchema, "pattern %q does not compile: %v", truncate(name, 80), rerr)
			}
			n.patProps = append(n.patProps, patternProp{re: re, n: c})
		}
	case "propertyNames", "contains", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems", "contentSchema":
		c, err := b.extraSchema(v, path)
		if err != nil {
			return err
		}
		switch k {
		case "propertyNames":
			n.propNames = c
		case "contains":
			n.contains = c
		case "if":
			n.ifS = c
		case "then":
			n.thenS = c
		case "else":
			n.elseS = c
		case "unevaluatedProperties":
			n.unevalProps = c
			b.prog.annotations = true
		case "unevaluatedItems":
			n.unevalItems = c
			b.prog.annotations = true
		}
	}
	return nil
}

// extraSchema parses and compiles a schema held in a keyword kept verbatim.
func (b *builder) extraSchema(v any, path string) (*vnode, error) {
	p := parser{lim: b.lim}
	s, err := p.sub(v, path, 0)
	if err != nil {
		return nil, err
	}
	if err := checkRefTargets(b.root, s, path); err != nil {
		return nil, err
	}
	return b.node(s, path)
}

// checkCycles refuses a schema whose in-place edges (references, composition,
// conditionals) loop without ever moving into part of the value: checking any value would
// never end. The parser catches the common loops; those through keywords kept verbatim
// (if, dependentSchemas) are caught here.
func (b *builder) checkCycles() error {
	state := make(map[*vnode]uint8, len(b.nodes))
	var visit func(n *vnode) bool
	visit = func(n *vnode) bool {
		switch state[n] {
		case 1:
			return false
		case 2:
			return true
		}
		state[n] = 1
		for _, c := range b.inPlace[n] {
			if !visit(c) {
				return false
			}
		}
		state[n] = 2
		return true
	}
	for _, n := range b.nodes {
		if !visit(n) {
			return &SchemaError{Reason: "schemas apply each other to the same value in a cycle that never reaches a value", Err: ErrInvalidSchema}
		}
	}
	return nil
}

func nonNegativeInt(v any) (int, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(num), 10, 64); err == nil {
		if i < 0 {
			return 0, false
		}
		return int(min(i, math.MaxInt32)), true
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil && !math.IsInf(f, 1) {
		return 0, false
	}
	if f < 0 || f != math.Trunc(f) {
		return 0, false
	}
	return int(min(f, math.MaxInt32)), true
}

// stringSet returns v as a list of distinct strings.
func stringSet(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok || slices.Contains(out, s) {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func newBound(n json.Number) *bound {
	f, _ := strconv.ParseFloat(string(n), 64)
	return &bound{rat: ratOf(n), f: f, raw: string(n)}
}

// maxExactExponent bounds the exponents compared exactly: 1e1000000000 as a big.Rat would
// take gigabytes.
const maxExactExponent = 400

// ratOf returns n as an exact rational, or nil when its exponent is out of range.
func ratOf(n json.Number) *big.Rat {
	s := string(n)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > maxExactExponent || e < -maxExactExponent {
			return nil
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}

// enumMessage is the failure reason for an enum.
func enumMessage(values []json.RawMessage) string {
	if len(values) == 1 {
		return "value must be " + truncate(string(values[0]), 120)
	}
	var b strings.Builder
	b.WriteString("value must be one of ")
	for i, v := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		if b.Len() > 250 {
			fmt.Fprintf(&b, "… (%d values)", len(values))
			break
		}
		b.WriteString(string(v))
	}
	return b.String()
}
