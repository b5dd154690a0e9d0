package composiotest

import (
	"bytes"
	"context"
	"fmt"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/composio"
)

// Store is what FromStore reads: the catalogue and the workspaces' connections.
// *cache.Memory and *cache.Postgres satisfy it.
type Store interface {
	cache.ActionLister
	ListApps(ctx context.Context, q cache.AppQuery) (cache.AppPage, error)
	Connections(ctx context.Context, workspaceID string, statuses ...cache.ConnectionStatus) ([]cache.Connection, error)
}

// FromStore returns the Option that makes a Server serve what st holds, so that a test
// host loads its catalogue once and the fake and the store agree: st's actions as tools
// (read through cache.ExportJSONL, as ReadCatalog reads a snapshot), st's apps as toolkits
// with their auth schemes, and, for each workspace named, a connected account per
// connection that has a ConnectedAccountID, under that id, for the workspace's Composio
// user (the workspace id, as executor.Scope's default), ACTIVE when the connection is
// active and INITIATED or FAILED otherwise. Executions still need handlers
// (Server.HandleExecute, Server.HandleAllExecute).
func FromStore(ctx context.Context, st Store, workspaces ...string) (Option, error) {
	var buf bytes.Buffer
	if _, err := cache.ExportJSONL(ctx, st, &buf); err != nil {
		return nil, fmt.Errorf("composiotest: from store: %w", err)
	}
	cat, err := ReadCatalog(&buf)
	if err != nil {
		return nil, err
	}
	for off := 0; ; {
		page, err := st.ListApps(ctx, cache.AppQuery{Limit: 1000, Offset: off})
		if err != nil {
			return nil, fmt.Errorf("composiotest: from store: apps: %w", err)
		}
		for _, a := range page.Apps {
			row := appRow{App: a.Slug, DisplayName: a.DisplayName, Description: a.Description, Categories: a.Categories,
				AuthSchemes: a.AuthSchemes, ComposioManagedAuthSchemes: a.ComposioManagedAuthSchemes, NoAuth: a.NoAuth,
				LatestVersion: a.LatestVersion}
			tk := row.toolkit(composio.NormalizeToolkitSlug(a.Slug))
			tk.Meta.ToolsCount = a.ActionCount
			cat.Toolkits = append(cat.Toolkits, tk) // after ReadCatalog's: replaces its toolkit
		}
		off += len(page.Apps)
		if len(page.Apps) == 0 || off >= page.Total {
			break
		}
	}
	var accounts []composio.ConnectedAccount
	for _, ws := range workspaces {
		conns, err := st.Connections(ctx, ws)
		if err != nil {
			return nil, fmt.Errorf("composiotest: from store: workspace %s connections: %w", ws, err)
		}
		for _, c := range conns {
			if c.ConnectedAccountID == "" {
				continue
			}
			status := composio.StatusInitiated
			switch c.Status {
			case cache.StatusActive:
				status = composio.StatusActive
			case cache.StatusFailed:
				status = composio.StatusFailed
			}
			accounts = append(accounts, composio.ConnectedAccount{ID: c.ConnectedAccountID, UserID: ws, Status: status,
				Toolkit: composio.ToolkitRef{Slug: c.App}})
		}
	}
	return func(s *Server) {
		WithCatalog(cat)(s)
		for _, a := range accounts {
			s.AddAccount(a)
		}
	}, nil
}
