package cache

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Memory implements PluginStore.
var _ PluginStore = (*Memory)(nil)

// memPlugins holds a Memory's plugin data. The zero value is ready to use.
type memPlugins struct {
	mu       sync.RWMutex
	plugins  map[string]Plugin
	enabled  map[connKey]PluginEnablement // key: workspace, plugin slug
	assigned map[int64][]PluginAssignment // by agent, in priority order
}

func (m *memPlugins) init() {
	if m.plugins == nil {
		m.plugins = map[string]Plugin{}
		m.enabled = map[connKey]PluginEnablement{}
		m.assigned = map[int64][]PluginAssignment{}
	}
}

// PutPlugin creates or replaces a plugin. See PluginStore.
func (m *Memory) PutPlugin(ctx context.Context, p Plugin) (Plugin, error) {
	if err := ctx.Err(); err != nil {
		return Plugin{}, err
	}
	np, err := normPlugin(p)
	if err != nil {
		return Plugin{}, err
	}
	t := &m.plugins
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	np.CreatedAt, np.UpdatedAt = now(), now()
	if prev, ok := t.plugins[np.Slug]; ok {
		np.CreatedAt = prev.CreatedAt
		if np.WorkspaceID != "" {
			for k := range t.enabled {
				if k.app == np.Slug && k.ws != np.WorkspaceID {
					return Plugin{}, fmt.Errorf("%w: plugin %q is enabled in workspace %q; it cannot move to workspace %q", ErrConflict, np.Slug, k.ws, np.WorkspaceID)
				}
			}
		}
	}
	t.plugins[np.Slug] = np
	return copyPlugin(np), nil
}

// Plugin returns one plugin; ErrNotFound when there is none.
func (m *Memory) Plugin(ctx context.Context, slug string) (Plugin, error) {
	if err := ctx.Err(); err != nil {
		return Plugin{}, err
	}
	s, err := normPluginSlug(slug)
	if err != nil {
		return Plugin{}, err
	}
	t := &m.plugins
	t.mu.RLock()
	defer t.mu.RUnlock()
	p, ok := t.plugins[s]
	if !ok {
		return Plugin{}, fmt.Errorf("%w: plugin %q", ErrNotFound, s)
	}
	return copyPlugin(p), nil
}

// Plugins lists plugins ordered by slug. See PluginStore.
func (m *Memory) Plugins(ctx context.Context, q PluginQuery) (PluginPage, error) {
	if err := ctx.Err(); err != nil {
		return PluginPage{}, err
	}
	limit, offset, err := pageBounds(q.Limit, q.Offset)
	if err != nil {
		return PluginPage{}, err
	}
	if err := checkPluginQuery(q); err != nil {
		return PluginPage{}, err
	}
	search := strings.ToLower(q.Search)
	t := &m.plugins
	t.mu.RLock()
	var all []Plugin
	for _, p := range t.plugins {
		if pluginVisible(p, q.WorkspaceID) && matchPlugin(p, search) {
			all = append(all, p)
		}
	}
	t.mu.RUnlock()
	slices.SortFunc(all, func(a, b Plugin) int { return strings.Compare(a.Slug, b.Slug) })
	page := PluginPage{Plugins: []Plugin{}, Total: len(all)}
	for i := offset; i < len(all) && i < offset+limit; i++ {
		page.Plugins = append(page.Plugins, copyPlugin(all[i]))
	}
	return page, nil
}

// DeletePlugin deletes a plugin with its enablements and assignments. See PluginStore.
func (m *Memory) DeletePlugin(ctx context.Context, slug string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s, err := normPluginSlug(slug)
	if err != nil {
		return err
	}
	t := &m.plugins
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.plugins[s]; !ok {
		return fmt.Errorf("%w: plugin %q", ErrNotFound, s)
	}
	delete(t.plugins, s)
	for k := range t.enabled {
		if k.app == s {
			delete(t.enabled, k)
		}
	}
	t.unassign(func(a PluginAssignment) bool { return a.Plugin == s })
	return nil
}

