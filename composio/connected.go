package composio

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"time"
)

// Connected account statuses.
const (
	StatusInitializing = "INITIALIZING"
	StatusInitiated    = "INITIATED"
	StatusActive       = "ACTIVE"
	StatusFailed       = "FAILED"
	StatusExpired      = "EXPIRED"
	StatusInactive     = "INACTIVE"
	StatusRevoked      = "REVOKED" // v3.1
)

// ConnectedAccount is a user's credentials for one auth config ("ca_…"). The account's
// state (which can hold tokens) is deliberately not decoded.
type ConnectedAccount struct {
	ID           string        `json:"id"`
	UserID       string        `json:"user_id"`
	Status       string        `json:"status"`
	StatusReason string        `json:"status_reason,omitempty"`
	IsDisabled   bool          `json:"is_disabled"`
	CreatedAt    string        `json:"created_at,omitempty"`
	UpdatedAt    string        `json:"updated_at,omitempty"`
	Toolkit      ToolkitRef    `json:"toolkit"`
	AuthConfig   AccountConfig `json:"auth_config"`
}

// AccountConfig is the auth config a connected account belongs to.
type AccountConfig struct {
	ID                string `json:"id"`
	AuthScheme        string `json:"auth_scheme,omitempty"`
	IsComposioManaged bool   `json:"is_composio_managed"`
	IsDisabled        bool   `json:"is_disabled"`
}

// ConnectedAccountFilter selects connected accounts. List fields are sent as repeated
// query parameters.
type ConnectedAccountFilter struct {
	Toolkits       []string
	Statuses       []string
	UserIDs        []string
	AuthConfigIDs  []string
	IDs            []string // connected_account_ids
	OrderBy        string   // "created_at" or "updated_at"
	OrderDirection string   // "asc" or "desc"
	Limit          int      // page size; 0 means Config.PageSize
}

func (f ConnectedAccountFilter) query() url.Values {
	q := url.Values{}
	var toolkits, statuses []string
	for _, t := range f.Toolkits {
		toolkits = append(toolkits, NormalizeToolkitSlug(t))
	}
	for _, s := range f.Statuses {
		statuses = append(statuses, strings.ToUpper(strings.TrimSpace(s)))
	}
	addEach(q, "toolkit_slugs", toolkits)
	addEach(q, "statuses", statuses)
	addEach(q, "user_ids", f.UserIDs)
	addEach(q, "auth_config_ids", f.AuthConfigIDs)
	addEach(q, "connected_account_ids", f.IDs)
	setIf(q, "order_by", f.OrderBy)
	setIf(q, "order_direction", f.OrderDirection)
	return q
}

// ConnectedAccountsPage returns one page of connected accounts; cursor "" is the first.
func (c *Client) ConnectedAccountsPage(ctx context.Context, f ConnectedAccountFilter, cursor string) (Page[ConnectedAccount], error) {
	return getPage[ConnectedAccount](ctx, c, "/connected_accounts", f.query(), f.Limit, cursor)
}

// ConnectedAccounts iterates over every connected account matching f, one page at a time.
func (c *Client) ConnectedAccounts(ctx context.Context, f ConnectedAccountFilter) iter.Seq2[ConnectedAccount, error] {
	return paginate(ctx, func(ctx context.Context, cursor string) (Page[ConnectedAccount], error) {
		return c.ConnectedAccountsPage(ctx, f, cursor)
	})
}

// ListConnectedAccounts returns every connected account matching f.
func (c *Client) ListConnectedAccounts(ctx context.Context, f ConnectedAccountFilter) ([]ConnectedAccount, error) {
	return collect(c.ConnectedAccounts(ctx, f))
}

func accountPath(id string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return "", fmt.Errorf("%w: empty connected account id", ErrInvalidArgument)
	}
	return "/connected_accounts/" + url.PathEscape(id), nil
}

