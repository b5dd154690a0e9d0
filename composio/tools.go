package composio

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"sort"
	"strings"
)

// Tool is one Composio tool (an action). InputParameters and OutputParameters are kept
// byte-exact as the API sent them.
type Tool struct {
	Slug              string          `json:"slug"` // UPPER_SNAKE, e.g. "GMAIL_SEND_EMAIL"
	Name              string          `json:"name"`
	Description       string          `json:"description"`
	HumanDescription  string          `json:"human_description,omitempty"`
	Toolkit           ToolkitRef      `json:"toolkit"`
	InputParameters   json.RawMessage `json:"input_parameters,omitempty"`
	OutputParameters  json.RawMessage `json:"output_parameters,omitempty"`
	NoAuth            bool            `json:"no_auth"`
	Version           string          `json:"version,omitempty"`
	AvailableVersions []string        `json:"available_versions,omitempty"`
	Scopes            []string        `json:"scopes,omitempty"`
	Tags              []string        `json:"tags,omitempty"`
	IsDeprecated      bool            `json:"is_deprecated"`
	Deprecated        *ToolDeprecated `json:"deprecated,omitempty"`
}

// ToolkitRef names the toolkit a tool belongs to.
type ToolkitRef struct {
	Slug string `json:"slug"`
	Name string `json:"name,omitempty"`
	Logo string `json:"logo,omitempty"`
}

// ToolDeprecated is the deprecation block of a tool.
type ToolDeprecated struct {
	DisplayName       string   `json:"displayName,omitempty"`
	Version           string   `json:"version,omitempty"`
	AvailableVersions []string `json:"available_versions,omitempty"`
	IsDeprecated      bool     `json:"is_deprecated"`
}

// ToolFilter selects tools. The zero value selects every tool (deprecated ones excluded:
// see IncludeDeprecated). When Tools is set the API ignores the other filters.
type ToolFilter struct {
	// Toolkits are toolkit slugs in any case, sent comma-joined as toolkit_slug.
	Toolkits []string
	// Tools are tool slugs in any case, sent comma-joined as tool_slugs.
	Tools []string
	// Search is free text, sent as "query" on v3.1 and "search" on v3.
	Search string
	// Tags are tool tags (e.g. "readOnlyHint"), sent as repeated tags parameters.
	Tags []string
	// Scopes are OAuth scopes, sent as repeated scopes parameters.
	Scopes []string
	// AuthConfigIDs select the tools available to these auth configs (comma-joined).
	AuthConfigIDs []string
	// Important, when true, sends important=true (only tools tagged important).
	Important bool
	// IncludeDeprecated is sent as include_deprecated=true|false. The API's own default
	// is true; this package sends false unless it is set.
	IncludeDeprecated bool
	// ToolkitVersions pins toolkits to versions, sent as toolkit_versions[slug]=version;
	// the key "" sets toolkit_versions=<version> for every toolkit (e.g. "latest").
	ToolkitVersions map[string]string
	// Limit is the page size (at most 1000); 0 means Config.PageSize.
	Limit int
}

func (f ToolFilter) query(prefix string) url.Values {
	q := url.Values{}
	joinComma(q, "toolkit_slug", f.Toolkits, NormalizeToolkitSlug)
	joinComma(q, "tool_slugs", f.Tools, NormalizeToolSlug)
	joinComma(q, "auth_config_ids", f.AuthConfigIDs, strings.TrimSpace)
	if f.Search != "" {
		if prefix == PrefixV3 {
			q.Set("search", f.Search)
		} else {
			q.Set("query", f.Search)
		}
	}
	addEach(q, "tags", f.Tags)
	addEach(q, "scopes", f.Scopes)
	if f.Important {
		q.Set("important", "true")
	}
	setBool(q, "include_deprecated", f.IncludeDeprecated)
	keys := make([]string, 0, len(f.ToolkitVersions))
	for k := range f.ToolkitVersions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := f.ToolkitVersions[k]
		if k == "" {
			q.Set("toolkit_versions", v)
		} else {
			q.Set("toolkit_versions["+NormalizeToolkitSlug(k)+"]", v)
		}
	}
	return q
}

// ToolsPage returns one page of tools; cursor is "" for the first page. Callers that
// report progress per page use it directly; others use Tools or ListTools.
func (c *Client) ToolsPage(ctx context.Context, f ToolFilter, cursor string) (Page[Tool], error) {
	return getPage[Tool](ctx, c, "/tools", f.query(c.prefix), f.Limit, cursor)
}

// Tools iterates over every tool matching f, with input parameters, fetching one page at a
// time (one request per page). Breaking out of the loop stops fetching. The iteration
// stops at the first error, yielded with a zero Tool.
func (c *Client) Tools(ctx context.Context, f ToolFilter) iter.Seq2[Tool, error] {
	return paginate(ctx, func(ctx context.Context, cursor string) (Page[Tool], error) {
		return c.ToolsPage(ctx, f, cursor)
	})
}

// ListTools returns every tool matching f.
func (c *Client) ListTools(ctx context.Context, f ToolFilter) ([]Tool, error) {
	return collect(c.Tools(ctx, f))
}

// ToolkitTools returns every tool of one toolkit, with input parameters: the per-toolkit
// call a sync uses to backfill parameters.
func (c *Client) ToolkitTools(ctx context.Context, toolkit string) ([]Tool, error) {
	if NormalizeToolkitSlug(toolkit) == "" {
		return nil, fmt.Errorf("%w: empty toolkit slug", ErrInvalidArgument)
	}
	return c.ListTools(ctx, ToolFilter{Toolkits: []string{toolkit}})
}

// Tool returns one tool. version is a toolkit version such as "20250905_00"; "" means the
// API default. It returns an error matching ErrNotFound when the tool does not exist.
func (c *Client) Tool(ctx context.Context, slug, version string) (Tool, error) {
	slug = NormalizeToolSlug(slug)
	if slug == "" {
		return Tool{}, fmt.Errorf("%w: empty tool slug", ErrInvalidArgument)
	}
	q := url.Values{}
	setIf(q, "version", version)
	var out Tool
	err := c.do(ctx, request{method: "GET", path: "/tools/" + url.PathEscape(slug), query: q}, &out)
	return out, err
}

// ToolSlugs returns the slug of every tool in each toolkit's latest version
// (GET /tools/enum).
func (c *Client) ToolSlugs(ctx context.Context) ([]string, error) {
	var out []string
	if err := c.do(ctx, request{method: "GET", path: "/tools/enum"}, &out); err != nil {
		return nil, err
	}
	return out, nil
}
