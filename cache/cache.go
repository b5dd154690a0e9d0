package cache

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Sentinel errors. Both stores wrap these with %w; callers test with errors.Is.
var (
	// ErrNotFound reports that the app, action, connection or record asked for does not exist.
	ErrNotFound = errors.New("cache: not found")
	// ErrConflict reports a write that collides with existing data (a duplicate key).
	ErrConflict = errors.New("cache: conflict")
	// ErrInvalid reports input the store refuses: an empty slug, a schema that is not a JSON
	// object, a field over its size limit, an action whose app is unknown, and so on.
	ErrInvalid = errors.New("cache: invalid input")
	// ErrTransition reports a workspace connection status change that is not allowed.
	ErrTransition = errors.New("cache: illegal connection status transition")
	// ErrSyncRunning reports that another sync holds the sync lock.
	ErrSyncRunning = errors.New("cache: a sync is already running")
	// ErrPermission reports that the PostgreSQL role lacks a privilege the call needs
	// (SQLSTATE 42501): CREATE to apply a migration, or a table privilege.
	ErrPermission = errors.New("cache: permission denied")
	// ErrMigrationNeeded reports a PostgreSQL schema that lacks migrations this package
	// needs, opened with PostgresOptions.SkipMigrations. See Migrate.
	ErrMigrationNeeded = errors.New("cache: database schema needs migrations")
)

// Limits on stored fields. Longer input is refused with ErrInvalid.
const (
	MaxSlugLen        = 256
	MaxNameLen        = 1024
	MaxDescriptionLen = 64 << 10
	MaxSchemaLen      = 4 << 20
)

// App is a Composio toolkit.
type App struct {
	Slug                       string    `json:"slug"` // lower_snake, e.g. "gmail"
	DisplayName                string    `json:"display_name"`
	Description                string    `json:"description"`
	Logo                       string    `json:"logo,omitempty"`
	Categories                 []string  `json:"categories,omitempty"`
	AuthSchemes                []string  `json:"auth_schemes,omitempty"`
	ComposioManagedAuthSchemes []string  `json:"composio_managed_auth_schemes,omitempty"`
	NoAuth                     bool      `json:"no_auth"`
	ActionCount                int       `json:"action_count"`
	TriggerCount               int       `json:"trigger_count"`
	Status                     string    `json:"status,omitempty"`
	LatestVersion              string    `json:"latest_version,omitempty"`
	Triggers                   []Trigger `json:"triggers,omitempty"`
	UpdatedAt                  time.Time `json:"updated_at"`
}

// Trigger is an event source an app offers.
type Trigger struct {
	Slug        string          `json:"slug"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Config      json.RawMessage `json:"config,omitempty"`
}

// Action is one Composio tool. Parameters and Response are kept byte-exact.
type Action struct {
	App                string          `json:"app"`  // lower_snake app slug
	Slug               string          `json:"slug"` // UPPER_SNAKE, e.g. "GMAIL_SEND_EMAIL"
	DisplayName        string          `json:"display_name"`
	DisplayNameDerived bool            `json:"display_name_derived,omitempty"`
	Description        string          `json:"description"`
	Parameters         json.RawMessage `json:"parameters"`
	Response           json.RawMessage `json:"response,omitempty"`
	Tags               []string        `json:"tags,omitempty"`
	Version            string          `json:"version,omitempty"`
	Deprecated         bool            `json:"deprecated,omitempty"`
	NoAuth             bool            `json:"no_auth,omitempty"`
	// Destructive and ReadOnly are the catalogue's own flags (from Composio tags) when known;
	// nil when the source did not say.
	Destructive *bool `json:"destructive,omitempty"`
	ReadOnly    *bool `json:"read_only,omitempty"`
	// Fidelity and Source describe where a snapshot row came from; kept for round trips.
	Fidelity  string    `json:"parameters_fidelity,omitempty"`
	Source    string    `json:"source,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ActionMeta is what capability matching knows about an action. The classifier derives it
// whenever the action is written.
type ActionMeta struct {
	// Action is the action's slug (Action.Slug).
	Action       string   `json:"action"`
	App          string   `json:"app"`
	Capabilities []string `json:"capabilities"`
	Keywords     []string `json:"keywords"`
	Destructive  bool     `json:"destructive"`
	ReadOnly     bool     `json:"read_only"`
	Confidence   float64  `json:"confidence"`
	// Terms are the action's analysed search terms by field (see Classification).
	SlugTerms []string `json:"slug_terms,omitempty"`
	NameTerms []string `json:"name_terms,omitempty"`
	DescTerms []string `json:"desc_terms,omitempty"`
	// Params summarises the top-level parameters, required first, for matching and for the
	// parameter hints of hint.Build.
	Params []Param `json:"params,omitempty"`
}

// Param is a short summary of one top-level action parameter.
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Description string `json:"description,omitempty"` // short: first sentence, at most ~100 chars
}

