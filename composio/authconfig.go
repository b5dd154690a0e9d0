package composio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"time"
)

// AuthConfig is a toolkit's auth blueprint ("ac_…"). Its credentials are deliberately not
// decoded: they can hold client secrets.
type AuthConfig struct {
	ID                       string            `json:"id"`
	UUID                     string            `json:"uuid,omitempty"`
	Type                     string            `json:"type,omitempty"` // "default" or "custom"
	Toolkit                  ToolkitRef        `json:"toolkit"`
	Name                     string            `json:"name,omitempty"`
	AuthScheme               string            `json:"auth_scheme,omitempty"`
	IsComposioManaged        bool              `json:"is_composio_managed"`
	Status                   string            `json:"status,omitempty"` // "ENABLED" or "DISABLED"
	CreatedAt                string            `json:"created_at,omitempty"`
	LastUpdatedAt            string            `json:"last_updated_at,omitempty"`
	NoOfConnections          int               `json:"no_of_connections,omitempty"`
	RestrictToFollowingTools []string          `json:"restrict_to_following_tools,omitempty"`
	ExpectedInputFields      json.RawMessage   `json:"expected_input_fields,omitempty"`
	ToolAccessConfig         *ToolAccessConfig `json:"tool_access_config,omitempty"`
}

// ToolAccessConfig restricts which tools an auth config's connections may use.
type ToolAccessConfig struct {
	ToolsForConnectedAccountCreation []string `json:"tools_for_connected_account_creation,omitempty"`
	ToolsAvailableForExecution       []string `json:"tools_available_for_execution,omitempty"`
}

// AuthConfigFilter selects auth configs. The zero value selects every enabled one.
type AuthConfigFilter struct {
	Toolkits     []string // optional toolkit slugs, comma-joined
	ManagedOnly  bool     // sends is_composio_managed=true
	ShowDisabled bool     // sends show_disabled=true
	Search       string
	Limit        int // page size; 0 means Config.PageSize
}

func (f AuthConfigFilter) query() url.Values {
	q := url.Values{}
	joinComma(q, "toolkit_slug", f.Toolkits, NormalizeToolkitSlug)
	if f.ManagedOnly {
		q.Set("is_composio_managed", "true")
	}
	if f.ShowDisabled {
		q.Set("show_disabled", "true")
	}
	setIf(q, "search", f.Search)
	return q
}

// AuthConfigsPage returns one page of auth configs; cursor is "" for the first page.
func (c *Client) AuthConfigsPage(ctx context.Context, f AuthConfigFilter, cursor string) (Page[AuthConfig], error) {
	return getPage[AuthConfig](ctx, c, "/auth_configs", f.query(), f.Limit, cursor)
}

// AuthConfigs iterates over every auth config matching f, one page at a time.
func (c *Client) AuthConfigs(ctx context.Context, f AuthConfigFilter) iter.Seq2[AuthConfig, error] {
	return paginate(ctx, func(ctx context.Context, cursor string) (Page[AuthConfig], error) {
		return c.AuthConfigsPage(ctx, f, cursor)
	})
}

// ListAuthConfigs returns every auth config matching f.
func (c *Client) ListAuthConfigs(ctx context.Context, f AuthConfigFilter) ([]AuthConfig, error) {
	return collect(c.AuthConfigs(ctx, f))
}

// AuthConfig returns one auth config by id; an error matching ErrNotFound when absent.
func (c *Client) AuthConfig(ctx context.Context, id string) (AuthConfig, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return AuthConfig{}, fmt.Errorf("%w: empty auth config id", ErrInvalidArgument)
	}
	var out AuthConfig
	err := c.do(ctx, request{method: "GET", path: "/auth_configs/" + url.PathEscape(id)}, &out)
	return out, err
}

// DeleteAuthConfig deletes an auth config and forgets any cached lookup that returned it.
func (c *Client) DeleteAuthConfig(ctx context.Context, id string) error {
	id = strings.TrimSpace(id)
	if id == "" {
		return fmt.Errorf("%w: empty auth config id", ErrInvalidArgument)
	}
	if err := c.do(ctx, request{method: "DELETE", path: "/auth_configs/" + url.PathEscape(id)}, nil); err != nil {
		return err
	}
	c.authMu.Lock()
	for k, e := range c.authCache {
		if e.config.ID == id {
			delete(c.authCache, k)
		}
	}
	c.authMu.Unlock()
	return nil
}

