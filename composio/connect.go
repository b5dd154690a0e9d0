package composio

import (
	"context"
	"fmt"
	"strings"
)

// StartConnection starts connecting a user to a toolkit: it finds or creates the toolkit's
// auth config (FindOrCreateAuthConfig, cached) and creates a hosted Connect Link on it
// (Link). It returns the new connected account's id, its status (INITIATED) and the URL to
// send the user to; callbackURL, optional, is where the user returns afterwards. For a
// toolkit that needs no auth it returns an error matching ErrNoAuthRequired.
//
// Its arguments and results are plain strings so that packages which do not import this
// one can declare the interface a *Client satisfies (executor.Connector does).
func (c *Client) StartConnection(ctx context.Context, userID, toolkit, callbackURL string) (accountID, status, redirectURL string, err error) {
	ac, err := c.FindOrCreateAuthConfig(ctx, toolkit)
	if err != nil {
		return "", "", "", err
	}
	conn, err := c.Link(ctx, LinkRequest{AuthConfigID: ac.ID, UserID: userID, CallbackURL: callbackURL})
	if err != nil {
		return "", "", "", err
	}
	if conn.ID == "" {
		return "", "", "", fmt.Errorf("%w: connect link for %s: response has no connected account id", ErrInvalidResponse, NormalizeToolkitSlug(toolkit))
	}
	return conn.ID, conn.Status, conn.RedirectURL, nil
}

// AccountStatus returns a connected account's status in upper case: ACTIVE, INITIATED,
// INITIALIZING, FAILED, EXPIRED, INACTIVE or REVOKED. A disabled account is INACTIVE
// whatever its stored status. An absent account is an error matching ErrNotFound.
func (c *Client) AccountStatus(ctx context.Context, accountID string) (string, error) {
	acct, err := c.ConnectedAccount(ctx, accountID)
	if err != nil {
		return "", err
	}
	if acct.IsDisabled {
		return StatusInactive, nil
	}
	return strings.ToUpper(acct.Status), nil
}
