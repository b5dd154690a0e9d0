// Command cataloggen derives general knowledge about the words of a Composio catalogue and
// writes it as a compact, gzipped table (internal/text/data/catalog.txt.gz): the catalogue's
// vocabulary (for typo repair), abbreviations, app aliases made from the apps' names, and the
// words apps describe themselves with.
//
//	go run ./internal/text/cmd/cataloggen -actions ../shared/catalog/composio-actions.jsonl \
//	    -apps ../shared/catalog/composio-apps.jsonl -out internal/text/data/catalog.txt.gz
//
// The statistics are text.ComputeCatalog's, the same the stores compute for their own
// catalogue when it is imported or synced (see package cache); the compiled table is what
// an analyser knows when its store has computed nothing. Everything is computed the same
// way for every app and every word; nothing is keyed by a particular app or word. The table
// holds statistics and short word lists, no catalogue rows.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolhint/toolhint/internal/text"
)

type action struct {
	App         string `json:"app"`
	Slug        string `json:"action"`
	DisplayName string `json:"display_name"`
	Description string `json:"description"`
}

type app struct {
	App         string   `json:"app"`
	DisplayName string   `json:"display_name"`
	Description string   `json:"description"`
	Categories  []string `json:"categories"`
}

func main() {
	actions := flag.String("actions", "", "catalogue actions JSONL")
	apps := flag.String("apps", "", "catalogue apps JSONL")
	out := flag.String("out", "internal/text/data/catalog.txt.gz", "output file")
	flag.Parse()
	if *actions == "" || *apps == "" {
		fmt.Fprintln(os.Stderr, "cataloggen: -actions and -apps are required")
		os.Exit(2)
	}
	if err := run(*actions, *apps, *out); err != nil {
		fmt.Fprintln(os.Stderr, "cataloggen:", err)
		os.Exit(1)
	}
}

func readJSONL[T any](path string, f func(T)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(file, 1<<20))
	for {
		var v T
		if err := dec.Decode(&v); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		f(v)
	}
}

func run(actionsPath, appsPath, out string) error {
	cb := text.NewCatalogBuilder()
	err := readJSONL(actionsPath, func(a action) { cb.AddAction(a.App, a.Slug, a.DisplayName, a.Description) })
	if err != nil {
		return err
	}
	var apps []text.CatalogApp
	err = readJSONL(appsPath, func(a app) {
		apps = append(apps, text.CatalogApp{App: a.App, DisplayName: a.DisplayName, Description: a.Description, Categories: a.Categories})
	})
	if err != nil {
		return err
	}
	c := cb.Catalog(apps)

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	fmt.Fprintf(w, "# Derived from a Composio catalogue snapshot (%d actions, %d apps) by internal/text/cmd/cataloggen.\n", cb.Actions(), len(apps))
	fmt.Fprintln(w, "# V word df | B short long words | P app alias words strength | D app words,...")
	if err := c.WriteTable(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
