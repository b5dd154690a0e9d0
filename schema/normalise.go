package schema

import (
	"slices"
	"strconv"
	"strings"
)

// Rule names one reason the normaliser ([Relax]) takes a property out of a "required" list.
//
// Composio's parameter schemas come from Pydantic models, where a field is required exactly
// when it has no default, and the server fills in every field left out. Catalogue copies of
// those schemas lose information on the way: null defaults are dropped, fields whose default
// is built by a factory (an empty list or dict) carry no "default" at all, and some sources
// infer "required" from the missing default. The rules below read that lost information back
// from what the schema still says.
type Rule string

// The normaliser's rules, in the order they are tried for each required property.
const (
	// RuleDefault: the property has a default. Pydantic never requires a field that has one.
	RuleDefault Rule = "default"
	// RuleNullable: the property accepts null. A missing value reaches the server as the
	// null it would have had (Pydantic's Optional[X] = None).
	RuleNullable Rule = "nullable"
	// RuleDescribedOptional: the description says the property may be left out ("Optional.",
	// "if omitted", "defaults to", "required only if …", "leave empty", …).
	RuleDescribedOptional Rule = "described-optional"
	// RuleDescribedNull: the description says null is a valid value ("set to null", "or
	// null", "null for no …").
	RuleDescribedNull Rule = "described-null"
	// RuleReadOnly: the server sets the value itself (readOnly: true, or a description saying
	// "read-only", "auto-generated", "set by the server", …).
	RuleReadOnly Rule = "read-only"
	// RuleEmptyContainer: an object that accepts {} or an array that accepts [], with no
	// default: a field whose default is built by a factory (list, dict), which the server fills
	// with an empty value when it is left out.
	RuleEmptyContainer Rule = "empty-container"
	// RuleInferredRequired: an object that requires more than [InferredRequiredMin]
	// properties, every one of its properties without a default among them. No hand-written
	// action requires that many; the list was inferred from missing defaults, so it says
	// nothing about what the server needs.
	RuleInferredRequired Rule = "inferred-required"
)

// Rules lists every [Rule] in the order the normaliser tries them.
func Rules() []Rule {
	return []Rule{RuleDefault, RuleNullable, RuleDescribedOptional, RuleDescribedNull, RuleReadOnly, RuleEmptyContainer, RuleInferredRequired}
}

// InferredRequiredMin is the number of required properties above which an object's required
// list is taken as inferred ([RuleInferredRequired]). Hand-written Composio schemas require
// at most six.
const InferredRequiredMin = 10

// Relaxation records one property the normaliser made optional. It is a plain value.
type Relaxation struct {
	// Path is a JSON Pointer to the object schema that listed the property as required
	// ("" is the root, "/properties/data" a nested object).
	Path string
	// Property is the property's name.
	Property string
	// Rule is the first rule that applied.
	Rule Rule
}

// Relax returns the normalised copy of a parsed parameter schema: every object schema in it
// (nested ones, $defs and composition branches included) loses from its "required" list the
// properties a [Rule] says the server does not need, and the relaxations are listed in
// schema order. A property whose description insists it is required ("Required.", "is
// required", "must be provided", "at least one") is never relaxed. Nodes that do not change
// are shared with root, which is not modified; a root with nothing to relax is returned as
// is.
//
// The result is what [Convert] renders and what a [Lenient] [Validator] checks; a [Strict]
// one checks root as declared.
func Relax(root *Schema) (*Schema, []Relaxation) {
	r := relaxer{root: root}
	out := r.node(root, "")
	return out, r.done
}

type relaxer struct {
	root *Schema
	done []Relaxation
	seen int
}

// maxRelaxNodes bounds the work on a hostile tree; ParseWith's node limit is far below it.
const maxRelaxNodes = 1 << 20

func (r *relaxer) node(s *Schema, path string) *Schema {
	r.seen++
	if s == nil || s.Bool != nil || r.seen > maxRelaxNodes {
		return s
	}
	out := s.mapChildren(path, r.node)
	if len(s.Required) == 0 || len(s.Properties) == 0 {
		return out
	}
	keep := r.required(out, path)
	if len(keep) == len(s.Required) {
		return out
	}
	if out == s {
		c := *s
		out = &c
	}
	out.Required = keep
	return out
}

// required returns the required names of s that stay required, recording the others.
func (r *relaxer) required(s *Schema, path string) []string {
	keep := make([]string, 0, len(s.Required))
	var insisted []string
	for _, name := range s.Required {
		p, declared := s.Properties[name]
		if !declared {
			keep = append(keep, name) // not ours to judge: it fails or passes as written
			continue
		}
		desc := words(strings.ToLower(p.Description))
		if insistsRequired(desc) {
			keep = append(keep, name)
			insisted = append(insisted, name)
			continue
		}
		if rule, ok := r.rule(p, desc); ok {
			r.done = append(r.done, Relaxation{Path: path, Property: name, Rule: rule})
			continue
		}
		keep = append(keep, name)
	}
	if len(keep) > InferredRequiredMin && inferredRequired(s) {
		rest := keep[:0:0]
		for _, name := range keep {
			if slices.Contains(insisted, name) {
				rest = append(rest, name)
				continue
			}
			if _, declared := s.Properties[name]; !declared {
				rest = append(rest, name)
				continue
			}
			r.done = append(r.done, Relaxation{Path: path, Property: name, Rule: RuleInferredRequired})
		}
		keep = rest
	}
	return keep
}

