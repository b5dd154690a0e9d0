package hint_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/hint"
)

// noKnowledge is a store that keeps no catalogue knowledge, as a fake or an older store.
type noKnowledge struct{ hint.Store }

// newAppCatalogue imports two note-taking apps no compiled table knows, each with the same
// actions; only the apps' display names tell them apart.
func newAppCatalogue(t testing.TB, st *cache.Memory) {
	t.Helper()
	ctx := context.Background()
	apps := `{"app":"INKWELL","display_name":"Inkwell","description":"Inkwell keeps notebooks."}` + "\n" +
		`{"app":"QPAD","display_name":"Quillpad","description":"Quillpad keeps notebooks and scribbles."}` + "\n"
	if _, err := cache.ImportAppsJSONL(ctx, st, strings.NewReader(apps)); err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for _, app := range []string{"INKWELL", "QPAD"} {
		for _, a := range [][2]string{{"CREATE_NOTEBOOK", "Creates a notebook."}, {"LIST_NOTEBOOKS", "Lists the notebooks."}, {"DELETE_NOTEBOOK", "Deletes a notebook."}} {
			b, _ := json.Marshal(map[string]any{"app": app, "action": app + "_" + a[0], "display_name": strings.ToLower(strings.ReplaceAll(a[0], "_", " ")),
				"description": a[1], "parameters": map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}}})
			lines.Write(append(b, '\n'))
		}
	}
	if _, err := cache.ImportJSONL(ctx, st, strings.NewReader(lines.String())); err != nil {
		t.Fatal(err)
	}
}

// TestStoreKnowledgeNamesNewApp: after a catalogue with a new app is imported, a prompt that
// names the app by its display name lists that app's action first, from the knowledge the
// store computed; the same store without its knowledge (the compiled table) does not.
func TestStoreKnowledgeNamesNewApp(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	newAppCatalogue(t, st)
	req := hint.Request{AgentID: 1, Apps: []string{"inkwell", "qpad"}, Prompt: "create a notebook in Quillpad"}
	b := hint.New(hint.Config{})
	res, err := b.Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MatchedActions) == 0 || res.MatchedActions[0] != "QPAD_CREATE_NOTEBOOK" {
		t.Errorf("with the store's knowledge: %v, want QPAD_CREATE_NOTEBOOK first", res.MatchedActions)
	}
	before, err := hint.New(hint.Config{}).Build(ctx, noKnowledge{st}, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with the store's knowledge %v; with the compiled table %v", res.MatchedActions, before.MatchedActions)
	if len(before.MatchedActions) > 0 && before.MatchedActions[0] == "QPAD_CREATE_NOTEBOOK" {
		t.Errorf("the compiled table already finds the app (%v): the test proves nothing", before.MatchedActions)
	}
}

// TestStoreKnowledgeSwaps: a Builder follows the store's knowledge as the catalogue changes:
// an app added after the first Build is named by its display name on the next, with no new
// Builder; concurrent Builds during the swap are safe (run with -race).
func TestStoreKnowledgeSwaps(t *testing.T) {
	ctx := context.Background()
	st := cache.NewMemory()
	newAppCatalogue(t, st)
	b := hint.New(hint.Config{})
	req := hint.Request{AgentID: 1, Apps: []string{"inkwell", "qpad", "zettel"}, Prompt: "create a notebook in Marginalia"}
	res, err := b.Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MatchedActions) > 0 && strings.HasPrefix(res.MatchedActions[0], "ZETTEL") {
		t.Fatalf("an app not yet in the store listed: %v", res.MatchedActions)
	}
	apps := `{"app":"ZETTEL","display_name":"Marginalia","description":"Marginalia keeps notebooks."}` + "\n"
	if _, err := cache.ImportAppsJSONL(ctx, st, strings.NewReader(apps)); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"app": "ZETTEL", "action": "ZETTEL_CREATE_NOTEBOOK", "display_name": "create notebook",
		"description": "Creates a notebook.", "parameters": map[string]any{"type": "object", "properties": map[string]any{}}})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if _, err := b.Build(ctx, st, req); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	if _, err := cache.ImportJSONL(ctx, st, strings.NewReader(string(line)+"\n")); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	res, err = b.Build(ctx, st, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.MatchedActions) == 0 || res.MatchedActions[0] != "ZETTEL_CREATE_NOTEBOOK" {
		t.Errorf("after the app was imported: %v, want ZETTEL_CREATE_NOTEBOOK first", res.MatchedActions)
	}
}
