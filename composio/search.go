package composio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// SessionRequest opens a tool-router session for a user.
type SessionRequest struct {
	UserID string // required
	// Toolkits, when set, limits the session to these toolkits.
	Toolkits []string
}

// Session is a tool-router session.
type Session struct {
	ID              string   `json:"session_id"`
	MCPURL          string   `json:"-"`
	ToolRouterTools []string `json:"tool_router_tools,omitempty"`
}

// CreateSession opens a tool-router session (POST /tool_router/session).
func (c *Client) CreateSession(ctx context.Context, req SessionRequest) (Session, error) {
	if strings.TrimSpace(req.UserID) == "" {
		return Session{}, fmt.Errorf("%w: create session: empty user id", ErrInvalidArgument)
	}
	body := map[string]any{"user_id": req.UserID}
	var toolkits []string
	for _, t := range req.Toolkits {
		if t = NormalizeToolkitSlug(t); t != "" {
			toolkits = append(toolkits, t)
		}
	}
	if len(toolkits) > 0 {
		body["toolkits"] = map[string][]string{"enable": toolkits}
	}
	var wire struct {
		SessionID string `json:"session_id"`
		MCP       struct {
			URL string `json:"url"`
		} `json:"mcp"`
		ToolRouterTools []string `json:"tool_router_tools"`
	}
	if err := c.do(ctx, request{method: "POST", path: "/tool_router/session", body: body}, &wire); err != nil {
		return Session{}, err
	}
	if wire.SessionID == "" {
		return Session{}, fmt.Errorf("%w: create session: response has no session_id", ErrInvalidResponse)
	}
	return Session{ID: wire.SessionID, MCPURL: wire.MCP.URL, ToolRouterTools: wire.ToolRouterTools}, nil
}

// SearchQuery is one task to find tools for.
type SearchQuery struct {
	UseCase     string `json:"use_case"`               // at most 1024 characters
	KnownFields string `json:"known_fields,omitempty"` // "k:v,k2:v2", at most 500 characters
}

// SearchResult is the tool router's answer to one query.
type SearchResult struct {
	Index             int                 `json:"index"`
	UseCase           string              `json:"use_case"`
	PrimaryToolSlugs  []string            `json:"primary_tool_slugs"`
	RelatedToolSlugs  []string            `json:"related_tool_slugs"`
	Toolkits          []string            `json:"toolkits"`
	Difficulty        string              `json:"difficulty,omitempty"`
	ExecutionGuidance string              `json:"execution_guidance,omitempty"`
	KnownPitfalls     []string            `json:"known_pitfalls,omitempty"`
	Memory            map[string][]string `json:"memory,omitempty"`
	Error             string              `json:"error,omitempty"`
}

// SearchResponse is the answer to a session search. ToolSchemas maps slugs to the
// schema entries the router returned, kept as raw JSON.
type SearchResponse struct {
	Success     bool                       `json:"success"`
	Error       string                     `json:"error,omitempty"`
	Results     []SearchResult             `json:"results"`
	ToolSchemas map[string]json.RawMessage `json:"tool_schemas,omitempty"`
}

// SearchSession runs a semantic tool search in a session
// (POST /tool_router/session/{id}/search).
func (c *Client) SearchSession(ctx context.Context, sessionID string, queries []SearchQuery) (SearchResponse, error) {
	sessionID = strings.TrimSpace(sessionID)
	if sessionID == "" {
		return SearchResponse{}, fmt.Errorf("%w: search: empty session id", ErrInvalidArgument)
	}
	if len(queries) == 0 {
		return SearchResponse{}, fmt.Errorf("%w: search: no queries", ErrInvalidArgument)
	}
	queries = slices.Clone(queries)
	for i, q := range queries {
		if strings.TrimSpace(q.UseCase) == "" {
			return SearchResponse{}, fmt.Errorf("%w: search: query %d has an empty use case", ErrInvalidArgument, i)
		}
		if len(q.UseCase) > 1024 {
			queries[i].UseCase = truncateUTF8(q.UseCase, 1024)
		}
	}
	var wire struct {
		Success     bool                       `json:"success"`
		Error       json.RawMessage            `json:"error"`
		Results     []SearchResult             `json:"results"`
		ToolSchemas map[string]json.RawMessage `json:"tool_schemas"`
	}
	body := map[string]any{"queries": queries}
	if err := c.do(ctx, request{method: "POST", path: "/tool_router/session/" + url.PathEscape(sessionID) + "/search", body: body}, &wire); err != nil {
		return SearchResponse{}, err
	}
	return SearchResponse{Success: wire.Success, Error: c.redact(errorText(wire.Error)), Results: wire.Results, ToolSchemas: wire.ToolSchemas}, nil
}

type sessionEntry struct {
	id      string
	expires time.Time
}

// SearchActions is semantic search as a slug source: it asks the tool router for tools
// that fit query, limited to toolkits when given, and returns up to limit tool (action)
// slugs (0 means 10), primary slugs first, then related ones, without duplicates. It opens one tool-router
// session per toolkit set for Config.SearchUserID and reuses it for Config.AuthConfigTTL,
// opening a new one if the old one is gone.
func (c *Client) SearchActions(ctx context.Context, query string, toolkits []string, limit int) ([]string, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, fmt.Errorf("%w: search: empty query", ErrInvalidArgument)
	}
	if limit <= 0 {
		limit = 10
	}
	var norm []string
	for _, t := range toolkits {
		if t = NormalizeToolkitSlug(t); t != "" {
			norm = append(norm, t)
		}
	}
	slices.Sort(norm)
	norm = slices.Compact(norm)
	key := strings.Join(norm, ",")
	var resp SearchResponse
	for attempt := 0; ; attempt++ {
		id, err := c.session(ctx, key, norm)
		if err != nil {
			return nil, err
		}
		resp, err = c.SearchSession(ctx, id, []SearchQuery{{UseCase: query}})
		if err != nil && attempt == 0 && errors.Is(err, ErrNotFound) {
			c.sessMu.Lock()
			delete(c.sessions, key)
			c.sessMu.Unlock()
			continue
		}
		if err != nil {
			return nil, err
		}
		break
	}
	if !resp.Success && resp.Error != "" && len(resp.Results) == 0 {
		return nil, fmt.Errorf("composio: search: %s", c.redact(resp.Error))
	}
	var out []string
	seen := map[string]bool{}
	add := func(slugs []string) {
		for _, s := range slugs {
			s = NormalizeToolSlug(s)
			if s != "" && !seen[s] && len(out) < limit {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	for _, r := range resp.Results {
		add(r.PrimaryToolSlugs)
	}
	for _, r := range resp.Results {
		add(r.RelatedToolSlugs)
	}
	return out, nil
}

func (c *Client) session(ctx context.Context, key string, toolkits []string) (string, error) {
	c.sessMu.Lock()
	if e, ok := c.sessions[key]; ok && c.now().Before(e.expires) {
		c.sessMu.Unlock()
		return e.id, nil
	}
	c.sessMu.Unlock()
	s, err := c.CreateSession(ctx, SessionRequest{UserID: c.searchID, Toolkits: toolkits})
	if err != nil {
		return "", err
	}
	c.sessMu.Lock()
	c.sessions[key] = sessionEntry{id: s.ID, expires: c.now().Add(c.ttl)}
	c.sessMu.Unlock()
	return s.ID, nil
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
