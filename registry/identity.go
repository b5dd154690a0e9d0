package registry

import "strings"

// ComposioApp is the slug of Composio's own toolkit, whose actions act on Composio itself
// (connections, triggers, other tools).
const ComposioApp = "composio"

// IdentityKeys returns the argument names that say who a call is made for: the Composio
// user (entity) and connected account, and the host's workspace and agent. Identity is the
// host's alone: the executor sends the real values beside the arguments and strips these
// keys from what a model writes, unless the tool's schema declares the key as its own
// data (see HostFilledParams). The slice is new on every call.
func IdentityKeys() []string {
	return []string{"user_id", "entity_id", "connected_account_id", "workspace_id", "agent_id"}
}

// HostFilledParams returns the identity keys that an action of app, when it declares them,
// takes from the host rather than from the model: all of them for Composio's own toolkit,
// whose user, entity and account parameters name Composio identities (an entity to run an
// agent as, an account to check); none for any other app, whose actions declare such names
// as their own data (a Gmail or Outlook mailbox user_id, a Clockify workspace_id, a Fibery
// entity_id). The resolver hides these parameters from the definitions it renders, and the
// executor strips them from the model's arguments and fills the user and entity from the
// scope, and the connected account from the workspace's connection to the toolkit the
// arguments name. The slice is new on every call; nil means none.
func HostFilledParams(app string) []string {
	if strings.EqualFold(strings.TrimSpace(app), ComposioApp) {
		return IdentityKeys()
	}
	return nil
}
