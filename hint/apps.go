package hint

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
)

// resolveApps returns the candidate apps (lower case, sorted, unique) and, per app with a
// workspace configuration that limits its actions, the set of enabled action slugs.
//
// Order of resolution: Request.Apps when set, else the agent's active assignments, else
// (auto-inheritance) the apps connected to the workspace. With a workspace, apps not
// actively connected there are dropped, and apps the workspace disabled are dropped.
//
// It fails closed: when a read that decides what the agent may use fails (or the store
// panics in it), it returns no apps and the error, naming the read. Nothing is certainly
// allowed then: without the assignments any app may be one the agent lacks, without the
// connections any app may be unconnected, and without the tool configs any app or action
// may be disabled.
func (b *Builder) resolveApps(ctx context.Context, st Store, req Request) ([]string, map[string]map[string]bool, error) {
	var apps []string
	switch {
	case len(req.Apps) > 0:
		for _, a := range req.Apps {
			// A name that cannot be an app slug is dropped rather than sent to the store,
			// which would refuse the whole list and cost the hint every other app.
			if a = strings.ToLower(strings.TrimSpace(a)); validAppName(a) {
				apps = append(apps, a)
			}
		}
	case req.AgentID > 0:
		as, err := storeRead(func() ([]cache.Assignment, error) { return st.AgentApps(ctx, req.AgentID) })
		if err != nil {
			return nil, nil, fmt.Errorf("agent apps: %w", err)
		}
		for _, a := range as {
			if a.Active {
				apps = append(apps, strings.ToLower(a.App))
			}
		}
	}

	if req.WorkspaceID != "" {
		conns, err := storeRead(func() ([]cache.Connection, error) {
			return st.Connections(ctx, req.WorkspaceID, cache.StatusActive)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("workspace connections: %w", err)
		}
		connected := make([]string, 0, len(conns))
		for _, c := range conns {
			if c.Status == cache.StatusActive {
				connected = append(connected, strings.ToLower(c.App))
			}
		}
		if len(apps) == 0 && len(req.Apps) == 0 {
			apps = connected // auto-inheritance
		} else {
			apps = slices.DeleteFunc(apps, func(a string) bool { return !slices.Contains(connected, a) })
		}
	}
	slices.Sort(apps)
	apps = slices.Compact(apps)

	var enabled map[string]map[string]bool
	if req.WorkspaceID != "" && len(apps) > 0 {
		cfgs, err := storeRead(func() ([]cache.ToolConfig, error) { return st.ToolConfigs(ctx, req.WorkspaceID) })
		if err != nil {
			return nil, nil, fmt.Errorf("workspace tool configs: %w", err)
		}
		for _, c := range cfgs {
			app := strings.ToLower(c.App)
			if !slices.Contains(apps, app) {
				continue
			}
			if !c.Enabled {
				apps = slices.DeleteFunc(apps, func(a string) bool { return a == app })
				continue
			}
			if c.EnabledActions != nil {
				if enabled == nil {
					enabled = map[string]map[string]bool{}
				}
				set := make(map[string]bool, len(c.EnabledActions))
				for _, s := range c.EnabledActions {
					set[strings.ToUpper(s)] = true
				}
				enabled[app] = set
			}
		}
	}
	return apps, enabled, nil
}

// storeRead calls read, turning a panic in the store into an error.
func storeRead[T any](read func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store panicked: %v", r)
		}
	}()
	return read()
}

// filterEnabled drops actions a workspace configuration disabled. It does not modify metas.
func filterEnabled(metas []cache.ActionMeta, enabled map[string]map[string]bool) []cache.ActionMeta {
	if len(enabled) == 0 {
		return metas
	}
	out := make([]cache.ActionMeta, 0, len(metas))
	for _, m := range metas {
		if set, ok := enabled[strings.ToLower(m.App)]; ok && !set[strings.ToUpper(m.Action)] {
			continue
		}
		out = append(out, m)
	}
	return out
}

// validAppName reports whether s (lower case) can be an app slug: letters, digits, '_' and
// '-', at most cache.MaxSlugLen bytes.
func validAppName(s string) bool {
	if s == "" || len(s) > cache.MaxSlugLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
