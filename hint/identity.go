package hint

// Identity is who a hint, a resolution or a tool call is for. A host builds one per agent
// turn and passes it everywhere: [Identity.Request] makes the hint request,
// registry.Subject is this type, and executor.Scope embeds it. It is a plain value, safe to
// copy and to read from several goroutines.
//
// The ID types follow where each ID comes from. An agent is a row of the host's own
// database, so AgentID is the int64 its stores key assignments and permissions by (0: no
// agent). A workspace and a Composio user are names the host shares with other systems
// (Composio's user ids, workspace slugs or UUIDs), so they are strings, compared exactly
// ("": none). Each ID has this one type in every package, the stores included.
type Identity struct {
	// AgentID is the agent whose app assignments and platform permissions apply. Optional
	// when WorkspaceID or Apps is set.
	AgentID int64
	// WorkspaceID, when set, limits the apps to those the workspace has connected (active),
	// supplies them when the agent has no assignments, applies the workspace's enabled
	// actions, and chooses the connected account an action runs through. Optional.
	WorkspaceID string
	// UserID is the Composio user (entity) id the actions run as. Optional. Defaults to
	// WorkspaceID (see ComposioUserID). Hints do not depend on it.
	UserID string
	// Apps, when set, replaces the agent's app assignments. Names are matched in any case.
	// Optional.
	Apps []string
}

// ComposioUserID returns the Composio user the actions run as: UserID, or WorkspaceID
// when UserID is empty.
func (id Identity) ComposioUserID() string {
	if id.UserID != "" {
		return id.UserID
	}
	return id.WorkspaceID
}

// Request returns a chatbot-mode request for prompt on behalf of id; set RecipeMode on the
// result for a recipe step. The request's Apps shares id.Apps.
func (id Identity) Request(prompt string) Request {
	return Request{AgentID: id.AgentID, WorkspaceID: id.WorkspaceID, Prompt: prompt, Apps: id.Apps}
}

// Identity returns who r is for. UserID is empty: a request does not carry it.
func (r Request) Identity() Identity {
	return Identity{AgentID: r.AgentID, WorkspaceID: r.WorkspaceID, Apps: r.Apps}
}
