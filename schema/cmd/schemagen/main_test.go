package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	catalog := filepath.Join(dir, "actions.jsonl")
	rows := `{"action":"NOTES_CREATE","description":"Create a note.","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}
{"action":"NOTES_DELETE","description":"Delete a note.","parameters":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}
`
	if err := os.WriteFile(catalog, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "params.go")
	if err := run(catalog, "notes", out, []string{"NOTES_CREATE"}); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"package notes", "type NotesCreateParams struct", "Text string `json:\"text\"`"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("output lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(string(src), "NotesDelete") {
		t.Error("output has an action that was not asked for")
	}
	if err := run(catalog, "notes", out, []string{"NOTES_MISSING"}); err == nil || !strings.Contains(err.Error(), "NOTES_MISSING") {
		t.Errorf("missing action: error = %v", err)
	}
	if err := run("", "notes", out, nil); err == nil {
		t.Error("no catalogue: no error")
	}
}