// Classifier derives an action's metadata. Implementations must be safe for concurrent use
// and deterministic: the same action gives the same metadata.
type Classifier interface {
	Classify(a Action) ActionMeta
}

// SyncJob records one sync run.
type SyncJob struct {
	ID             int64     `json:"id"`
	Type           string    `json:"type"`   // "full", "incremental", "backfill"
	Status         string    `json:"status"` // "running", "succeeded", "failed", "cancelled"
	AppsSynced     int       `json:"apps_synced"`
	ActionsSynced  int       `json:"actions_synced"`
	ActionsDeleted int       `json:"actions_deleted"`
	StartedAt      time.Time `json:"started_at"`
	FinishedAt     time.Time `json:"finished_at,omitzero"`
	Error          string    `json:"error,omitempty"`
}

// Sync job statuses.
const (
	JobRunning   = "running"
	JobSucceeded = "succeeded"
	JobFailed    = "failed"
	JobCancelled = "cancelled"
)

// Assignment gives an agent the use of an app.
type Assignment struct {
	AgentID   int64     `json:"agent_id"`
	App       string    `json:"app"`
	Type      string    `json:"type"` // free-form, e.g. "composio"
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
}

// ConnectionStatus is the state of a workspace's connection to an app.
type ConnectionStatus string

// Connection statuses. A connection starts Added, moves to Pending while the user
// authorises it, then to Active or Failed. See CanTransition.
const (
	StatusAdded   ConnectionStatus = "added"
	StatusPending ConnectionStatus = "pending"
	StatusActive  ConnectionStatus = "active"
	StatusFailed  ConnectionStatus = "failed"
)

// CanTransition reports whether a connection may move from one status to another.
// Allowed: added->pending, added->active (apps without auth), pending->active,
// pending->failed, failed->pending (retry), active->pending (re-authorise).
// Moving to the same status is not a transition: CanTransition reports false, and
// Store.SetConnectionStatus treats it as a no-op (see there).
func CanTransition(from, to ConnectionStatus) bool {
	switch from {
	case StatusAdded:
		return to == StatusPending || to == StatusActive
	case StatusPending:
		return to == StatusActive || to == StatusFailed
	case StatusFailed:
		return to == StatusPending
	case StatusActive:
		return to == StatusPending
	}
	return false
}

// Connection is a workspace's connection to an app, as the host records it (not to be
// confused with composio.ConnectionRequest, the answer Composio gives when a connection
// starts, nor with composio.ConnectedAccount, Composio's own record of the account).
type Connection struct {
	WorkspaceID string           `json:"workspace_id"`
	App         string           `json:"app"`
	Status      ConnectionStatus `json:"status"`
	// ConnectedAccountID is the Composio connected account id ("ca_…") behind the connection:
	// the ID of composio.ConnectedAccount and composio.ConnectionRequest, and what the executor
	// sends as executor.RemoteRequest.ConnectedAccountID. Empty until the connection is
	// pending or active. (Its JSON name and database column stay "connection_id".)
	ConnectedAccountID string    `json:"connection_id,omitempty"`
	ConnectedAt        time.Time `json:"connected_at,omitzero"` // when it became active
	UpdatedAt          time.Time `json:"updated_at"`
}

