package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestTableIsCurrent regenerates the catalogue table from the shared catalogue and requires
// it to equal the committed one: the table is derived, never edited by hand.
func TestTableIsCurrent(t *testing.T) {
	actions, apps := os.Getenv("TOOLHINT_CATALOG"), os.Getenv("TOOLHINT_APPS")
	if actions == "" || apps == "" {
		t.Skip("set TOOLHINT_CATALOG and TOOLHINT_APPS to the shared catalogue to regenerate the table")
	}
	out := filepath.Join(t.TempDir(), "catalog.txt.gz")
	if err := run(actions, apps, out); err != nil {
		t.Fatal(err)
	}
	got, want := gunzip(t, out), gunzip(t, "../../data/catalog.txt.gz")
	if !bytes.Equal(got, want) {
		t.Errorf("the committed table differs from a fresh one (%d vs %d bytes): run go run ./internal/text/cmd/cataloggen", len(want), len(got))
	}
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
