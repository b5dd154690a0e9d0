package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ErrPluginNotEnabled reports an agent plugin assignment that names a plugin its workspace
// has not enabled. Both stores return it for the same calls.
var ErrPluginNotEnabled = errors.New("cache: plugin not enabled for the workspace")

// Limits on plugins. Larger input is refused with ErrInvalid.
const (
	MaxPluginSkills   = 256
	MaxPluginCommands = 256
	MaxAgentPlugins   = 256 // plugins assigned to one agent
	// MaxTokenEstimate bounds a plugin's or a skill's token estimate: no context is
	// larger, and sums of such estimates stay far from overflowing.
	MaxTokenEstimate = 10_000_000
)

// Plugin is a marketplace plugin: a named bundle of skills (instructions an agent's context
// carries) and commands, with an estimate of the tokens it adds to a context.
type Plugin struct {
	Slug        string `json:"slug"` // lower case: letters, digits, '_' and '-'
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	Author      string `json:"author,omitempty"`
	Source      string `json:"source,omitempty"` // where it came from: "github", "s3", "local", …
	// WorkspaceID is empty for a global plugin, which every workspace may enable; otherwise
	// only that workspace sees and may enable it.
	WorkspaceID string          `json:"workspace_id,omitempty"`
	Skills      []PluginSkill   `json:"skills,omitempty"`
	Commands    []PluginCommand `json:"commands,omitempty"`
	// TokenEstimate is what the plugin's skills add to an agent's context, as estimated
	// when it was scanned. Not negative.
	TokenEstimate int `json:"token_estimate"`
	// Metadata is the rest of the content metadata (dependencies, …): a JSON object kept
	// byte-exact, or nil.
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// PluginSkill is one skill of a plugin.
type PluginSkill struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Content is the skill's instructions as they go into a context. Optional.
	Content string `json:"content,omitempty"`
	// TokenEstimate is the skill's share of the plugin's estimate, when known.
	TokenEstimate int `json:"token_estimate,omitempty"`
}

// PluginCommand is one command of a plugin.
type PluginCommand struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// PluginQuery selects plugins for Plugins.
type PluginQuery struct {
	// WorkspaceID, when set, lists the global plugins and that workspace's own; without it
	// only global plugins are listed.
	WorkspaceID string
	Search      string // optional: substring of slug, name or description, case-insensitive
	Limit       int    // 0 means 50; at most 1000
	Offset      int
}

// PluginPage is one page of plugins ordered by slug, with the total matching the query.
type PluginPage struct {
	Plugins []Plugin
	Total   int
}

// PluginEnablement records that a workspace enabled a plugin.
type PluginEnablement struct {
	WorkspaceID string    `json:"workspace_id"`
	Plugin      string    `json:"plugin"`
	EnabledBy   string    `json:"enabled_by,omitempty"`
	EnabledAt   time.Time `json:"enabled_at"`
}

// PluginAssignment gives an agent a plugin. Priority is the plugin's place in the agent's
// list, 0 first (highest).
type PluginAssignment struct {
	AgentID     int64     `json:"agent_id"`
	WorkspaceID string    `json:"workspace_id"`
	Plugin      string    `json:"plugin"`
	Priority    int       `json:"priority"`
	AssignedAt  time.Time `json:"assigned_at"`
}

// PluginStore keeps plugins, their enablement per workspace and their assignment to
// agents. *Memory and *Postgres implement it; cachetest.RunPlugins is its conformance
// suite. Implementations are safe for concurrent use and return the same sentinel errors
// for the same cases.
type PluginStore interface {
	// PutPlugin creates or replaces a plugin by slug (CreatedAt is kept on replace) and
	// returns it as stored. Moving a plugin into a workspace's scope while another
	// workspace has it enabled is ErrConflict.
	PutPlugin(ctx context.Context, p Plugin) (Plugin, error)
	// Plugin returns one plugin; ErrNotFound when there is none.
	Plugin(ctx context.Context, slug string) (Plugin, error)
	// Plugins lists plugins ordered by slug.
	Plugins(ctx context.Context, q PluginQuery) (PluginPage, error)
	// DeletePlugin deletes a plugin with its enablements and assignments; ErrNotFound when
	// there is none.
	DeletePlugin(ctx context.Context, slug string) error

	// EnablePlugin enables a plugin for a workspace. Enabling it again changes nothing and
	// returns the first enablement. ErrNotFound when the plugin does not exist or belongs
	// to another workspace.
	EnablePlugin(ctx context.Context, workspaceID, slug, enabledBy string) (PluginEnablement, error)
	// DisablePlugin disables a plugin for a workspace and removes it from the agents it
	// was assigned to there; ErrNotFound when it was not enabled.
	DisablePlugin(ctx context.Context, workspaceID, slug string) error
	// EnabledPlugins lists a workspace's enabled plugins ordered by slug.
	EnabledPlugins(ctx context.Context, workspaceID string) ([]PluginEnablement, error)

	// SetAgentPlugins replaces all of an agent's plugin assignments with slugs, in order,
	// duplicates dropped (the first stays), priorities 0, 1, 2, …, all in workspaceID.
	// Every plugin must exist (else ErrNotFound) and be enabled in the workspace (else
	// ErrPluginNotEnabled); on any error nothing changes. An empty list removes them all.
	SetAgentPlugins(ctx context.Context, workspaceID string, agentID int64, slugs []string) ([]PluginAssignment, error)
	// AgentPlugins lists an agent's assignments by priority.
	AgentPlugins(ctx context.Context, agentID int64) ([]PluginAssignment, error)
}