// ToolConfig is a workspace's configuration of one app's actions.
type ToolConfig struct {
	WorkspaceID string `json:"workspace_id"`
	App         string `json:"app"`
	Enabled     bool   `json:"enabled"`
	// EnabledActions lists the enabled action slugs; nil means every action is enabled.
	EnabledActions []string  `json:"enabled_actions"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// Batch is a set of catalogue writes applied all-or-nothing by Store.Apply.
// Deletions run before upserts. Actions whose app is neither stored nor in Apps are refused.
type Batch struct {
	Apps          []App
	Actions       []Action
	DeleteApps    []string // deleting an app deletes its actions and metadata
	DeleteActions []string
}

// ApplyResult counts what Apply changed. Rows whose content did not change are counted as
// Unchanged and keep their UpdatedAt.
type ApplyResult struct {
	AppsWritten, AppsUnchanged, AppsDeleted          int
	ActionsWritten, ActionsUnchanged, ActionsDeleted int
}

// AppQuery selects apps for ListApps.
type AppQuery struct {
	Category string   // optional: exact category name, case-insensitive
	Search   string   // optional: substring of slug, display name or description, case-insensitive
	Hidden   []string // optional: internal app slugs to leave out
	Limit    int      // 0 means 50; at most 1000
	Offset   int
}

// AppPage is one page of apps, ordered by slug, with the total matching the query.
type AppPage struct {
	Apps  []App
	Total int
}

// ActionFilter selects actions for Actions.
type ActionFilter struct {
	Apps   []string // optional: only these apps
	Limit  int      // 0 means no limit
	Offset int
}

// AppActionsQuery selects one app's actions with their enabled state in a workspace.
type AppActionsQuery struct {
	App         string
	WorkspaceID string // optional: without it every action is enabled
	Search      string // optional: substring of slug, display name or description
	Limit       int    // 0 means 50; at most 1000
	Offset      int
}

// ActionState is an action with its enabled state in a workspace.
type ActionState struct {
	Action  Action
	Enabled bool
}

// ActionPage is one page of an app's actions, ordered by slug, with the total matching.
type ActionPage struct {
	Actions []ActionState
	Total   int
}

// Store is the catalogue and the permission data around it. Implementations are safe for
// concurrent use and return the sentinel errors above for the same cases.
type Store interface {
	// Apply writes a batch all-or-nothing, classifying every action written.
	Apply(ctx context.Context, b Batch) (ApplyResult, error)
	App(ctx context.Context, slug string) (App, error)
	ListApps(ctx context.Context, q AppQuery) (AppPage, error)
	AppTriggers(ctx context.Context, app string) ([]Trigger, error)
	Action(ctx context.Context, slug string) (Action, error)
	// Actions lists actions ordered by app then slug.
	Actions(ctx context.Context, f ActionFilter) ([]Action, error)
	AppActions(ctx context.Context, q AppActionsQuery) (ActionPage, error)
	// ActionMeta returns the metadata of every action of the given apps (all apps when
	// empty), ordered by app then action. The result may share memory with the store
	// (hint.Build calls this on every model turn, so stores avoid copying): callers must
	// not modify it.
	ActionMeta(ctx context.Context, apps []string) ([]ActionMeta, error)
	// Reclassify recomputes every action's metadata with c and stores it.
	Reclassify(ctx context.Context, c Classifier) (int, error)

	Stats(ctx context.Context) (map[string]json.RawMessage, error)
	PutStats(ctx context.Context, stats map[string]json.RawMessage) error
	StartSyncJob(ctx context.Context, jobType string) (SyncJob, error)
	FinishSyncJob(ctx context.Context, job SyncJob) error
	// SyncJobs lists jobs newest first; limit 0 means 20.
	SyncJobs(ctx context.Context, limit int) ([]SyncJob, error)

	AssignApp(ctx context.Context, a Assignment) error // upsert by (agent, app)
	UnassignApp(ctx context.Context, agentID int64, app string) error
	// AgentApps lists an agent's assignments, active or not, ordered by app.
	AgentApps(ctx context.Context, agentID int64) ([]Assignment, error)

	// AddConnection creates a connection in status added. A connection already there in
	// status added is returned as it is (adding twice is not an error); ErrConflict when
	// it exists in another status (adding would reset it: remove it first).
	AddConnection(ctx context.Context, workspaceID, app string) (Connection, error)
	// SetConnectionStatus moves a connection; ErrTransition when CanTransition says no.
	// connectedAccountID, when not empty, is stored with the change. Setting the status
	// the connection is already in is a no-op that returns it unchanged (no write) when
	// connectedAccountID is empty or the one recorded; it records connectedAccountID when
	// none is; and it fails with ErrConflict when another account is recorded (moving a
	// connection to another account goes through StatusPending).
	SetConnectionStatus(ctx context.Context, workspaceID, app string, to ConnectionStatus, connectedAccountID string) (Connection, error)
	RemoveConnection(ctx context.Context, workspaceID, app string) error
	Connection(ctx context.Context, workspaceID, app string) (Connection, error)
	// Connections lists a workspace's connections in any status, ordered by app. An empty
	// workspaceID lists every workspace's connections with the given status filter.
	Connections(ctx context.Context, workspaceID string, statuses ...ConnectionStatus) ([]Connection, error)

	// SaveEnabledActions sets a workspace's enabled actions for an app (nil: all enabled).
	// Every slug must be an action of the app.
	SaveEnabledActions(ctx context.Context, workspaceID, app string, actions []string) error
	SetAppEnabled(ctx context.Context, workspaceID, app string, enabled bool) error
	ToolConfig(ctx context.Context, workspaceID, app string) (ToolConfig, error)
	ToolConfigs(ctx context.Context, workspaceID string) ([]ToolConfig, error)
}

// ActionReader reads one stored action, as Store.Action does.
type ActionReader interface {
	Action(ctx context.Context, slug string) (Action, error)
}
