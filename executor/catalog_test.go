package executor_test

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

var catalogPath = flag.String("catalog", os.Getenv("TOOLHINT_CATALOG"), "Composio catalogue JSONL (default $TOOLHINT_CATALOG)")

// loadCatalog imports the shared catalogue into a memory store and returns its actions; it
// skips the test when no catalogue is named.
func loadCatalog(t *testing.T) (*cache.Memory, []cache.Action) {
	t.Helper()
	if *catalogPath == "" {
		t.Skip("set -catalog or TOOLHINT_CATALOG to run against the shared catalogue")
	}
	ctx := context.Background()
	f, err := os.Open(*catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(ctx, st, f); err != nil {
		t.Fatal(err)
	}
	acts, err := st.Actions(ctx, cache.ActionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return st, acts
}

// TestRealCatalog runs calls against a sample of the real catalogue's schemas: whatever the
// schema, a call gets a clear result (run, or invalid arguments), never a panic or an
// internal error, and the resolver stays within its cap.
func TestRealCatalog(t *testing.T) {
	ctx := context.Background()
	st, acts := loadCatalog(t)
	t.Logf("%d actions imported", len(acts))
	ex := mustNew(t, executor.Config{Catalog: st, Remote: &fakeRemote{}, Confirm: func(context.Context, executor.Tool, json.RawMessage) (bool, error) { return true, nil }})
	defer ex.Close()
	step := max(1, len(acts)/1500)
	var calls []executor.Call
	for i := 0; i < len(acts); i += step {
		calls = append(calls,
			executor.Call{Name: acts[i].Slug, Arguments: json.RawMessage(`{}`)},
			executor.Call{Name: acts[i].Slug, Arguments: json.RawMessage(`{"query":123,"threadId":"t","limit":"5"}`)})
	}
	kinds := map[executor.ErrorKind]int{}
	for i, r := range ex.ExecuteBatch(ctx, calls, executor.BatchOptions{}) {
		kinds[r.ErrorKind]++
		switch r.ErrorKind {
		case "", executor.KindInvalidArguments:
		default:
			t.Errorf("%s %s: %s: %s", calls[i].Name, calls[i].Arguments, r.ErrorKind, r.Error)
		}
		if !r.OK && r.Error == "" {
			t.Errorf("%s failed without a message", calls[i].Name)
		}
	}
	t.Logf("%d calls: %v", len(calls), kinds)

	start := time.Now()
	r := ex.Execute(ctx, executor.Call{Name: "GMAIL_SEND_MAIL"})
	t.Logf("unknown name over the whole catalogue: %v, suggestions %v", time.Since(start), r.Suggestions)
	if len(r.Suggestions) == 0 || r.Suggestions[0] != "GMAIL_SEND_EMAIL" {
		t.Errorf("suggestions %v, want GMAIL_SEND_EMAIL first", r.Suggestions)
	}

	res, err := registry.NewResolver(registry.ResolverConfig{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"create a task in the project tracker", "send a message to the team", "list files in a folder"} {
		r, err := res.Resolve(ctx, registry.Subject{Apps: []string{"slack", "gmail", "github", "notion", "googledrive", "jira", "asana", "trello"}}, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Actions) > registry.DefaultResolveLimit || len(r.Functions) != len(r.Actions) {
			t.Errorf("%q: %d actions, %d functions", p, len(r.Actions), len(r.Functions))
		}
		t.Logf("%q -> %s, %d actions", p, r.Tier, len(r.Actions))
	}
}

// TestCatalogSendsOnlyWhatWasWritten calls every action of the catalogue with arguments that
// hold only its required properties, through a recording remote: without FillDefaults every
// call that runs reaches the remote with exactly the keys written, at every level; with
// FillDefaults, update actions still do.
func TestCatalogSendsOnlyWhatWasWritten(t *testing.T) {
	ctx := context.Background()
	st, acts := loadCatalog(t)
	calls := make([]executor.Call, 0, len(acts))
	sent := map[string]any{}
	for _, a := range acts {
		v, err := schema.Compile(a.Parameters)
		if err != nil {
			continue // a schema the executor refuses to compile never reaches the remote
		}
		args := minimalArgs(v.Schema(), v.Schema(), 0)
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		sent[a.Slug] = args
		calls = append(calls, executor.Call{Name: a.Slug, Arguments: raw})
	}
	allow := func(context.Context, executor.Tool, json.RawMessage) (bool, error) { return true, nil }
	for _, fill := range []bool{false, true} {
		remote := &fakeRemote{}
		ex := mustNew(t, executor.Config{Catalog: st, Remote: remote, Confirm: allow, FillDefaults: fill, MaxResultChars: -1})
		results := ex.ExecuteBatch(ctx, calls, executor.BatchOptions{})
		ex.Close()
		var refused []string
		for i, r := range results {
			switch {
			case r.OK:
			case r.ErrorKind == executor.KindInvalidArguments:
				refused = append(refused, calls[i].Name)
			default:
				t.Errorf("%s: %s: %s", calls[i].Name, r.ErrorKind, r.Error)
			}
		}
		// The arguments hold every required property, so a refusal is either a value the
		// generator cannot write (a pattern) or a host-filled parameter with no value here
		// (no workspace): a handful at most, never a class of actions.
		if len(refused) > maxRefused {
			t.Errorf("%d actions refused their required arguments (at most %d expected): %v", len(refused), maxRefused, refused)
		} else {
			t.Logf("refused: %v", refused)
		}
		ran, added, addedUpdate := 0, 0, 0
		for _, req := range remote.requests() {
			ran++
			var got any
			if err := json.Unmarshal(req.Arguments, &got); err != nil {
				t.Fatalf("%s: %v", req.Action, err)
			}
			if extra := addedKeys(sent[req.Action], got, ""); len(extra) > 0 {
				added++
				if !fill {
					t.Errorf("%s: keys added that the model did not write: %v", req.Action, extra)
				}
				if fill && isUpdateSlug(req.Action) {
					addedUpdate++
					t.Errorf("%s (an update action) got defaults with FillDefaults: %v", req.Action, extra)
				}
			}
		}
		t.Logf("FillDefaults %v: %d of %d actions ran, %d with added keys, %d of them update actions", fill, ran, len(calls), added, addedUpdate)
		if ran != len(calls)-len(refused) {
			t.Errorf("%d of %d calls reached the remote, %d refused", ran, len(calls), len(refused))
		}
		if fill && added == 0 {
			t.Error("FillDefaults added no key anywhere: the check cannot see added keys")
		}
	}
}

// maxRefused bounds the catalogue actions TestCatalogSendsOnlyWhatWasWritten may see refused
// (six in the shared snapshot: four GitHub patterns, two Composio calls that need a
// workspace's connection).
const maxRefused = 10

// isUpdateSlug reports whether an action's slug names an update, as the executor's own test
// does; the executor may know more (the classifier's capabilities).
func isUpdateSlug(slug string) bool {
	for _, w := range strings.Split(slug, "_") {
		switch w {
		case "UPDATE", "PATCH", "EDIT", "MODIFY", "UPSERT":
			return true
		}
	}
	return false
}

// addedKeys lists the paths of object keys in got that sent does not have.
func addedKeys(sent, got any, path string) []string {
	var out []string
	switch g := got.(type) {
	case map[string]any:
		s, _ := sent.(map[string]any)
		for k, v := range g {
			sv, ok := s[k]
			if !ok {
				out = append(out, path+"/"+k)
				continue
			}
			out = append(out, addedKeys(sv, v, path+"/"+k)...)
		}
	case []any:
		s, _ := sent.([]any)
		for i, v := range g {
			if i < len(s) {
				out = append(out, addedKeys(s[i], v, path+"/"+strconv.Itoa(i))...)
			}
		}
	}
	return out
}

// minimalArgs builds a value for s holding only what s requires: the required properties of
// objects, the minimum items of arrays, and plain values that fit their type, enum or
// format.
func minimalArgs(root, s *schema.Schema, depth int) any {
	for i := 0; s != nil && s.Ref != "" && i < 16; i++ {
		name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
		switch {
		case s.Ref == "#":
			s = root
		case ok:
			s = root.Defs[name]
		default:
			s = nil
		}
	}
	if s == nil || s.Bool != nil || depth > 12 {
		return "x"
	}
	if s.Const != nil {
		var v any
		_ = json.Unmarshal(s.Const, &v)
		return v
	}
	for _, e := range s.Enum {
		if string(e) != "null" {
			var v any
			_ = json.Unmarshal(e, &v)
			return v
		}
	}
	typ := ""
	for _, t := range s.Type {
		if t != "null" {
			typ = t
			break
		}
	}
	if typ == "" {
		for _, b := range append(append(slices.Clip(s.AnyOf), s.OneOf...), s.AllOf...) {
			if b != nil && !(len(b.Type) == 1 && b.Type[0] == "null") {
				return minimalArgs(root, b, depth+1)
			}
		}
		if s.Properties != nil || len(s.Required) > 0 {
			typ = "object"
		} else {
			return "x"
		}
	}
	num := func(key string) (float64, bool) {
		raw, ok := s.Extra[key]
		if !ok {
			return 0, false
		}
		var f float64
		return f, json.Unmarshal(raw, &f) == nil
	}
	switch typ {
	case "object":
		m := map[string]any{}
		for _, r := range s.Required {
			m[r] = minimalArgs(root, s.Properties[r], depth+1)
		}
		return m
	case "array":
		n, _ := num("minItems")
		out := []any{}
		for range int(n) {
			out = append(out, minimalArgs(root, s.Items, depth+1))
		}
		return out
	case "integer", "number":
		v := 1.0
		if lo, ok := num("minimum"); ok {
			v = math.Ceil(lo)
		}
		if lo, ok := num("exclusiveMinimum"); ok {
			v = math.Floor(lo) + 1
		}
		if hi, ok := num("maximum"); ok && v > hi {
			v = math.Floor(hi)
		}
		return v
	case "boolean":
		return true
	case "null":
		return nil
	}
	switch s.Format {
	case "date-time":
		return "2025-01-02T03:04:05Z"
	case "date":
		return "2025-01-02"
	case "time":
		return "03:04:05Z"
	case "email":
		return "jay@example.com"
	case "uri", "url":
		return "https://example.com/x"
	case "uuid":
		return "123e4567-e89b-12d3-a456-426614174000"
	}
	n, _ := num("minLength")
	return strings.Repeat("x", max(1, int(n)))
}