// normPluginSlug returns a plugin slug in its stored form (lower case) or an ErrInvalid
// error.
func normPluginSlug(s string) (string, error) {
	return normSlug("plugin", s, strings.ToLower)
}

// normPlugin checks a plugin and returns its stored form: slug lower-cased, slices and raw
// JSON copied (empty ones nil), times zeroed (the store sets them).
func normPlugin(p Plugin) (Plugin, error) {
	slug, err := normPluginSlug(p.Slug)
	if err != nil {
		return Plugin{}, err
	}
	p.Slug = slug
	if strings.TrimSpace(p.Name) == "" {
		return Plugin{}, fmt.Errorf("%w: plugin %q: empty name", ErrInvalid, slug)
	}
	invalid := func(err error) error { return fmt.Errorf("%w: plugin %q: %v", ErrInvalid, slug, err) }
	for _, c := range []struct {
		what string
		s    string
		max  int
	}{
		{"name", p.Name, MaxNameLen}, {"version", p.Version, MaxNameLen}, {"description", p.Description, MaxDescriptionLen},
		{"author", p.Author, MaxNameLen}, {"source", p.Source, MaxNameLen}, {"workspace id", p.WorkspaceID, MaxSlugLen},
	} {
		if err := checkText(c.what, c.s, c.max); err != nil {
			return Plugin{}, invalid(err)
		}
	}
	if p.TokenEstimate < 0 || p.TokenEstimate > MaxTokenEstimate {
		return Plugin{}, invalid(fmt.Errorf("token estimate %d is not between 0 and %d", p.TokenEstimate, MaxTokenEstimate))
	}
	if len(p.Skills) > MaxPluginSkills || len(p.Commands) > MaxPluginCommands {
		return Plugin{}, invalid(fmt.Errorf("more than %d skills or %d commands", MaxPluginSkills, MaxPluginCommands))
	}
	for i, s := range p.Skills {
		if strings.TrimSpace(s.Name) == "" || s.TokenEstimate < 0 || s.TokenEstimate > MaxTokenEstimate {
			return Plugin{}, invalid(fmt.Errorf("skill %d has an empty name or a token estimate not between 0 and %d", i, MaxTokenEstimate))
		}
		for _, c := range []struct{ what, s string }{{"skill name", s.Name}, {"skill description", s.Description}, {"skill content", s.Content}} {
			if err := checkText(c.what, c.s, MaxDescriptionLen); err != nil {
				return Plugin{}, invalid(err)
			}
		}
	}
	for i, c := range p.Commands {
		if strings.TrimSpace(c.Name) == "" {
			return Plugin{}, invalid(fmt.Errorf("command %d has an empty name", i))
		}
		if err := checkText("command", c.Name+c.Description, MaxDescriptionLen); err != nil {
			return Plugin{}, invalid(err)
		}
	}
	if len(p.Metadata) > 0 {
		if err := checkObject("metadata", p.Metadata); err != nil {
			return Plugin{}, invalid(err)
		}
	}
	p.Skills = clonePluginSlice(p.Skills)
	p.Commands = clonePluginSlice(p.Commands)
	p.Metadata = cloneRaw(p.Metadata)
	p.CreatedAt, p.UpdatedAt = time.Time{}, time.Time{}
	return p, nil
}

func clonePluginSlice[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// copyPlugin returns p with its own slices and raw JSON.
func copyPlugin(p Plugin) Plugin {
	p.Skills = clonePluginSlice(p.Skills)
	p.Commands = clonePluginSlice(p.Commands)
	p.Metadata = cloneRaw(p.Metadata)
	return p
}

// pluginVisible reports whether a workspace may see (and enable) a plugin.
func pluginVisible(p Plugin, workspaceID string) bool {
	return p.WorkspaceID == "" || p.WorkspaceID == workspaceID
}

// matchPlugin reports whether a plugin matches a lower-cased search string.
func matchPlugin(p Plugin, search string) bool {
	return search == "" || strings.Contains(searchText(p.Slug, p.Name, p.Description), search)
}

// normPluginList checks an assignment list and returns it normalised, duplicates dropped
// with the first kept.
func normPluginList(slugs []string) ([]string, error) {
	out := make([]string, 0, len(slugs))
	for _, s := range slugs {
		n, err := normPluginSlug(s)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) > MaxAgentPlugins {
		return nil, fmt.Errorf("%w: more than %d plugins for one agent", ErrInvalid, MaxAgentPlugins)
	}
	return out, nil
}

// checkAgentID refuses an agent id that is not positive.
func checkAgentID(id int64) error {
	if id <= 0 {
		return fmt.Errorf("%w: agent id %d is not positive", ErrInvalid, id)
	}
	return nil
}

// checkPluginQuery refuses a PluginQuery whose workspace or search no stored text can hold,
// as checkActionsQuery does for AppActions.
func checkPluginQuery(q PluginQuery) error {
	return checkActionsQuery(AppActionsQuery{WorkspaceID: q.WorkspaceID, Search: q.Search})
}

// normEnableArgs checks a workspace, a plugin slug and who enables it, and returns the slug
// in stored form.
func normEnableArgs(workspaceID, slug, enabledBy string) (string, error) {
	if err := checkWorkspace(workspaceID); err != nil {
		return "", err
	}
	if err := checkText("enabled by", enabledBy, MaxNameLen); err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return normPluginSlug(slug)
}

// normAssignArgs checks SetAgentPlugins' arguments and returns the normalised list.
func normAssignArgs(workspaceID string, agentID int64, slugs []string) ([]string, error) {
	if err := checkWorkspace(workspaceID); err != nil {
		return nil, err
	}
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	return normPluginList(slugs)
}
