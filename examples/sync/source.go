package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
)

// composioSource adapts a *composio.Client to cache.Source and cache.AccountSource. The
// two packages do not import each other; this is the few lines that join them.
type composioSource struct {
	c *composio.Client
}

var (
	_ cache.Source        = composioSource{}
	_ cache.AccountSource = composioSource{}
)

func (s composioSource) AppsPage(ctx context.Context, cursor string) (cache.SourceAppPage, error) {
	p, err := s.c.ToolkitsPage(ctx, composio.ToolkitFilter{}, cursor)
	if err != nil {
		return cache.SourceAppPage{}, transient(err)
	}
	out := cache.SourceAppPage{Next: p.NextCursor, Total: p.TotalItems, Apps: make([]cache.App, 0, len(p.Items))}
	for _, tk := range p.Items {
		out.Apps = append(out.Apps, appOf(tk))
	}
	return out, nil
}

func (s composioSource) ActionsPage(ctx context.Context, q cache.SourceActionQuery) (cache.SourceActionPage, error) {
	p, err := s.c.ToolsPage(ctx, composio.ToolFilter{Toolkits: q.Apps}, q.Cursor)
	if err != nil {
		return cache.SourceActionPage{}, transient(err)
	}
	out := cache.SourceActionPage{Next: p.NextCursor, Total: p.TotalItems, Actions: make([]cache.Action, 0, len(p.Items))}
	for _, t := range p.Items {
		out.Actions = append(out.Actions, actionOf(t))
	}
	return out, nil
}

func (s composioSource) AppActions(ctx context.Context, app string) ([]cache.Action, error) {
	tools, err := s.c.ToolkitTools(ctx, app)
	if err != nil {
		return nil, transient(err)
	}
	out := make([]cache.Action, 0, len(tools))
	for _, t := range tools {
		out = append(out, actionOf(t))
	}
	return out, nil
}

func (s composioSource) ConnectedAccounts(ctx context.Context, userID string, apps []string) ([]cache.SourceAccount, error) {
	accts, err := s.c.ListConnectedAccounts(ctx, composio.ConnectedAccountFilter{UserIDs: []string{userID}, Toolkits: apps})
	if err != nil {
		return nil, transient(err)
	}
	out := make([]cache.SourceAccount, 0, len(accts))
	for _, a := range accts {
		updated, _ := time.Parse(time.RFC3339, a.UpdatedAt) // zero when absent: ordering only
		out = append(out, cache.SourceAccount{ID: a.ID, App: a.Toolkit.Slug, Status: a.Status, UpdatedAt: updated})
	}
	return out, nil
}

// transient marks the errors worth another try later (rate limits, server errors) for the
// sync's own retries; the client has already retried them briefly.
func transient(err error) error {
	if errors.Is(err, composio.ErrRateLimited) || errors.Is(err, composio.ErrServer) {
		return fmt.Errorf("%w (%w)", err, cache.ErrTransient)
	}
	return err
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
		// A tool without its toolkit: the slug's first word is the best guess the sync can
		// make; the sync creates the app from it if the listing lacks it.
		a.App = strings.ToLower(strings.SplitN(t.Slug, "_", 2)[0])
	}
	return a
}
