package hint

import "fmt"

// noAppsReason says, in a sentence for the host, why req leaves no app to hint at.
// resolveApps found none; which of its sources applied follows from req alone.
func noAppsReason(req Request) string {
	ws := req.WorkspaceID
	switch {
	case len(req.Apps) > 0 && ws == "":
		return fmt.Sprintf("none of the request's apps %q is a valid app slug", req.Apps)
	case len(req.Apps) > 0:
		return fmt.Sprintf("none of the request's apps %q is actively connected and enabled in workspace %q", req.Apps, ws)
	case req.AgentID > 0 && ws == "":
		return fmt.Sprintf("agent %d has no active app assignment", req.AgentID)
	case req.AgentID > 0:
		return fmt.Sprintf("agent %d's active app assignments (its workspace's connections when it has none) leave no app actively connected and enabled in workspace %q", req.AgentID, ws)
	default:
		return fmt.Sprintf("workspace %q has no active connection to an enabled app", ws)
	}
}
