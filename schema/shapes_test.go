package schema_test

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/schema"
)

// The shapes below are what agents do most: send an email, post a message, create an
// issue, task, contact or event, search, list. An action's shape is its verb and the object
// it acts on, read from its slug (GMAIL_SEND_EMAIL: send email; ASANA_CREATE_A_TASK: create
// task), so no action is listed by hand.

// shapeVerbs maps the first word of an action (after its app) to the verb it stands for.
var shapeVerbs = map[string]string{
	"SEND": "send", "POST": "post", "REPLY": "send",
	"CREATE": "create", "ADD": "create", "NEW": "create", "INSERT": "create",
	"SEARCH": "search", "FIND": "search", "QUERY": "search", "LOOKUP": "search",
	"LIST": "list", "FETCH": "list",
}

// shapeOf returns "verb object" for an action, or "" when its slug does not start with one
// of the verbs above.
func shapeOf(app, action string) string {
	rest := strings.TrimPrefix(action, app+"_")
	words := strings.Split(rest, "_")
	if len(words) < 2 {
		return ""
	}
	verb, ok := shapeVerbs[words[0]]
	if !ok {
		return ""
	}
	object := strings.ToLower(words[len(words)-1])
	switch {
	case strings.HasSuffix(object, "ies"):
		object = strings.TrimSuffix(object, "ies") + "y"
	case strings.HasSuffix(object, "sses"), strings.HasSuffix(object, "ches"), strings.HasSuffix(object, "shes"):
		object = strings.TrimSuffix(object, "es")
	case strings.HasSuffix(object, "s") && !strings.HasSuffix(object, "ss") && !strings.HasSuffix(object, "us"):
		object = strings.TrimSuffix(object, "s")
	}
	return verb + " " + object
}

// minimal builds the least a caller must send for s: its required properties only, each with
// a plausible value of the right type, or false when it cannot (a pattern it would have to
// guess, a reference cycle).
type minimal struct {
	root *schema.Schema
}

func (m minimal) resolve(s *schema.Schema) *schema.Schema {
	for i := 0; s != nil && s.Ref != "" && i < 16; i++ {
		switch {
		case s.Ref == "#":
			s = m.root
		case strings.HasPrefix(s.Ref, "#/$defs/"):
			s = m.root.Defs[strings.TrimPrefix(s.Ref, "#/$defs/")]
		default:
			return nil
		}
	}
	return s
}

func (m minimal) value(s *schema.Schema, name string, depth int) (any, bool) {
	s = m.resolve(s)
	if s == nil || depth > 12 {
		return nil, false
	}
	if s.Bool != nil {
		return "x", *s.Bool
	}
	if s.Const != nil {
		var v any
		return v, json.Unmarshal(s.Const, &v) == nil
	}
	for _, e := range s.Enum {
		if string(e) != "null" {
			var v any
			return v, json.Unmarshal(e, &v) == nil
		}
	}
	if branches := append(append([]*schema.Schema{}, s.AnyOf...), s.OneOf...); len(branches) > 0 && len(s.Type) == 0 {
		for _, b := range branches {
			if r := m.resolve(b); r != nil && !(len(r.Type) == 1 && r.Type[0] == "null") {
				return m.value(b, name, depth+1)
			}
		}
		return nil, true
	}
	if s.Pattern != "" {
		return nil, false
	}
	typ := "string"
	for _, t := range s.Type {
		if t != "null" {
			typ = t
			break
		}
	}
	switch typ {
	case "string":
		return m.text(s, name), true
	case "integer", "number":
		n := 1
		if min, ok := s.Extra["minimum"]; ok {
			if f, err := strconv.ParseFloat(string(min), 64); err == nil && f > 1 {
				n = int(f)
			}
		}
		return n, true
	case "boolean":
		return true, true
	case "array":
		if s.Items == nil {
			return []any{"x"}, true
		}
		v, ok := m.value(s.Items, strings.TrimSuffix(name, "s"), depth+1)
		return []any{v}, ok
	case "object":
		out := map[string]any{}
		for _, r := range s.Required {
			p, ok := s.Properties[r]
			if !ok {
				return nil, false
			}
			v, ok := m.value(p, r, depth+1)
			if !ok {
				return nil, false
			}
			out[r] = v
		}
		return out, true
	}
	return nil, false
}

