package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhint/toolhint/internal/text"
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

// TestAliases checks how aliases are made from names: camel case, qualifiers that close
// several names, words of the language, and function words.
func TestAliases(t *testing.T) {
	apps := []app{
		{App: "NORTHPOLECRM", DisplayName: "Northpolecrm", Description: "NorthPoleCRM is a CRM."},
		{App: "LANTERN_CRM", DisplayName: "Lantern crm", Description: "Lantern CRM keeps contacts."},
		{App: "QUILLCRM", DisplayName: "Quillcrm", Description: "Quill tracks deals."},
		{App: "MARBLE_CRM", DisplayName: "Marble crm", Description: "Marble CRM for teams."},
		{App: "THANKS_HQ", DisplayName: "Thanks hq", Description: "Sends cards."},
		{App: "ZORBLY_HQ", DisplayName: "Zorbly hq", Description: "Runs tasks."},
		{App: "PLIMHQ", DisplayName: "Plimhq", Description: "Plim runs things."},
		{App: "KWEHQ", DisplayName: "Kwehq", Description: "Kwe runs things."},
	}
	st := &stats{apps: map[string]map[string]bool{}}
	var b bytes.Buffer
	writeAliases(&b, apps, st, text.New())
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		f := strings.Split(l, "\t")
		got[f[1]+" "+f[2]] = f[3]
	}
	for alias, want := range map[string]string{
		"northpolecrm north pole crm": "1.0", // camel case in the description
		"northpolecrm north pole":     "1.0", // "crm" closes two names and ends four slugs
		"northpolecrm northpole":      "1.0", // several words written as one
		"marble_crm marble":           "0.5", // a word of the language names its app loosely
		"zorbly_hq zorbly":            "1.0",
	} {
		if got[alias] != want {
			t.Errorf("alias %q: strength %q, want %q (all: %v)", alias, got[alias], want, got)
		}
	}
	if s, ok := got["thanks_hq thanks"]; ok {
		t.Errorf("a function word is an alias (strength %s)", s)
	}
	if got := splitCamel("CentralStationCRMTool"); got != "Central Station CRM Tool" {
		t.Errorf("splitCamel: %q", got)
	}
}
