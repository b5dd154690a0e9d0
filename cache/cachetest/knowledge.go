package cachetest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/cache"
)

// knowledgeOf reads st's catalogue knowledge, skipping the test for a store that keeps none.
func knowledgeOf(t *testing.T, st cache.Store) cache.CatalogKnowledge {
	t.Helper()
	ks, ok := st.(cache.KnowledgeStore)
	if !ok {
		t.Skip("the store keeps no catalogue knowledge")
	}
	k, err := ks.CatalogKnowledge(context.Background())
	if err != nil {
		t.Fatalf("CatalogKnowledge: %v", err)
	}
	return k
}

// hasRecord reports whether a knowledge table holds a record (fields joined by tabs).
func hasRecord(k cache.CatalogKnowledge, fields ...string) bool {
	return strings.Contains("\n"+string(k.Table), "\n"+strings.Join(fields, "\t")+"\n")
}

// testKnowledge: the knowledge is the one cache.ComputeCatalogKnowledge computes from what
// the store holds (so every store computes the same), holds the apps' names and words, and
// its version follows the catalogue's names and descriptions: unchanged by an identical
// write or a reclassification, changed by a changed description or a deletion.
func testKnowledge(t *testing.T, st cache.Store) {
	ctx := context.Background()
	if k := knowledgeOf(t, st); k.Version != "" || len(k.Table) != 0 {
		t.Errorf("an empty store has knowledge: %+v", k)
	}
	loadFixture(t, st)
	k1 := knowledgeOf(t, st)
	snap := Snapshot(t, st)
	want := cache.ComputeCatalogKnowledge(snap.Apps, snap.Actions)
	if k1.Version == "" || k1.Version != want.Version || !bytes.Equal(k1.Table, want.Table) ||
		k1.Actions != len(snap.Actions) || k1.Apps != len(snap.Apps) {
		t.Fatalf("knowledge %s (%d actions, %d apps) differs from the one computed from the store's catalogue %s (%d, %d):\n%s\nwant\n%s",
			k1.Version, k1.Actions, k1.Apps, want.Version, want.Actions, want.Apps, k1.Table, want.Table)
	}
	for _, rec := range [][]string{
		{"P", "google_drive", "google drive", "1.0"}, // the app's display name
		{"P", "google_drive", "googledrive", "1.0"},  // written as one word
	} {
		if !hasRecord(k1, rec...) {
			t.Errorf("the knowledge lacks %q:\n%s", rec, k1.Table)
		}
	}

	apply(t, st, fixtureBatch())
	if k := knowledgeOf(t, st); k.Version != k1.Version {
		t.Errorf("an identical write changed the version: %s -> %s", k1.Version, k.Version)
	}
	if _, err := st.Reclassify(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if k := knowledgeOf(t, st); k.Version != k1.Version {
		t.Errorf("Reclassify changed the version: %s -> %s", k1.Version, k.Version)
	}

	a := wantAction("GMAIL_SEND_EMAIL")
	a.Description = "Sends an e-mail through the Zorblatt relay."
	apply(t, st, cache.Batch{Actions: []cache.Action{a}})
	k2 := knowledgeOf(t, st)
	if k2.Version == k1.Version {
		t.Errorf("a changed description left the version at %s", k1.Version)
	}
	apply(t, st, cache.Batch{DeleteApps: []string{"google_drive"}})
	k3 := knowledgeOf(t, st)
	if k3.Version == k2.Version || hasRecord(k3, "P", "google_drive", "google drive", "1.0") {
		t.Errorf("deleting an app left its knowledge (version %s -> %s)", k2.Version, k3.Version)
	}
}

// knowledgeLine is one actions-snapshot line for testKnowledgeImport.
func knowledgeLine(app, slug, name, desc string) string {
	b, _ := json.Marshal(map[string]any{"app": app, "action": slug, "display_name": name, "description": desc,
		"parameters": map[string]any{"type": "object", "properties": map[string]any{}}})
	return string(b) + "\n"
}

// testKnowledgeImport: importing a snapshot computes the knowledge of what was imported; a
// second import of the same snapshot keeps its version, one that adds an action changes it.
func testKnowledgeImport(t *testing.T, st cache.Store) {
	ctx := context.Background()
	knowledgeOf(t, st) // skips a store that keeps none
	apps := `{"app":"QPAD","display_name":"Quillpad","description":"Quillpad keeps notebooks and scribbles.","categories":["notes"]}` + "\n"
	if _, err := cache.ImportAppsJSONL(ctx, st, strings.NewReader(apps)); err != nil {
		t.Fatalf("ImportAppsJSONL: %v", err)
	}
	snapshot := knowledgeLine("QPAD", "QPAD_CREATE_NOTEBOOK", "Create notebook", "Creates a notebook.") +
		knowledgeLine("QPAD", "QPAD_ADD_SCRIBBLE", "Add scribble", "Adds a scribble to a notebook.") +
		knowledgeLine("ZORBIT_CRM", "ZORBIT_CRM_CREATE_LEAD", "Create lead", "Creates a lead with a scribble.")
	if _, err := cache.ImportJSONL(ctx, st, strings.NewReader(snapshot)); err != nil {
		t.Fatalf("ImportJSONL: %v", err)
	}
	k1 := knowledgeOf(t, st)
	if k1.Actions != 3 || k1.Apps != 2 {
		t.Errorf("knowledge of %d actions and %d apps, want 3 and 2", k1.Actions, k1.Apps)
	}
	for _, rec := range [][]string{
		{"P", "zorbit_crm", "zorbit crm", "1.0"}, // the name made from the slug at import
		{"V", "scribble", "2"},
		{"V", "notebook", "2"},
	} {
		if !hasRecord(k1, rec...) {
			t.Errorf("the knowledge lacks %q:\n%s", rec, k1.Table)
		}
	}
	if !hasRecord(k1, "P", "qpad", "quillpad", "1.0") {
		t.Errorf("the knowledge lacks the app's display name as an alias:\n%s", k1.Table)
	}
	if _, err := cache.ImportJSONL(ctx, st, strings.NewReader(snapshot)); err != nil {
		t.Fatal(err)
	}
	if k := knowledgeOf(t, st); k.Version != k1.Version {
		t.Errorf("an identical import changed the version: %s -> %s", k1.Version, k.Version)
	}
	more := snapshot + knowledgeLine("QPAD", "QPAD_LIST_NOTEBOOKS", "List notebooks", "Lists notebooks.")
	if _, err := cache.ImportJSONL(ctx, st, strings.NewReader(more)); err != nil {
		t.Fatal(err)
	}
	k2 := knowledgeOf(t, st)
	if k2.Version == k1.Version || !hasRecord(k2, "V", "notebook", "3") {
		t.Errorf("an import adding an action: version %s -> %s, table\n%s", k1.Version, k2.Version, k2.Table)
	}
	if k2.Actions != 4 {
		t.Errorf("knowledge of %d actions, want 4", k2.Actions)
	}
}