// CreateAuthConfigRequest creates an auth config. With Custom nil the config uses
// Composio-managed auth.
type CreateAuthConfigRequest struct {
	Toolkit string // required toolkit slug
	Name    string // optional
	// Custom, when set, creates a config with the host's own credentials.
	Custom *CustomAuth
	// RestrictToTools optionally limits the config to these tool slugs.
	RestrictToTools []string
}

// CustomAuth is a custom auth config: a scheme and the host's credentials. Credentials is
// a JSON object (client_id, client_secret, …); it is sent as is and never logged.
type CustomAuth struct {
	AuthScheme  string          // "OAUTH2", "API_KEY", "BEARER_TOKEN", …
	Credentials json.RawMessage // a JSON object
}

// CreateAuthConfig creates an auth config (POST /auth_configs) and returns it.
func (c *Client) CreateAuthConfig(ctx context.Context, req CreateAuthConfigRequest) (AuthConfig, error) {
	toolkit := NormalizeToolkitSlug(req.Toolkit)
	if toolkit == "" {
		return AuthConfig{}, fmt.Errorf("%w: create auth config: empty toolkit slug", ErrInvalidArgument)
	}
	type authConfigBody struct {
		Type        string          `json:"type"`
		AuthScheme  string          `json:"authScheme,omitempty"`
		Name        string          `json:"name,omitempty"`
		Credentials json.RawMessage `json:"credentials,omitempty"`
		Restrict    []string        `json:"restrict_to_following_tools,omitempty"`
	}
	ac := authConfigBody{Type: "use_composio_managed_auth", Name: req.Name}
	for _, t := range req.RestrictToTools {
		ac.Restrict = append(ac.Restrict, NormalizeToolSlug(t))
	}
	if req.Custom != nil {
		if strings.TrimSpace(req.Custom.AuthScheme) == "" {
			return AuthConfig{}, fmt.Errorf("%w: create auth config: custom auth needs an auth scheme", ErrInvalidArgument)
		}
		creds, err := rawObject(req.Custom.Credentials)
		if err != nil {
			return AuthConfig{}, fmt.Errorf("%w: create auth config: credentials must be a JSON object", ErrInvalidArgument)
		}
		ac.Type, ac.AuthScheme, ac.Credentials = "use_custom_auth", strings.ToUpper(req.Custom.AuthScheme), creds
	}
	body := map[string]any{"toolkit": map[string]string{"slug": toolkit}, "auth_config": ac}
	var wire struct {
		Toolkit    ToolkitRef `json:"toolkit"`
		AuthConfig AuthConfig `json:"auth_config"`
	}
	if err := c.do(ctx, request{method: "POST", path: "/auth_configs", body: body}, &wire); err != nil {
		return AuthConfig{}, err
	}
	out := wire.AuthConfig
	if out.ID == "" {
		return AuthConfig{}, fmt.Errorf("%w: create auth config: response has no id", ErrInvalidResponse)
	}
	if out.Toolkit.Slug == "" {
		out.Toolkit = wire.Toolkit
	}
	if out.Status == "" {
		out.Status = "ENABLED"
	}
	return out, nil
}

type authEntry struct {
	config  AuthConfig
	noAuth  bool
	expires time.Time
}

type authCall struct {
	done   chan struct{}
	config AuthConfig
	err    error
}