// text is a plausible string for a property, from its format and name.
func (minimal) text(s *schema.Schema, name string) string {
	n := strings.ToLower(name)
	var v string
	switch {
	case s.Format == "date-time" || strings.Contains(n, "datetime") || strings.HasSuffix(n, "_at"):
		v = "2025-01-16T13:00:00Z"
	case s.Format == "date" || strings.Contains(n, "date"):
		v = "2025-01-16"
	case s.Format == "email" || strings.Contains(n, "email"):
		v = "jay@acme.com"
	case s.Format == "uri" || strings.Contains(n, "url") || strings.Contains(n, "link"):
		v = "https://acme.com/x"
	case strings.HasSuffix(n, "id") || strings.HasSuffix(n, "ids") || strings.HasSuffix(n, "key"):
		v = "12345"
	case strings.Contains(n, "subject") || strings.Contains(n, "title") || strings.Contains(n, "name"):
		v = "Quarterly report"
	case strings.Contains(n, "query") || n == "q":
		v = "quarterly report"
	default:
		v = "Hello from the team"
	}
	if min, ok := s.Extra["minLength"]; ok {
		if l, err := strconv.Atoi(string(min)); err == nil && l > len(v) {
			v += strings.Repeat("x", l-len(v))
		}
	}
	return v
}

// TestCatalogCommonShapes is the bar for validation: for each of the 200 most common action
// shapes in the catalogue, every action of that shape accepts, in Lenient mode, the least a
// caller must send: its required properties (after normalising) with plausible values. The
// same arguments in Strict mode fail wherever the normaliser made the difference, which
// the log counts.
func TestCatalogCommonShapes(t *testing.T) {
	rows := loadCatalog(t)
	byShape := map[string][]catalogRow{}
	for _, r := range rows {
		if s := shapeOf(r.App, r.Action); s != "" {
			byShape[s] = append(byShape[s], r)
		}
	}
	shapes := make([]string, 0, len(byShape))
	for s := range byShape {
		shapes = append(shapes, s)
	}
	sort.Slice(shapes, func(i, j int) bool {
		if len(byShape[shapes[i]]) != len(byShape[shapes[j]]) {
			return len(byShape[shapes[i]]) > len(byShape[shapes[j]])
		}
		return shapes[i] < shapes[j]
	})
	if len(shapes) > 200 {
		shapes = shapes[:200]
	}
	for _, want := range []string{"send email", "send message", "create issue", "create task", "create contact", "create event"} {
		if _, ok := byShape[want]; !ok {
			t.Errorf("no action has the shape %q", want)
		}
	}
	var checked, skipped, strictFails, keys int
	for _, shape := range shapes {
		for _, r := range byShape[shape] {
			v, err := schema.Compile(r.Parameters)
			if err != nil {
				t.Fatalf("%s: %v", r.Action, err)
			}
			args, ok := minimal{root: v.Schema()}.value(v.Schema(), "", 0)
			if !ok {
				skipped++
				continue
			}
			raw, _ := json.Marshal(args)
			checked++
			n := len(args.(map[string]any))
			keys += n
			if n > schema.InferredRequiredMin {
				t.Errorf("%s (%s): the least a caller must send has %d properties; no hand-written action needs that many", r.Action, shape, n)
			}
			if err := v.Validate(raw); err != nil {
				t.Errorf("%s (%s): minimal arguments %s refused: %v", r.Action, shape, truncateText(string(raw), 300), err)
			}
			strict, err := schema.Compile(r.Parameters, schema.CompileOptions{Mode: schema.Strict})
			if err != nil {
				t.Fatal(err)
			}
			if strict.Validate(raw) != nil {
				strictFails++
			}
		}
	}
	t.Logf("%d shapes, from %q (%d actions) to %q (%d); %d actions checked, %d skipped (a required pattern or cycle)",
		len(shapes), shapes[0], len(byShape[shapes[0]]), shapes[len(shapes)-1], len(byShape[shapes[len(shapes)-1]]), checked, skipped)
	t.Logf("minimal arguments hold %.1f properties on average; %d of them would be refused in Strict mode", float64(keys)/float64(max(checked, 1)), strictFails)
	if checked < 2000 || skipped*20 > checked {
		t.Errorf("checked %d actions, skipped %d: the shapes no longer cover the catalogue", checked, skipped)
	}
}
