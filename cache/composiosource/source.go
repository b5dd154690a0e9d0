package composiosource

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
)

// ErrNoClient is returned by every method of a Source made without a client.
var ErrNoClient = errors.New("composiosource: no composio client")

// Source reads Composio's catalogue and connected accounts through a *composio.Client. It
// implements cache.Source and cache.AccountSource. It is safe for concurrent use (the
// sync's backfill calls it from several goroutines) and holds no state besides the client.
type Source struct {
	c *composio.Client
}

var (
	_ cache.Source        = (*Source)(nil)
	_ cache.AccountSource = (*Source)(nil)
)

// New returns a Source reading through c. The client's configuration (API key, retries,
// page size, logger) applies to every request. A nil c gives a Source whose methods
// return ErrNoClient.
func New(c *composio.Client) *Source {
	return &Source{c: c}
}

// AppsPage returns one page of Composio's toolkits as apps (GET /toolkits).
func (s *Source) AppsPage(ctx context.Context, cursor string) (cache.SourceAppPage, error) {
	if s == nil || s.c == nil {
		return cache.SourceAppPage{}, ErrNoClient
	}
	p, err := s.c.ToolkitsPage(ctx, composio.ToolkitFilter{}, cursor)
	if err != nil {
		return cache.SourceAppPage{}, wrap(ctx, "list apps", err)
	}
	out := cache.SourceAppPage{Next: p.NextCursor, Total: p.TotalItems, Apps: make([]cache.App, 0, len(p.Items))}
	for _, tk := range p.Items {
		out.Apps = append(out.Apps, appOf(tk))
	}
	return out, nil
}

// ActionsPage returns one page of Composio's tools as actions (GET /tools), restricted to
// q.Apps when it is not empty.
func (s *Source) ActionsPage(ctx context.Context, q cache.SourceActionQuery) (cache.SourceActionPage, error) {
	if s == nil || s.c == nil {
		return cache.SourceActionPage{}, ErrNoClient
	}
	p, err := s.c.ToolsPage(ctx, composio.ToolFilter{Toolkits: q.Apps}, q.Cursor)
	if err != nil {
		return cache.SourceActionPage{}, wrap(ctx, "list actions", err)
	}
	out := cache.SourceActionPage{Next: p.NextCursor, Total: p.TotalItems, Actions: make([]cache.Action, 0, len(p.Items))}
	for _, t := range p.Items {
		out.Actions = append(out.Actions, actionOf(t))
	}
	return out, nil
}

// AppActions returns every tool of one toolkit, with its input parameters, as actions.
func (s *Source) AppActions(ctx context.Context, app string) ([]cache.Action, error) {
	if s == nil || s.c == nil {
		return nil, ErrNoClient
	}
	tools, err := s.c.ToolkitTools(ctx, app)
	if err != nil {
		return nil, wrap(ctx, "list actions of "+app, err)
	}
	out := make([]cache.Action, 0, len(tools))
	for _, t := range tools {
		out = append(out, actionOf(t))
	}
	return out, nil
}

// ConnectedAccounts lists userID's connected accounts of apps, in any status.
func (s *Source) ConnectedAccounts(ctx context.Context, userID string, apps []string) ([]cache.SourceAccount, error) {
	if s == nil || s.c == nil {
		return nil, ErrNoClient
	}
	accts, err := s.c.ListConnectedAccounts(ctx, composio.ConnectedAccountFilter{UserIDs: []string{userID}, Toolkits: apps})
	if err != nil {
		return nil, wrap(ctx, "list connected accounts", err)
	}
	out := make([]cache.SourceAccount, 0, len(accts))
	for _, a := range accts {
		// A missing or unreadable time leaves UpdatedAt zero: it only orders accounts.
		updated, _ := time.Parse(time.RFC3339, a.UpdatedAt)
		out = append(out, cache.SourceAccount{ID: a.ID, App: a.Toolkit.Slug, Status: a.Status, UpdatedAt: updated})
	}
	return out, nil
}

// wrap names the operation and marks the failures worth another try later with
// cache.ErrTransient. The client has already retried those briefly; the sync waits longer.
// A failure caused by ctx ending is never transient: trying again cannot help.
func wrap(ctx context.Context, op string, err error) error {
	var tmp interface{ Temporary() bool }
	if ctx.Err() == nil && errors.As(err, &tmp) && tmp.Temporary() {
		return fmt.Errorf("composiosource: %s: %w (%w)", op, err, cache.ErrTransient)
	}
	return fmt.Errorf("composiosource: %s: %w", op, err)
}

func appOf(tk composio.Toolkit) cache.App {
	a := cache.App{
		Slug:                       tk.Slug,
		DisplayName:                tk.Name,
		Description:                tk.Meta.Description,
		Logo:                       tk.Meta.Logo,
		AuthSchemes:                tk.AuthSchemes,
		ComposioManagedAuthSchemes: tk.ComposioManagedAuthSchemes,
		NoAuth:                     tk.NoAuth,
		ActionCount:                tk.Meta.ToolsCount,
		TriggerCount:               tk.Meta.TriggersCount,
		LatestVersion:              tk.Meta.Version,
	}
	for _, c := range tk.Meta.Categories {
		if c.Name != "" {
			a.Categories = append(a.Categories, c.Name)
		}
	}
	return a
}

func actionOf(t composio.Tool) cache.Action {
	a := cache.Action{
		App:         t.Toolkit.Slug,
		Slug:        t.Slug,
		DisplayName: t.Name,
		Description: t.Description,
		Parameters:  t.InputParameters,
		Response:    t.OutputParameters,
		Tags:        t.Tags,
		Version:     t.Version,
		Deprecated:  t.IsDeprecated,
		NoAuth:      t.NoAuth,
	}
	// The MCP-style hint tags are the catalogue's own destructive and read-only flags;
	// without any hint tag the flags stay unknown.
	var hinted, destructive, readOnly bool
	for _, tag := range t.Tags {
		switch strings.ToLower(tag) {
		case "destructivehint":
			hinted, destructive = true, true
		case "readonlyhint":
			hinted, readOnly = true, true
		case "idempotenthint", "openworldhint", "updatehint":
			hinted = true
		}
	}
	if hinted {
		a.Destructive, a.ReadOnly = &destructive, &readOnly
	}
	if a.App == "" {
		// A tool without its toolkit: the slug's first word is the best guess there is; the
		// sync creates the app from it if the listing lacks it.
		a.App = strings.ToLower(strings.SplitN(t.Slug, "_", 2)[0])
	}
	return a
}
