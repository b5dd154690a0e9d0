package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Running a program. A first pass only answers "valid or not", stopping at the first
// failure, trying anyOf branches that cannot match the value's type last, and memoising the
// result of every shared node (a $ref target) per value, so no value is checked against the
// same shared schema twice: the cost is linear in the size of the arguments whatever the
// schema's recursion. Only when that pass fails does a second pass walk the arguments again
// to list every failing path, within a step budget.

// Step budgets. The memo already makes the first pass linear; the budgets are a last line
// of defence against a schema built to make even that expensive.
const (
	maxCheckSteps   = 10_000_000
	maxExplainSteps = 200_000
	// maxFoldDepth bounds how deeply failed anyOf/oneOf branches are explained inside each
	// other; deeper ones are summarised.
	maxFoldDepth = 3
)

type checker struct {
	lenient bool
	collect bool // record every failure, not only whether there is one
	fails   []Failure
	path    []string
	memo    map[memoKey]bool
	visit   int
	steps   int
	limit   int
	stopped bool
	folds   int
}

// memoKey names a (shared node, value) pair. A container is named by its address; a scalar
// by the visit that reached it (a visit is one descent into a property or item), marked by
// the top bit.
type memoKey struct {
	n  *vnode
	id uint64
}

// Tags in the top bits of a memoKey id, which addresses never use.
const (
	scalarVisit = 1 << 63
	arrayAddr   = 1 << 62
)

// annot records what in-place keywords evaluated, for unevaluatedProperties/Items.
type annot struct {
	props     map[string]struct{}
	items     int // leading items evaluated by prefixItems
	allItems  bool
	contained map[int]struct{}
}

func (a *annot) prop(k string) {
	if a.props == nil {
		a.props = make(map[string]struct{})
	}
	a.props[k] = struct{}{}
}

func (a *annot) merge(b *annot) {
	for k := range b.props {
		a.prop(k)
	}
	a.items = max(a.items, b.items)
	a.allItems = a.allItems || b.allItems
	for i := range b.contained {
		if a.contained == nil {
			a.contained = make(map[int]struct{})
		}
		a.contained[i] = struct{}{}
	}
}

func (c *checker) key(n *vnode, v any) memoKey {
	switch t := v.(type) {
	case map[string]any:
		return memoKey{n: n, id: uint64(reflect.ValueOf(t).Pointer())}
	case []any:
		// Decoded arrays never share storage, so the address names one; empty ones may,
		// and are equal anyway.
		return memoKey{n: n, id: arrayAddr | uint64(reflect.ValueOf(t).Pointer())}
	}
	return memoKey{n: n, id: scalarVisit | uint64(c.visit)}
}

// check reports whether v satisfies n, recording failures in collect mode.
func (c *checker) check(n *vnode, v any, ann *annot) bool {
	c.steps++
	if c.steps > c.limit {
		c.stopped = true
		return false
	}
	if !n.memo || ann != nil {
		return c.eval(n, v, ann)
	}
	k := c.key(n, v)
	if r, ok := c.memo[k]; ok && (r || !c.collect) {
		return r
	}
	r := c.eval(n, v, nil)
	if !c.stopped {
		if c.memo == nil {
			c.memo = make(map[memoKey]bool)
		}
		c.memo[k] = r
	}
	return r
}

// test reports whether v satisfies n without recording anything.
func (c *checker) test(n *vnode, v any, ann *annot) bool {
	if !c.collect {
		return c.check(n, v, ann)
	}
	c.collect = false
	r := c.check(n, v, ann)
	c.collect = true
	return r
}

// failed records a failure at the current path in collect mode. It returns true when the
// caller must stop (first-failure mode).
func (c *checker) failed(format string, args ...any) bool {
	if !c.collect {
		return true
	}
	c.fails = append(c.fails, Failure{Path: c.pathString(), Reason: fmt.Sprintf(format, args...)})
	return false
}

// fail is failed for a check that goes on after a failure in collect mode: it also clears
// *ok.
func (c *checker) fail(ok *bool, format string, args ...any) bool {
	*ok = false
	return c.failed(format, args...)
}

// sizes checks a count (characters, items, properties) against a node's least and most
// (-1: none). It returns true when checking must stop.
func (c *checker) sizes(ok *bool, count, least, most int, unit string) bool {
	if least >= 0 && count < least && c.fail(ok, "at least %d %s required, but found %d", least, unit, count) {
		return true
	}
	return most >= 0 && count > most && c.fail(ok, "at most %d %s allowed, but found %d", most, unit, count)
}