// rule returns the first rule that makes property p optional.
func (r *relaxer) rule(p *Schema, desc []word) (Rule, bool) {
	if p.Default != nil {
		return RuleDefault, true
	}
	t := r.resolve(p)
	if acceptsNullSchema(p) || (t != p && acceptsNullSchema(t)) {
		return RuleNullable, true
	}
	switch {
	case describedOptional(desc):
		return RuleDescribedOptional, true
	case describedNull(desc):
		return RuleDescribedNull, true
	case describedReadOnly(desc) || string(p.Extra["readOnly"]) == "true" || (t != nil && string(t.Extra["readOnly"]) == "true"):
		return RuleReadOnly, true
	case t != nil && acceptsEmpty(t):
		return RuleEmptyContainer, true
	}
	return "", false
}

// resolve follows a property's reference chain to its target (nil when it dangles).
func (r *relaxer) resolve(s *Schema) *Schema {
	for i := 0; s != nil && s.Ref != "" && isBareRef(s) && i < 32; i++ {
		t, err := resolveRef(r.root, s.Ref)
		if err != nil {
			return nil
		}
		s = t
	}
	return s
}

// acceptsNullSchema reports whether s plainly accepts null: by its type, an enum or const of
// null, or an anyOf/oneOf branch that is.
func acceptsNullSchema(s *Schema) bool {
	if s == nil || s.Bool != nil {
		return false
	}
	if s.Const != nil {
		return isNullRaw(s.Const)
	}
	if s.Enum != nil {
		return slices.ContainsFunc(s.Enum, isNullRaw)
	}
	if len(s.Type) > 0 {
		return slices.Contains(s.Type, "null")
	}
	for _, b := range append(slices.Clip(s.AnyOf), s.OneOf...) {
		if b.Bool == nil && b.Ref == "" && (slices.Equal(b.Type, []string{"null"}) || (b.Const != nil && isNullRaw(b.Const))) {
			return true
		}
	}
	return false
}

// acceptsEmpty reports whether s is a plain object that {} satisfies or a plain array that []
// satisfies.
func acceptsEmpty(s *Schema) bool {
	if s.Bool != nil || s.Ref != "" || len(s.AnyOf)+len(s.OneOf)+len(s.AllOf) > 0 || s.Not != nil || s.Enum != nil || s.Const != nil {
		return false
	}
	switch {
	case slices.Equal(s.Type, []string{"object"}):
		return len(s.Required) == 0 && !positive(s.Extra["minProperties"]) &&
			s.Extra["dependentRequired"] == nil && s.Extra["if"] == nil
	case slices.Equal(s.Type, []string{"array"}):
		return !positive(s.Extra["minItems"]) && !positive(s.Extra["minContains"]) && s.Extra["contains"] == nil
	}
	return false
}

// positive reports whether a keyword's value is a number above zero.
func positive(r []byte) bool {
	f, err := strconv.ParseFloat(string(r), 64)
	return err == nil && f > 0
}

// inferredRequired reports whether s requires every one of its properties that has no
// default: the mark of a required list inferred from defaults.
func inferredRequired(s *Schema) bool {
	for name, p := range s.Properties {
		if p.Default == nil && !slices.Contains(s.Required, name) {
			return false
		}
	}
	return true
}

// mapChildren returns s with fn applied to each direct child schema, or s itself when fn
// returns every child unchanged. Children are visited in the order of [Schema.each].
func (s *Schema) mapChildren(path string, fn func(c *Schema, p string) *Schema) *Schema {
	var out *Schema
	edit := func() *Schema {
		if out == nil {
			c := *s
			out = &c
		}
		return out
	}
	mapOf := func(m map[string]*Schema, prefix string, set func(o *Schema, m map[string]*Schema)) {
		var nm map[string]*Schema
		for _, k := range sortedKeys(m) {
			c := fn(m[k], path+prefix+escapePointer(k))
			if c != m[k] {
				if nm == nil {
					nm = make(map[string]*Schema, len(m))
					for kk, vv := range m {
						nm[kk] = vv
					}
				}
				nm[k] = c
			}
		}
		if nm != nil {
			set(edit(), nm)
		}
	}
	listOf := func(l []*Schema, prefix string, set func(o *Schema, l []*Schema)) {
		var nl []*Schema
		for i, c := range l {
			n := fn(c, path+prefix+strconv.Itoa(i))
			if n != c {
				if nl == nil {
					nl = slices.Clone(l)
				}
				nl[i] = n
			}
		}
		if nl != nil {
			set(edit(), nl)
		}
	}
	one := func(c *Schema, suffix string, set func(o *Schema, c *Schema)) {
		if c == nil {
			return
		}
		if n := fn(c, path+suffix); n != c {
			set(edit(), n)
		}
	}
	mapOf(s.Properties, "/properties/", func(o *Schema, m map[string]*Schema) { o.Properties = m })
	one(s.AdditionalProperties, "/additionalProperties", func(o *Schema, c *Schema) { o.AdditionalProperties = c })
	one(s.Items, "/items", func(o *Schema, c *Schema) { o.Items = c })
	listOf(s.PrefixItems, "/prefixItems/", func(o *Schema, l []*Schema) { o.PrefixItems = l })
	listOf(s.AnyOf, "/anyOf/", func(o *Schema, l []*Schema) { o.AnyOf = l })
	listOf(s.OneOf, "/oneOf/", func(o *Schema, l []*Schema) { o.OneOf = l })
	listOf(s.AllOf, "/allOf/", func(o *Schema, l []*Schema) { o.AllOf = l })
	one(s.Not, "/not", func(o *Schema, c *Schema) { o.Not = c })
	mapOf(s.Defs, "/$defs/", func(o *Schema, m map[string]*Schema) { o.Defs = m })
	if out == nil {
		return s
	}
	return out
}