// ConnectedAccount returns one connected account; an error matching ErrNotFound when absent.
func (c *Client) ConnectedAccount(ctx context.Context, id string) (ConnectedAccount, error) {
	p, err := accountPath(id)
	if err != nil {
		return ConnectedAccount{}, err
	}
	var out ConnectedAccount
	err = c.do(ctx, request{method: "GET", path: p}, &out)
	return out, err
}

// DeleteConnectedAccount deletes a connected account.
func (c *Client) DeleteConnectedAccount(ctx context.Context, id string) error {
	p, err := accountPath(id)
	if err != nil {
		return err
	}
	return c.do(ctx, request{method: "DELETE", path: p}, nil)
}

// SetConnectedAccountEnabled enables or disables a connected account.
func (c *Client) SetConnectedAccountEnabled(ctx context.Context, id string, enabled bool) error {
	p, err := accountPath(id)
	if err != nil {
		return err
	}
	return c.do(ctx, request{method: "PATCH", path: p + "/status", body: map[string]bool{"enabled": enabled}}, nil)
}

// ConnectionRequest is Composio's answer to starting (or refreshing) a connection: the
// connected account id, its status and, for OAuth or a Connect Link, the URL to send the
// user to. It is not the connection itself (that is a ConnectedAccount); the host records
// the workspace's connection in its own store as a cache.Connection.
type ConnectionRequest struct {
	// ID is the connected account id ("ca_…"), cache.Connection.ConnectedAccountID once recorded.
	ID          string
	Status      string
	RedirectURL string
	// LinkToken and ExpiresAt are set by Link.
	LinkToken string
	ExpiresAt string
}

// Connection is the former name of ConnectionRequest.
//
// Deprecated: use ConnectionRequest, which says what it is.
type Connection = ConnectionRequest

// InitiateRequest starts a connection for a user on an auth config.
type InitiateRequest struct {
	AuthConfigID string // required ("ac_…")
	UserID       string // required
	CallbackURL  string // optional: where the user returns after authorising
	// State, when set, is sent as connection.state: {"authScheme":…, "val":{…}}, e.g. an
	// API key. It holds secrets; it is sent as is and never logged.
	State json.RawMessage
	// ValidateCredentials asks the server to check credentials given in State.
	ValidateCredentials bool
}

// InitiateConnection creates a connected account (POST /connected_accounts). For OAuth it
// returns status INITIATED and the redirect URL; credentials given in State can make the
// account ACTIVE at once. Use WaitForConnection to wait until the user has authorised.
func (c *Client) InitiateConnection(ctx context.Context, req InitiateRequest) (ConnectionRequest, error) {
	if strings.TrimSpace(req.AuthConfigID) == "" || strings.TrimSpace(req.UserID) == "" {
		return ConnectionRequest{}, fmt.Errorf("%w: initiate connection needs an auth config id and a user id", ErrInvalidArgument)
	}
	conn := map[string]any{"user_id": req.UserID}
	if req.CallbackURL != "" {
		conn["callback_url"] = req.CallbackURL
	}
	if len(req.State) > 0 {
		st, err := rawObject(req.State)
		if err != nil {
			return ConnectionRequest{}, fmt.Errorf("%w: initiate connection: state must be a JSON object", ErrInvalidArgument)
		}
		conn["state"] = st
	}
	body := map[string]any{"auth_config": map[string]string{"id": req.AuthConfigID}, "connection": conn}
	if req.ValidateCredentials {
		body["validate_credentials"] = true
	}
	var wire struct {
		ID             string `json:"id"`
		Status         string `json:"status"`
		RedirectURL    string `json:"redirect_url"`
		RedirectURI    string `json:"redirect_uri"`
		ConnectionData struct {
			Val struct {
				Status      string `json:"status"`
				RedirectURL string `json:"redirectUrl"`
			} `json:"val"`
		} `json:"connectionData"`
	}
	if err := c.do(ctx, request{method: "POST", path: "/connected_accounts", body: body}, &wire); err != nil {
		return ConnectionRequest{}, err
	}
	if wire.ID == "" {
		return ConnectionRequest{}, fmt.Errorf("%w: initiate connection: response has no id", ErrInvalidResponse)
	}
	out := ConnectionRequest{ID: wire.ID, Status: cmp.Or(wire.ConnectionData.Val.Status, wire.Status),
		RedirectURL: cmp.Or(wire.ConnectionData.Val.RedirectURL, wire.RedirectURL, wire.RedirectURI)}
	return out, nil
}

