package composio

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"strings"
)

// Toolkit is a Composio toolkit (an app) as listed by GET /toolkits.
type Toolkit struct {
	Slug                       string              `json:"slug"` // lower_snake, e.g. "gmail"
	Name                       string              `json:"name"`
	AuthSchemes                []string            `json:"auth_schemes,omitempty"`
	ComposioManagedAuthSchemes []string            `json:"composio_managed_auth_schemes,omitempty"`
	IsLocalToolkit             bool                `json:"is_local_toolkit,omitempty"`
	NoAuth                     bool                `json:"no_auth"`
	Type                       string              `json:"type,omitempty"` // v3.1: "native" or "custom"
	AuthGuideURL               string              `json:"auth_guide_url,omitempty"`
	Deprecated                 *ToolkitDeprecation `json:"deprecated,omitempty"`
	Meta                       ToolkitMeta         `json:"meta"`
}

// ToolkitDeprecation carries the legacy id of a toolkit, which the API reports under
// "deprecated".
type ToolkitDeprecation struct {
	ToolkitID string `json:"toolkitId,omitempty"`
}

// ToolkitMeta is a toolkit's descriptive metadata.
type ToolkitMeta struct {
	Description       string     `json:"description,omitempty"`
	Logo              string     `json:"logo,omitempty"`
	AppURL            string     `json:"app_url,omitempty"`
	Categories        []Category `json:"categories,omitempty"`
	TriggersCount     int        `json:"triggers_count,omitempty"`
	ToolsCount        int        `json:"tools_count,omitempty"`
	Version           string     `json:"version,omitempty"`
	AvailableVersions []string   `json:"available_versions,omitempty"`
	CreatedAt         string     `json:"created_at,omitempty"` // RFC 3339, as sent
	UpdatedAt         string     `json:"updated_at,omitempty"` // RFC 3339, as sent
}

// Category is a toolkit category. List responses carry ID, detail responses Slug.
type Category struct {
	ID   string `json:"id,omitempty"`
	Slug string `json:"slug,omitempty"`
	Name string `json:"name"`
}

// ToolkitDetail is one toolkit as returned by GET /toolkits/{slug}, with the fields a user
// must supply to create an auth config or a connection.
type ToolkitDetail struct {
	Slug                       string             `json:"slug"`
	Name                       string             `json:"name"`
	Enabled                    bool               `json:"enabled"`
	AuthSchemes                []string           `json:"auth_schemes,omitempty"`
	ComposioManagedAuthSchemes []string           `json:"composio_managed_auth_schemes,omitempty"`
	NoAuth                     bool               `json:"no_auth"`
	IsLocalToolkit             bool               `json:"is_local_toolkit,omitempty"`
	BaseURL                    string             `json:"base_url,omitempty"`
	GetCurrentUserEndpoint     string             `json:"get_current_user_endpoint,omitempty"`
	Meta                       ToolkitMeta        `json:"meta"`
	AuthConfigDetails          []AuthConfigDetail `json:"auth_config_details,omitempty"`
}

// NeedsNoAuth reports whether the toolkit's tools run without an auth config: it says
// no_auth, or its only auth scheme is NO_AUTH.
func (t ToolkitDetail) NeedsNoAuth() bool {
	return t.NoAuth || (len(t.AuthSchemes) == 1 && strings.EqualFold(t.AuthSchemes[0], "NO_AUTH"))
}

// AuthConfigDetail describes one auth mode of a toolkit.
type AuthConfigDetail struct {
	Mode   string     `json:"mode"` // e.g. "OAUTH2", "API_KEY"
	Name   string     `json:"name"`
	Proxy  *AuthProxy `json:"proxy,omitempty"`
	Fields AuthFields `json:"fields"`
}

// AuthProxy is the base URL requests are proxied to.
type AuthProxy struct {
	BaseURL string `json:"base_url"`
}

// AuthFields lists the inputs of auth config creation and of connection initiation.
type AuthFields struct {
	AuthConfigCreation         FieldSet `json:"auth_config_creation"`
	ConnectedAccountInitiation FieldSet `json:"connected_account_initiation"`
}

// FieldSet splits fields into required and optional.
type FieldSet struct {
	Required []AuthField `json:"required"`
	Optional []AuthField `json:"optional"`
}

// AuthField is one input a user supplies (an API key, a subdomain, …).
type AuthField struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Default     string `json:"default,omitempty"`
}

// ToolkitFilter selects toolkits. The zero value selects every non-deprecated toolkit.
type ToolkitFilter struct {
	Category          string // optional category id
	ManagedBy         string // optional: "composio", "project" or "all"
	SortBy            string // optional: "usage" or "alphabetically"
	Search            string // optional: matched against name, slug and description
	Type              string // optional (v3.1): "native", "custom" or "all"
	IncludeDeprecated bool   // sent as include_deprecated=true|false (API default false)
	// Limit is the page size; 0 means Config.PageSize.
	Limit int
}

func (f ToolkitFilter) query() url.Values {
	q := url.Values{}
	setIf(q, "category", f.Category)
	setIf(q, "managed_by", f.ManagedBy)
	setIf(q, "sort_by", f.SortBy)
	setIf(q, "search", f.Search)
	setIf(q, "type", f.Type)
	setBool(q, "include_deprecated", f.IncludeDeprecated)
	return q
}

// ToolkitsPage returns one page of toolkits; cursor is "" for the first page.
func (c *Client) ToolkitsPage(ctx context.Context, f ToolkitFilter, cursor string) (Page[Toolkit], error) {
	return getPage[Toolkit](ctx, c, "/toolkits", f.query(), f.Limit, cursor)
}

// Toolkits iterates over every toolkit matching f, fetching one page at a time. The
// iteration stops at the first error, yielded with a zero Toolkit.
func (c *Client) Toolkits(ctx context.Context, f ToolkitFilter) iter.Seq2[Toolkit, error] {
	return paginate(ctx, func(ctx context.Context, cursor string) (Page[Toolkit], error) {
		return c.ToolkitsPage(ctx, f, cursor)
	})
}

// ListToolkits returns every toolkit matching f.
func (c *Client) ListToolkits(ctx context.Context, f ToolkitFilter) ([]Toolkit, error) {
	return collect(c.Toolkits(ctx, f))
}

// Toolkit returns one toolkit with its auth details. version is a toolkit version such as
// "20250905_00"; "" means the latest. It returns an error matching ErrNotFound when the
// toolkit does not exist.
func (c *Client) Toolkit(ctx context.Context, slug, version string) (ToolkitDetail, error) {
	slug = NormalizeToolkitSlug(slug)
	if slug == "" {
		return ToolkitDetail{}, fmt.Errorf("%w: empty toolkit slug", ErrInvalidArgument)
	}
	q := url.Values{}
	setIf(q, "version", version)
	var out ToolkitDetail
	err := c.do(ctx, request{method: "GET", path: "/toolkits/" + url.PathEscape(slug), query: q}, &out)
	return out, err
}

// Categories returns every toolkit category.
func (c *Client) Categories(ctx context.Context) ([]Category, error) {
	return collect(paginate(ctx, func(ctx context.Context, cursor string) (Page[Category], error) {
		return getPage[Category](ctx, c, "/toolkits/categories", nil, 0, cursor)
	}))
}
