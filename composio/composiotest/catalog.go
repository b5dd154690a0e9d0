package composiotest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/toolhint/toolhint/composio"
)

// Catalog is the toolkits and tools a Server serves. Build one in Go, or read one with
// ReadCatalog or LoadCatalog.
type Catalog struct {
	Toolkits []composio.Toolkit
	Tools    []composio.Tool
}

// catalogRow is one line of the JSONL catalogue format: one action per line.
type catalogRow struct {
	App         string          `json:"app"`
	Action      string          `json:"action"`
	DisplayName string          `json:"display_name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Tags        []string        `json:"tags"`
	NoAuth      bool            `json:"no_auth"`
	Deprecated  bool            `json:"deprecated"`
	Version     string          `json:"version"`
}

// appRow is one line of the JSONL apps format.
type appRow struct {
	App                        string   `json:"app"`
	DisplayName                string   `json:"display_name"`
	Description                string   `json:"description"`
	Categories                 []string `json:"categories"`
	AuthSchemes                []string `json:"auth_schemes"`
	ComposioManagedAuthSchemes []string `json:"composio_managed_auth_schemes"`
	NoAuth                     bool     `json:"no_auth"`
	LatestVersion              string   `json:"latest_version"`
}

// maxLine bounds one JSONL line.
const maxLine = 16 << 20

// ReadCatalog reads a JSONL catalogue: one action per line with the keys app, action,
// display_name, description, parameters, tags and no_auth (other keys are ignored).
// Toolkits are derived from the rows' apps: lower-case slug, NO_AUTH when no_auth is set;
// their other auth schemes are unknown and left empty (see ReadToolkits). Blank lines are
// skipped; a malformed line is an error naming its line number.
func ReadCatalog(r io.Reader) (Catalog, error) {
	var cat Catalog
	toolkits := map[string]*composio.Toolkit{}
	err := readLines(r, func(n int, line []byte) error {
		var row catalogRow
		if err := json.Unmarshal(line, &row); err != nil {
			return fmt.Errorf("composiotest: catalogue line %d: %w", n, err)
		}
		slug := composio.NormalizeToolSlug(row.Action)
		app := composio.NormalizeToolkitSlug(row.App)
		if slug == "" || app == "" {
			return fmt.Errorf("composiotest: catalogue line %d: missing app or action", n)
		}
		tk := toolkits[app]
		if tk == nil {
			tk = &composio.Toolkit{Slug: app, Name: row.App}
			toolkits[app] = tk
		}
		if row.NoAuth {
			tk.NoAuth = true
			tk.AuthSchemes = []string{"NO_AUTH"}
		}
		tk.Meta.ToolsCount++
		name := row.DisplayName
		if name == "" {
			name = slug
		}
		params := row.Parameters
		if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		tags := row.Tags
		if tags == nil {
			tags = []string{}
		}
		version := row.Version
		if version == "" {
			version = "00000000_00"
		}
		cat.Tools = append(cat.Tools, composio.Tool{
			Slug: slug, Name: name, Description: row.Description,
			Toolkit:           composio.ToolkitRef{Slug: app, Name: row.App},
			InputParameters:   params,
			NoAuth:            row.NoAuth,
			Version:           version,
			AvailableVersions: []string{version},
			Tags:              tags,
			IsDeprecated:      row.Deprecated,
		})
		return nil
	})
	if err != nil {
		return Catalog{}, err
	}
	for _, tk := range toolkits {
		cat.Toolkits = append(cat.Toolkits, *tk)
	}
	sort.Slice(cat.Toolkits, func(i, j int) bool { return cat.Toolkits[i].Slug < cat.Toolkits[j].Slug })
	return cat, nil
}

// LoadCatalog reads the JSONL catalogue at path; see ReadCatalog. A test whose catalogue
// is in a store already (loaded with cache.ImportJSONL, the one way to load a catalogue)
// seeds the fake with FromStore instead, connected accounts included.
func LoadCatalog(path string) (Catalog, error) {
	f, err := os.Open(path)
	if err != nil {
		return Catalog{}, fmt.Errorf("composiotest: %w", err)
	}
	defer f.Close()
	return ReadCatalog(f)
}

// ReadToolkits reads a JSONL apps file: one toolkit per line with the keys app,
// display_name, description, categories, auth_schemes, composio_managed_auth_schemes,
// no_auth and latest_version. Use it to give a catalogue's toolkits their auth schemes.
func ReadToolkits(r io.Reader) ([]composio.Toolkit, error) {
	var out []composio.Toolkit
	err := readLines(r, func(n int, line []byte) error {
		var row appRow
		if err := json.Unmarshal(line, &row); err != nil {
			return fmt.Errorf("composiotest: apps line %d: %w", n, err)
		}
		slug := composio.NormalizeToolkitSlug(row.App)
		if slug == "" {
			return fmt.Errorf("composiotest: apps line %d: missing app", n)
		}
		out = append(out, row.toolkit(slug))
		return nil
	})
	return out, err
}

// toolkit is the toolkit row describes, under slug.
func (row appRow) toolkit(slug string) composio.Toolkit {
	tk := composio.Toolkit{Slug: slug, Name: row.DisplayName, AuthSchemes: row.AuthSchemes,
		ComposioManagedAuthSchemes: row.ComposioManagedAuthSchemes,
		NoAuth:                     row.NoAuth || (len(row.AuthSchemes) == 1 && strings.EqualFold(row.AuthSchemes[0], "NO_AUTH")),
	}
	tk.Meta.Description = row.Description
	tk.Meta.Version = row.LatestVersion
	for _, c := range row.Categories {
		tk.Meta.Categories = append(tk.Meta.Categories, composio.Category{ID: categoryID(c), Name: c})
	}
	return tk
}

func categoryID(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "-")
}

func readLines(r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			buf := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
				if len(buf) > maxLine {
					return fmt.Errorf("composiotest: line %d longer than %d bytes", n, maxLine)
				}
			}
			line = buf
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if ferr := fn(n, t); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("composiotest: reading line %d: %w", n, err)
		}
	}
}