// LinkRequest creates a hosted Connect Link.
type LinkRequest struct {
	AuthConfigID string // required
	UserID       string // required
	CallbackURL  string // optional
	Alias        string // optional (v3.1)
}

// Link creates a hosted "Connect Link" (POST /connected_accounts/link). The result's
// status is INITIATED and RedirectURL is the link to give the user.
func (c *Client) Link(ctx context.Context, req LinkRequest) (ConnectionRequest, error) {
	if strings.TrimSpace(req.AuthConfigID) == "" || strings.TrimSpace(req.UserID) == "" {
		return ConnectionRequest{}, fmt.Errorf("%w: link needs an auth config id and a user id", ErrInvalidArgument)
	}
	body := map[string]string{"auth_config_id": req.AuthConfigID, "user_id": req.UserID}
	if req.CallbackURL != "" {
		body["callback_url"] = req.CallbackURL
	}
	if req.Alias != "" {
		body["alias"] = req.Alias
	}
	var wire struct {
		LinkToken          string `json:"link_token"`
		RedirectURL        string `json:"redirect_url"`
		ExpiresAt          string `json:"expires_at"`
		ConnectedAccountID string `json:"connected_account_id"`
	}
	if err := c.do(ctx, request{method: "POST", path: "/connected_accounts/link", body: body}, &wire); err != nil {
		return ConnectionRequest{}, err
	}
	return ConnectionRequest{ID: wire.ConnectedAccountID, Status: StatusInitiated, RedirectURL: wire.RedirectURL,
		LinkToken: wire.LinkToken, ExpiresAt: wire.ExpiresAt}, nil
}

// RefreshConnection re-runs the authorisation of a connected account
// (POST /connected_accounts/{id}/refresh); redirectURL is optional.
func (c *Client) RefreshConnection(ctx context.Context, id, redirectURL string) (ConnectionRequest, error) {
	p, err := accountPath(id)
	if err != nil {
		return ConnectionRequest{}, err
	}
	body := map[string]any{}
	if redirectURL != "" {
		body["redirect_url"] = redirectURL
	}
	var wire struct {
		ID          string `json:"id"`
		Status      string `json:"status"`
		RedirectURL string `json:"redirect_url"`
	}
	if err := c.do(ctx, request{method: "POST", path: p + "/refresh", body: body}, &wire); err != nil {
		return ConnectionRequest{}, err
	}
	return ConnectionRequest{ID: cmp.Or(wire.ID, strings.TrimSpace(id)), Status: wire.Status, RedirectURL: wire.RedirectURL}, nil
}

// WaitForConnection polls a connected account every interval (0 means 1 s) until it is
// ACTIVE, and returns it. It stops with an error matching ErrAccountFailed when the
// account reaches FAILED, EXPIRED, INACTIVE or REVOKED, and with the context's error
// when ctx ends first: bound the wait with a deadline.
func (c *Client) WaitForConnection(ctx context.Context, id string, interval time.Duration) (ConnectedAccount, error) {
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		acct, err := c.ConnectedAccount(ctx, id)
		if err != nil {
			return ConnectedAccount{}, err
		}
		switch strings.ToUpper(acct.Status) {
		case StatusActive:
			return acct, nil
		case StatusFailed, StatusExpired, StatusInactive, StatusRevoked:
			return acct, fmt.Errorf("composio: connected account %s is %s: %w", acct.ID, acct.Status, ErrAccountFailed)
		}
		select {
		case <-ctx.Done():
			return acct, fmt.Errorf("composio: waiting for connected account %s (status %s): %w", acct.ID, acct.Status, ctx.Err())
		case <-t.C:
		}
	}
}