// FindOrCreateAuthConfig returns the auth config to use for a toolkit: a cached one (kept
// Config.AuthConfigTTL, 1 hour by default), else the first enabled config listed for the
// toolkit (Composio-managed preferred), else a newly created Composio-managed one.
// Concurrent callers for the same toolkit share one lookup. For a NO_AUTH toolkit it
// returns ErrNoAuthRequired (also cached); for a toolkit with no config and no
// Composio-managed scheme, ErrNoManagedAuth. Failures are not cached.
func (c *Client) FindOrCreateAuthConfig(ctx context.Context, toolkit string) (AuthConfig, error) {
	toolkit = NormalizeToolkitSlug(toolkit)
	if toolkit == "" {
		return AuthConfig{}, fmt.Errorf("%w: empty toolkit slug", ErrInvalidArgument)
	}
	for {
		c.authMu.Lock()
		if e, ok := c.authCache[toolkit]; ok && c.now().Before(e.expires) {
			c.authMu.Unlock()
			if e.noAuth {
				return AuthConfig{}, fmt.Errorf("composio: auth config for %s: %w", toolkit, ErrNoAuthRequired)
			}
			return e.config, nil
		}
		call, ok := c.authInflight[toolkit]
		if !ok {
			call = &authCall{done: make(chan struct{})}
			c.authInflight[toolkit] = call
			c.authMu.Unlock()
			return c.leadAuthLookup(ctx, toolkit, call)
		}
		c.authMu.Unlock()
		select {
		case <-call.done:
		case <-ctx.Done():
			return AuthConfig{}, fmt.Errorf("composio: auth config for %s: %w", toolkit, ctx.Err())
		}
		// The lookup we waited for ended because its caller's context did, not ours:
		// look again (and lead if nobody else does).
		if call.err != nil && ctx.Err() == nil && (errors.Is(call.err, context.Canceled) || errors.Is(call.err, context.DeadlineExceeded)) {
			continue
		}
		return call.config, call.err
	}
}

// leadAuthLookup runs the lookup that concurrent callers for the same toolkit share.
func (c *Client) leadAuthLookup(ctx context.Context, toolkit string, call *authCall) (AuthConfig, error) {
	cfg, noAuth, err := c.resolveAuthConfig(ctx, toolkit)
	call.config, call.err = cfg, err
	if noAuth {
		call.err = fmt.Errorf("composio: auth config for %s: %w", toolkit, ErrNoAuthRequired)
	}
	c.authMu.Lock()
	delete(c.authInflight, toolkit)
	if err == nil {
		c.authCache[toolkit] = authEntry{config: cfg, noAuth: noAuth, expires: c.now().Add(c.ttl)}
	}
	c.authMu.Unlock()
	close(call.done)
	return call.config, call.err
}

// ForgetAuthConfig drops a toolkit's cached auth config, e.g. after the API said it no
// longer exists.
func (c *Client) ForgetAuthConfig(toolkit string) {
	c.authMu.Lock()
	delete(c.authCache, NormalizeToolkitSlug(toolkit))
	c.authMu.Unlock()
}

func (c *Client) resolveAuthConfig(ctx context.Context, toolkit string) (AuthConfig, bool, error) {
	var found *AuthConfig
	for ac, err := range c.AuthConfigs(ctx, AuthConfigFilter{Toolkits: []string{toolkit}}) {
		if err != nil {
			return AuthConfig{}, false, err
		}
		if ac.Status != "" && !strings.EqualFold(ac.Status, "ENABLED") {
			continue
		}
		if ac.Toolkit.Slug != "" && NormalizeToolkitSlug(ac.Toolkit.Slug) != toolkit {
			continue
		}
		if found == nil || (ac.IsComposioManaged && !found.IsComposioManaged) {
			a := ac
			found = &a
		}
	}
	if found != nil {
		return *found, false, nil
	}
	tk, err := c.Toolkit(ctx, toolkit, "")
	if err != nil {
		return AuthConfig{}, false, err
	}
	if tk.NeedsNoAuth() {
		return AuthConfig{}, true, nil
	}
	if len(tk.ComposioManagedAuthSchemes) == 0 {
		return AuthConfig{}, false, fmt.Errorf("composio: auth config for %s: %w", toolkit, ErrNoManagedAuth)
	}
	ac, err := c.CreateAuthConfig(ctx, CreateAuthConfigRequest{Toolkit: toolkit})
	if err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			return AuthConfig{}, false, err
		}
		return AuthConfig{}, false, fmt.Errorf("composio: auth config for %s: %w", toolkit, err)
	}
	return ac, false, nil
}
