package hint

import (
	"context"
	"slices"
	"strings"

	"github.com/toolhint/toolhint/cache"
)

// resolveApps returns the candidate apps (lower case, sorted, unique) and, per app with a
// workspace configuration that limits its actions, the set of enabled action slugs.
//
// Order of resolution: Request.Apps when set, else the agent's active assignments, else
// (auto-inheritance) the apps connected to the workspace. With a workspace, apps not
// actively connected there are dropped, and apps the workspace disabled are dropped. A store
// call that fails is logged and skipped: the hint is advisory, and execution checks
// permissions again.
func (b *Builder) resolveApps(ctx context.Context, st Store, req Request) ([]string, map[string]map[string]bool) {
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
		as, err := st.AgentApps(ctx, req.AgentID)
		if err != nil {
			b.warn(ctx, req, "agent apps", err)
		}
		for _, a := range as {
			if a.Active {
				apps = append(apps, strings.ToLower(a.App))
			}
		}
	}

	if req.WorkspaceID != "" {
		conns, err := st.Connections(ctx, req.WorkspaceID, cache.StatusActive)
		if err != nil {
			b.warn(ctx, req, "workspace connections", err)
		} else {
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
	}
	slices.Sort(apps)
	apps = slices.Compact(apps)

	var enabled map[string]map[string]bool
	if req.WorkspaceID != "" && len(apps) > 0 {
		cfgs, err := st.ToolConfigs(ctx, req.WorkspaceID)
		if err != nil {
			b.warn(ctx, req, "workspace tool configs", err)
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
	return apps, enabled
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
