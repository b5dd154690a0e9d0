// Command schemagen writes Go parameter structs for the Composio actions a host uses, from a
// catalogue in JSON Lines (one object per line with "action", "description" and
// "parameters", the format of cache.ExportJSONL).
//
// Usage:
//
//	schemagen -catalog actions.jsonl -package tools -o params_gen.go GMAIL_SEND_EMAIL SLACK_SEND_MESSAGE
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/toolhint/toolhint/schema"
)

func main() {
	catalog := flag.String("catalog", "", "catalogue in JSON Lines (required)")
	pkg := flag.String("package", "tools", "package name of the generated file")
	out := flag.String("o", "", "output file (default: standard output)")
	flag.Parse()
	if err := run(*catalog, *pkg, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(catalog, pkg, out string, slugs []string) error {
	if catalog == "" || len(slugs) == 0 {
		return fmt.Errorf("need -catalog and at least one action slug")
	}
	f, err := os.Open(catalog)
	if err != nil {
		return err
	}
	defer f.Close()
	want := map[string]bool{}
	for _, s := range slugs {
		want[s] = true
	}
	found := map[string]schema.GoType{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var row struct {
			Action      string          `json:"action"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return fmt.Errorf("catalogue: %w", err)
		}
		if want[row.Action] {
			found[row.Action] = schema.GoType{Action: row.Action, Description: row.Description, Parameters: row.Parameters}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var types []schema.GoType
	for _, s := range slugs {
		t, ok := found[s]
		if !ok {
			return fmt.Errorf("action %s is not in the catalogue", s)
		}
		types = append(types, t)
	}
	src, err := schema.GenerateGo(schema.GoConfig{Package: pkg, Types: types})
	if err != nil {
		return err
	}
	if out != "" {
		return os.WriteFile(out, src, 0o644)
	}
	_, err = os.Stdout.Write(src)
	return err
}