func (c *checker) pathString() string {
	if len(c.path) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range c.path {
		b.WriteByte('/')
		b.WriteString(pointerKey(p))
	}
	return b.String()
}

// pointerKey is a key as a JSON Pointer segment of a Failure's or a Coercion's path, quoted
// short (see Excerpt): a path names what failed, it is not for looking values up.
func pointerKey(k string) string { return escapePointer(Excerpt(k)) }

// maxUnknownListed bounds the undeclared properties one failure names.
const maxUnknownListed = 5

// unknownText is the reason of a failure for undeclared properties: each name quoted short
// (see Excerpt), at most maxUnknownListed of them.
func unknownText(names []string) string {
	var b strings.Builder
	b.WriteString("unknown ")
	for i, k := range names {
		if i == maxUnknownListed {
			b.WriteString(" and " + strconv.Itoa(len(names)-i) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + Excerpt(k) + "'")
	}
	b.WriteString("; remove it or use a declared property")
	return b.String()
}

// child checks a property value (idx < 0) or an item value.
func (c *checker) child(n *vnode, v any, key string, idx int) bool {
	c.visit++
	if !c.collect {
		return c.check(n, v, nil)
	}
	if idx >= 0 {
		key = strconv.Itoa(idx)
	}
	c.path = append(c.path, key)
	r := c.check(n, v, nil)
	c.path = c.path[:len(c.path)-1]
	return r
}

func (c *checker) eval(n *vnode, v any, ann *annot) bool {
	switch n.boolean {
	case 1:
		return true
	case -1:
		c.failed("not allowed here")
		return false
	}
	own := ann
	if n.unevalProps != nil || n.unevalItems != nil {
		own = &annot{}
	}
	ok := true
	if n.ref != nil && !c.check(n.ref, v, own) {
		ok = false
		if !c.collect {
			return false
		}
	}
	if n.types != 0 && !typeOK(n.types, v) {
		c.failed("wrong type: expected %s, but got %s", n.typeMsg, typeName(v))
		return false
	}
	if n.hasConst && !equalJSON(v, n.konst) {
		ok = false
		if c.failed("%s", n.constMsg) {
			return false
		}
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { return equalJSON(v, e) }) {
		ok = false
		if c.failed("%s", n.enumMsg) {
			return false
		}
	}
	var r bool
	switch t := v.(type) {
	case json.Number:
		r = c.number(n, t)
	case string:
		r = c.string(n, t)
	case []any:
		r = c.array(n, t, own)
	case map[string]any:
		r = c.object(n, t, own)
	default:
		r = true
	}
	if !r {
		ok = false
		if !c.collect {
			return false
		}
	}
	if !c.applicators(n, v, own) {
		ok = false
		if !c.collect {
			return false
		}
	}
	if own != ann {
		if !c.unevaluated(n, v, own) {
			ok = false
		}
		if ann != nil && ok {
			ann.merge(own)
		}
	}
	return ok
}

func (c *checker) number(n *vnode, v json.Number) bool {
	ok := true
	if n.minimum != nil && cmpNumber(v, n.minimum) < 0 && c.fail(&ok, "must be >= %s but found %s", n.minimum.raw, v) {
		return false
	}
	if n.maximum != nil && cmpNumber(v, n.maximum) > 0 && c.fail(&ok, "must be <= %s but found %s", n.maximum.raw, v) {
		return false
	}
	if n.exclMin != nil && cmpNumber(v, n.exclMin) <= 0 && c.fail(&ok, "must be > %s but found %s", n.exclMin.raw, v) {
		return false
	}
	if n.exclMax != nil && cmpNumber(v, n.exclMax) >= 0 && c.fail(&ok, "must be < %s but found %s", n.exclMax.raw, v) {
		return false
	}
	if n.multipleOf != nil && !multipleOf(v, n.multipleOf) && c.fail(&ok, "%s is not a multiple of %s", v, n.multipleOf.raw) {
		return false
	}
	return ok
}

func (c *checker) string(n *vnode, s string) bool {
	ok := true
	if (n.minLength >= 0 || n.maxLength >= 0) && c.sizes(&ok, utf8.RuneCountInString(s), n.minLength, n.maxLength, "characters") {
		return false
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		c.fail(&ok, "does not match pattern %q", truncate(n.pattern.String(), 120))
	}
	return ok
}

func (c *checker) array(n *vnode, a []any, own *annot) bool {
	ok := true
	if c.sizes(&ok, len(a), n.minItems, n.maxItems, "items") {
		return false
	}
	if n.unique && len(a) > 1 {
		seen := make(map[string]int, len(a))
		for i, e := range a {
			k := string(appendCanonical(nil, e))
			if j, dup := seen[k]; dup {
				if c.fail(&ok, "items at index %d and %d are equal", j, i) {
					return false
				}
				break
			}
			seen[k] = i
		}
	}
	for i, e := range a {
		var s *vnode
		switch {
		case i < len(n.prefix):
			s = n.prefix[i]
		case n.items != nil:
			s = n.items
		default:
			continue
		}
		if !c.child(s, e, "", i) {
			ok = false
			if !c.collect || c.stopped {
				return false
			}
		}
	}
	if own != nil {
		own.items = max(own.items, min(len(n.prefix), len(a)))
		own.allItems = own.allItems || n.items != nil
	}
	if n.contains != nil {
		matched := 0
		for i, e := range a {
			c.visit++
			if c.test(n.contains, e, nil) {
				matched++
				if own != nil {
					if own.contained == nil {
						own.contained = make(map[int]struct{})
					}
					own.contained[i] = struct{}{}
				}
			}
		}
		least := n.minContains
		if least < 0 {
			least = 1
		}
		if matched < least && c.fail(&ok, "at least %d items must match the schema in contains, but %d do", least, matched) {
			return false
		}
		if n.maxContains >= 0 && matched > n.maxContains && c.fail(&ok, "at most %d items may match the schema in contains, but %d do", n.maxContains, matched) {
			return false
		}
	}
	return ok
}

func (c *checker) object(n *vnode, m map[string]any, own *annot) bool {
	ok := true
	if c.sizes(&ok, len(m), n.minProps, n.maxProps, "properties") {
		return false
	}
	var missing []string
	for _, r := range n.required {
		if _, has := m[r]; !has {
			if !c.collect {
				return false
			}
			missing = append(missing, "'"+r+"'")
		}
	}
	if len(missing) > 0 {
		c.fail(&ok, "missing required properties: %s; add them", strings.Join(missing, ", "))
	}
	for _, d := range n.depRequired {
		if _, has := m[d.name]; !has {
			continue
		}
		for _, need := range d.needs {
			if _, has := m[need]; !has && c.fail(&ok, "property '%s' is required when '%s' is present", need, d.name) {
				return false
			}
		}
	}
	var unknown []string
	if c.collect {
		for _, k := range sortedKeys(m) {
			if !c.property(n, k, m[k], own, &ok, &unknown) {
				return false
			}
		}
	} else {
		for k, pv := range m {
			if !c.property(n, k, pv, own, &ok, &unknown) {
				return false
			}
		}
	}
	if len(unknown) > 0 {
		c.failed("%s", unknownText(unknown))
	}
	for _, d := range n.depSchemas {
		if _, has := m[d.name]; has && !c.check(d.n, m, own) {
			ok = false
			if !c.collect {
				return false
			}
		}
	}
	return ok
}

// property checks one property of an object against n's properties, patternProperties,
// additionalProperties and propertyNames, clearing *ok on failure and collecting undeclared
// names of a closed object in *unknown. It returns false when checking must stop.
func (c *checker) property(n *vnode, k string, pv any, own *annot, ok *bool, unknown *[]string) bool {
	matched := false
	if ps, has := n.props[k]; has {
		matched = true
		if !(c.lenient && pv == nil && !slices.Contains(n.required, k)) && !c.child(ps, pv, k, -1) {
			*ok = false
			if !c.collect || c.stopped {
				return false
			}
		}
	}
	for _, pp := range n.patProps {
		if pp.re.MatchString(k) {
			matched = true
			if !c.child(pp.n, pv, k, -1) {
				*ok = false
				if !c.collect || c.stopped {
					return false
				}
			}
		}
	}
	if !matched && n.addl != nil {
		if n.addl.boolean == -1 {
			*ok = false
			if !c.collect {
				return false
			}
			*unknown = append(*unknown, k)
		} else if !c.child(n.addl, pv, k, -1) {
			*ok = false
			if !c.collect || c.stopped {
				return false
			}
		}
	}
	if own != nil && (matched || n.addl != nil) {
		own.prop(k)
	}
	if n.propNames != nil && !c.test(n.propNames, k, nil) {
		*ok = false
		if c.failed("property name '%s' is not allowed", Excerpt(k)) {
			return false
		}
	}
	return true
}

// mapKeys returns m's keys, sorted when the order shows (collect mode).
func mapKeys(m map[string]any, sorted bool) []string {
	if sorted {
		return sortedKeys(m)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// mayMatch reports whether branch b could accept v, judging by its type alone.
func mayMatch(b *vnode, v any) bool {
	if b.types != 0 {
		return typeOK(b.types, v)
	}
	if b.ref != nil && b.ref.types != 0 {
		return typeOK(b.ref.types, v)
	}
	return true
}

// applicators runs allOf, anyOf, oneOf, not and if/then/else.
func (c *checker) applicators(n *vnode, v any, own *annot) bool {
	ok := true
	for _, b := range n.allOf {
		if !c.check(b, v, own) {
			ok = false
			if !c.collect {
				return false
			}
		}
	}
	if len(n.anyOf) > 0 && !c.anyOf(n.anyOf, v, own) {
		ok = false
		if !c.collect {
			return false
		}
	}
	if len(n.oneOf) > 0 && !c.oneOf(n.oneOf, v, own) {
		ok = false
		if !c.collect {
			return false
		}
	}
	if n.not != nil && c.test(n.not, v, nil) {
		ok = false
		if c.failed("must not match the schema in not") {
			return false
		}
	}
	if n.ifS != nil {
		var cond annot
		var branch *vnode
		if c.test(n.ifS, v, annotFor(own, &cond)) {
			if own != nil {
				own.merge(&cond)
			}
			branch = n.thenS
		} else {
			branch = n.elseS
		}
		if branch != nil && !c.check(branch, v, own) {
			ok = false
		}
	}
	return ok
}

// annotFor returns a when annotations are wanted (own non-nil), else nil.
func annotFor(own, a *annot) *annot {
	if own == nil {
		return nil
	}
	return a
}

func (c *checker) anyOf(branches []*vnode, v any, own *annot) bool {
	if own != nil {
		// Annotations come from every branch that matches, so all are tried.
		matched := false
		for _, b := range branches {
			var a annot
			if c.test(b, v, &a) {
				matched = true
				own.merge(&a)
			}
		}
		if !matched {
			c.fold(branches, v, "matches none of the allowed forms")
		}
		return matched
	}
	for pass := 0; pass < 2; pass++ {
		for _, b := range branches {
			if mayMatch(b, v) == (pass == 0) && c.test(b, v, nil) {
				return true
			}
		}
	}
	c.fold(branches, v, "matches none of the allowed forms")
	return false
}

func (c *checker) oneOf(branches []*vnode, v any, own *annot) bool {
	first, count := -1, 0
	var kept annot
	for i, b := range branches {
		if !mayMatch(b, v) && own == nil {
			continue
		}
		var a annot
		if c.test(b, v, annotFor(own, &a)) {
			count++
			if count > 1 {
				c.failed("matches more than one of the allowed forms (%d and %d)", first, i)
				return false
			}
			first, kept = i, a
		}
	}
	if count == 0 {
		c.fold(branches, v, "matches none of the allowed forms")
		return false
	}
	if own != nil {
		own.merge(&kept)
	}
	return true
}

// fold records one failure for a failed anyOf/oneOf, listing why each branch failed.
func (c *checker) fold(branches []*vnode, v any, what string) {
	if !c.collect {
		return
	}
	base := c.pathString()
	if c.folds >= maxFoldDepth {
		c.fails = append(c.fails, Failure{Path: base, Reason: what})
		return
	}
	c.folds++
	saved := c.fails
	var reasons []string
	for _, b := range branches {
		c.fails = nil
		c.check(b, v, nil)
		for _, f := range c.fails {
			r := f.Reason
			if f.Path != base {
				r = strings.TrimPrefix(f.Path, base) + ": " + r
			}
			if !slices.Contains(reasons, r) {
				reasons = append(reasons, r)
			}
		}
	}
	c.folds--
	c.fails = append(saved, Failure{Path: base, Reason: what + " (" + truncate(strings.Join(reasons, "; or "), 300) + ")"})
}

// unevaluated applies unevaluatedProperties and unevaluatedItems to what the node's other
// keywords left unevaluated.
func (c *checker) unevaluated(n *vnode, v any, own *annot) bool {
	ok := true
	switch t := v.(type) {
	case map[string]any:
		if n.unevalProps == nil {
			return true
		}
		var unknown []string
		for _, k := range mapKeys(t, c.collect) {
			if _, done := own.props[k]; done {
				continue
			}
			own.prop(k)
			if n.unevalProps.boolean == -1 {
				if !c.collect {
					return false
				}
				unknown = append(unknown, k)
				continue
			}
			if !c.child(n.unevalProps, t[k], k, -1) {
				ok = false
				if !c.collect {
					return false
				}
			}
		}
		if len(unknown) > 0 {
			ok = false
			c.failed("%s", unknownText(unknown))
		}
	case []any:
		if n.unevalItems == nil || own.allItems {
			return true
		}
		for i := own.items; i < len(t); i++ {
			if _, done := own.contained[i]; done {
				continue
			}
			if !c.child(n.unevalItems, t[i], "", i) {
				ok = false
				if !c.collect {
					return false
				}
			}
		}
		own.allItems = true
	}
	return ok
}

// typeOK reports whether v has one of the types in the set.
func typeOK(types uint8, v any) bool {
	switch t := v.(type) {
	case nil:
		return types&tNull != 0
	case bool:
		return types&tBoolean != 0
	case json.Number:
		return types&tNumber != 0 || (types&tInteger != 0 && isInteger(t))
	case float64, int:
		return types&(tNumber|tInteger) != 0
	case string:
		return types&tString != 0
	case []any:
		return types&tArray != 0
	case map[string]any:
		return types&tObject != 0
	}
	return false
}

// isInteger reports whether n is a whole number a JSON consumer can hold: written without a
// fraction or exponent (any size), or a finite float64 with no fractional part. 1e400 is
// not one: every common decoder turns it into infinity.
func isInteger(n json.Number) bool {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		return true
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f == math.Trunc(f)
}

// typeName names the JSON type of a decoded value as JSON Schema messages do: whole numbers
// are numbers too.
func typeName(v any) string {
	switch v.(type) {
	case float64, int:
		return "number"
	}
	switch k := kindOf(v); k {
	case "integer":
		return "number"
	case "":
		return "unknown"
	default:
		return k
	}
}

// cmpNumber compares a value with a schema bound.
func cmpNumber(v json.Number, b *bound) int {
	if b.rat != nil && b.rat.IsInt() && b.rat.Num().IsInt64() {
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			bi := b.rat.Num().Int64()
			switch {
			case i < bi:
				return -1
			case i > bi:
				return 1
			}
			return 0
		}
	}
	if b.rat != nil {
		if r := ratOf(v); r != nil {
			return r.Cmp(b.rat)
		}
	}
	f, _ := strconv.ParseFloat(string(v), 64)
	switch {
	case f < b.f:
		return -1
	case f > b.f:
		return 1
	}
	return 0
}

func multipleOf(v json.Number, m *bound) bool {
	if m.rat != nil {
		if r := ratOf(v); r != nil {
			return new(big.Rat).Quo(r, m.rat).IsInt()
		}
	}
	f, _ := strconv.ParseFloat(string(v), 64)
	q := f / m.f
	return !math.IsInf(q, 0) && q == math.Trunc(q)
}

// equalJSON reports whether two decoded values are equal as JSON: numbers by value.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numbersEqual(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, has := y[k]
			if !has || !equalJSON(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	ra, rb := ratOf(a), ratOf(b)
	if ra != nil && rb != nil {
		return ra.Cmp(rb) == 0
	}
	fa, _ := strconv.ParseFloat(string(a), 64)
	fb, _ := strconv.ParseFloat(string(b), 64)
	return fa == fb
}

// appendCanonical encodes v so that values equal as JSON encode the same: sorted keys,
// numbers in one form.
func appendCanonical(b []byte, v any) []byte {
	switch t := v.(type) {
	case json.Number:
		if r := ratOf(t); r != nil {
			return append(append(b, 'n'), r.RatString()...)
		}
		f, _ := strconv.ParseFloat(string(t), 64)
		return strconv.AppendFloat(append(b, 'f'), f, 'g', -1, 64)
	case []any:
		b = append(b, '[')
		for _, e := range t {
			b = appendCanonical(b, e)
			b = append(b, ',')
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		for _, k := range sortedKeys(t) {
			b = appendString(b, k)
			b = append(b, ':')
			b = appendCanonical(b, t[k])
			b = append(b, ',')
		}
		return append(b, '}')
	}
	return appendValue(b, v)
}