// unassign removes the assignments drop selects and renumbers the rest; the caller holds
// the write lock.
func (t *memPlugins) unassign(drop func(PluginAssignment) bool) {
	for agent, list := range t.assigned {
		kept := slices.DeleteFunc(slices.Clone(list), drop)
		if len(kept) == len(list) {
			continue
		}
		if len(kept) == 0 {
			delete(t.assigned, agent)
			continue
		}
		for i := range kept {
			kept[i].Priority = i
		}
		t.assigned[agent] = kept
	}
}

// EnablePlugin enables a plugin for a workspace. See PluginStore.
func (m *Memory) EnablePlugin(ctx context.Context, workspaceID, slug, enabledBy string) (PluginEnablement, error) {
	if err := ctx.Err(); err != nil {
		return PluginEnablement{}, err
	}
	s, err := normEnableArgs(workspaceID, slug, enabledBy)
	if err != nil {
		return PluginEnablement{}, err
	}
	t := &m.plugins
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	p, ok := t.plugins[s]
	if !ok || !pluginVisible(p, workspaceID) {
		return PluginEnablement{}, fmt.Errorf("%w: plugin %q for workspace %q", ErrNotFound, s, workspaceID)
	}
	k := connKey{workspaceID, s}
	if e, ok := t.enabled[k]; ok {
		return e, nil
	}
	e := PluginEnablement{WorkspaceID: workspaceID, Plugin: s, EnabledBy: enabledBy, EnabledAt: now()}
	t.enabled[k] = e
	return e, nil
}

// DisablePlugin disables a plugin for a workspace. See PluginStore.
func (m *Memory) DisablePlugin(ctx context.Context, workspaceID, slug string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s, err := normEnableArgs(workspaceID, slug, "")
	if err != nil {
		return err
	}
	t := &m.plugins
	t.mu.Lock()
	defer t.mu.Unlock()
	k := connKey{workspaceID, s}
	if _, ok := t.enabled[k]; !ok {
		return fmt.Errorf("%w: plugin %q is not enabled in workspace %q", ErrNotFound, s, workspaceID)
	}
	delete(t.enabled, k)
	t.unassign(func(a PluginAssignment) bool { return a.Plugin == s && a.WorkspaceID == workspaceID })
	return nil
}

// EnabledPlugins lists a workspace's enabled plugins ordered by slug.
func (m *Memory) EnabledPlugins(ctx context.Context, workspaceID string) ([]PluginEnablement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkWorkspace(workspaceID); err != nil {
		return nil, err
	}
	t := &m.plugins
	t.mu.RLock()
	out := []PluginEnablement{}
	for k, e := range t.enabled {
		if k.ws == workspaceID {
			out = append(out, e)
		}
	}
	t.mu.RUnlock()
	slices.SortFunc(out, func(a, b PluginEnablement) int { return strings.Compare(a.Plugin, b.Plugin) })
	return out, nil
}

// SetAgentPlugins replaces an agent's plugin assignments. See PluginStore.
func (m *Memory) SetAgentPlugins(ctx context.Context, workspaceID string, agentID int64, slugs []string) ([]PluginAssignment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	list, err := normAssignArgs(workspaceID, agentID, slugs)
	if err != nil {
		return nil, err
	}
	t := &m.plugins
	t.mu.Lock()
	defer t.mu.Unlock()
	t.init()
	for _, s := range list {
		if _, ok := t.plugins[s]; !ok {
			return nil, fmt.Errorf("%w: plugin %q", ErrNotFound, s)
		}
		if _, ok := t.enabled[connKey{workspaceID, s}]; !ok {
			return nil, fmt.Errorf("%w: plugin %q in workspace %q (agent %d)", ErrPluginNotEnabled, s, workspaceID, agentID)
		}
	}
	at := now()
	out := make([]PluginAssignment, len(list))
	for i, s := range list {
		out[i] = PluginAssignment{AgentID: agentID, WorkspaceID: workspaceID, Plugin: s, Priority: i, AssignedAt: at}
	}
	if len(out) == 0 {
		delete(t.assigned, agentID)
	} else {
		t.assigned[agentID] = out
	}
	return slices.Clone(out), nil
}

// AgentPlugins lists an agent's plugin assignments by priority.
func (m *Memory) AgentPlugins(ctx context.Context, agentID int64) ([]PluginAssignment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	t := &m.plugins
	t.mu.RLock()
	defer t.mu.RUnlock()
	return append([]PluginAssignment{}, t.assigned[agentID]...), nil
}
