package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// This file holds the input checks and normalisation shared by every store, so that the
// memory and PostgreSQL stores refuse the same input with the same sentinel errors.

// Page defaults and limits for ListApps and AppActions.
const (
	defaultPageLimit = 50
	maxPageLimit     = 1000
	defaultJobLimit  = 20
)

// emptyParameters is what an action without a parameter schema is stored with.
const emptyParameters = `{"type":"object","properties":{}}`

// normAppSlug returns an app slug in its stored form (lower_snake) or an ErrInvalid error.
// Letters, digits, '_' and '-' are allowed.
func normAppSlug(s string) (string, error) {
	return normSlug("app", s, strings.ToLower)
}

// normActionSlug returns an action slug in its stored form (UPPER_SNAKE) or an ErrInvalid
// error. Letters, digits, '_' and '-' are allowed.
func normActionSlug(s string) (string, error) {
	return normSlug("action", s, strings.ToUpper)
}

func normSlug(kind, s string, fold func(string) string) (string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", fmt.Errorf("%w: empty %s slug", ErrInvalid, kind)
	}
	if len(t) > MaxSlugLen {
		return "", fmt.Errorf("%w: %s slug %.40q... is %d bytes, longer than %d", ErrInvalid, kind, t, len(t), MaxSlugLen)
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			continue
		}
		return "", fmt.Errorf("%w: %s slug %q has a character other than letters, digits, '_' and '-'", ErrInvalid, kind, t)
	}
	return fold(t), nil
}

// checkText refuses a text field that is not valid UTF-8 or longer than max bytes. Like the
// other check helpers it returns an error without a sentinel; callers wrap it in ErrInvalid.
func checkText(what, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%s is %d bytes, longer than %d", what, len(s), max)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	// PostgreSQL text cannot hold NUL; refusing it here keeps both stores in agreement.
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%s contains a NUL byte", what)
	}
	return nil
}

// checkList refuses a list of short strings with an empty or over-long element.
func checkList(what string, list []string) error {
	for i, s := range list {
		if s == "" {
			return fmt.Errorf("%s[%d] is empty", what, i)
		}
		if err := checkText(fmt.Sprintf("%s[%d]", what, i), s, MaxNameLen); err != nil {
			return err
		}
	}
	return nil
}

// checkObject refuses raw JSON that is not a single JSON object of at most MaxSchemaLen bytes.
func checkObject(what string, raw json.RawMessage) error {
	if len(raw) > MaxSchemaLen {
		return fmt.Errorf("%s is %d bytes, longer than %d", what, len(raw), MaxSchemaLen)
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("%s is not a JSON object", what)
	}
	if !json.Valid(t) {
		return fmt.Errorf("%s is not valid JSON", what)
	}
	return checkJSONText(what, raw)
}

// checkJSONText refuses valid JSON whose text PostgreSQL cannot hold: bytes that are not
// UTF-8 (which encoding/json lets through) or a \u0000 escape, a NUL once decoded (which
// the classifier would copy into a parameter description). Both stores refuse it, so a
// row the memory store takes is never one that makes a PostgreSQL write fail.
func checkJSONText(what string, raw []byte) error {
	if !utf8.Valid(raw) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	if hasNULEscape(raw) {
		return fmt.Errorf("%s contains a NUL character (\\u0000)", what)
	}
	return nil
}

// hasNULEscape reports whether valid JSON raw holds a \u0000 escape. Backslashes appear
// only inside strings, where an escape starts at a backslash preceded by an even number of
// backslashes (`\\u0000` is a backslash and the text "u0000").
func hasNULEscape(raw []byte) bool {
	const esc = `\u0000`
	for off := 0; ; {
		i := bytes.Index(raw[off:], []byte(esc))
		if i < 0 {
			return false
		}
		i += off
		n := 0
		for j := i - 1; j >= 0 && raw[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return true
		}
		off = i + 1
	}
}

// cloneStrings returns a copy of list, or nil when it is empty.
func cloneStrings(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	return append([]string(nil), list...)
}

// cloneRaw returns a copy of raw, or nil when it is empty.
func cloneRaw(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}

func cloneBool(p *bool) *bool {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// normApp checks an app and returns its stored form: slug lower-cased, slices and raw JSON
// copied (empty ones nil), ActionCount and UpdatedAt zeroed (the store sets them).
func normApp(a App) (App, error) {
	slug, err := normAppSlug(a.Slug)
	if err != nil {
		return App{}, err
	}
	a.Slug = slug
	checks := []struct {
		what string
		s    string
		max  int
	}{
		{"display name", a.DisplayName, MaxNameLen},
		{"description", a.Description, MaxDescriptionLen},
		{"logo", a.Logo, MaxNameLen},
		{"status", a.Status, MaxNameLen},
		{"latest version", a.LatestVersion, MaxNameLen},
	}
	for _, c := range checks {
		if err := checkText(c.what, c.s, c.max); err != nil {
			return App{}, fmt.Errorf("%w: app %q: %v", ErrInvalid, slug, err)
		}
	}
	for _, l := range []struct {
		what string
		list []string
	}{{"categories", a.Categories}, {"auth schemes", a.AuthSchemes}, {"composio managed auth schemes", a.ComposioManagedAuthSchemes}} {
		if err := checkList(l.what, l.list); err != nil {
			return App{}, fmt.Errorf("%w: app %q: %v", ErrInvalid, slug, err)
		}
	}
	if a.TriggerCount < 0 {
		return App{}, fmt.Errorf("%w: app %q: negative trigger count", ErrInvalid, slug)
	}
	a.Categories = cloneStrings(a.Categories)
	a.AuthSchemes = cloneStrings(a.AuthSchemes)
	a.ComposioManagedAuthSchemes = cloneStrings(a.ComposioManagedAuthSchemes)
	if len(a.Triggers) == 0 {
		a.Triggers = nil
	} else {
		trs := make([]Trigger, len(a.Triggers))
		for i, tr := range a.Triggers {
			if tr.Slug == "" {
				return App{}, fmt.Errorf("%w: app %q: trigger %d has an empty slug", ErrInvalid, slug, i)
			}
			if err := checkText("trigger slug", tr.Slug, MaxSlugLen); err != nil {
				return App{}, fmt.Errorf("%w: app %q: %v", ErrInvalid, slug, err)
			}
			if err := checkText("trigger name", tr.Name, MaxNameLen); err != nil {
				return App{}, fmt.Errorf("%w: app %q trigger %q: %v", ErrInvalid, slug, tr.Slug, err)
			}
			if err := checkText("trigger description", tr.Description, MaxDescriptionLen); err != nil {
				return App{}, fmt.Errorf("%w: app %q trigger %q: %v", ErrInvalid, slug, tr.Slug, err)
			}
			if len(tr.Config) > 0 {
				if err := checkObject("trigger config", tr.Config); err != nil {
					return App{}, fmt.Errorf("%w: app %q trigger %q: %v", ErrInvalid, slug, tr.Slug, err)
				}
			}
			tr.Config = cloneRaw(tr.Config)
			trs[i] = tr
		}
		a.Triggers = trs
	}
	a.ActionCount = 0
	a.UpdatedAt = time.Time{}
	return a, nil
}

// normAction checks an action and returns its stored form: app slug lower-cased, action slug
// upper-cased, empty Parameters replaced by an empty object schema, slices and raw JSON
// copied (empty ones nil), UpdatedAt zeroed (the store sets it).
func normAction(a Action) (Action, error) {
	slug, err := normActionSlug(a.Slug)
	if err != nil {
		return Action{}, err
	}
	a.Slug = slug
	if a.App == "" {
		return Action{}, fmt.Errorf("%w: action %q: empty app", ErrInvalid, slug)
	}
	app, err := normAppSlug(a.App)
	if err != nil {
		return Action{}, fmt.Errorf("%w (in action %q)", err, slug)
	}
	a.App = app
	for _, c := range []struct {
		what string
		s    string
		max  int
	}{
		{"display name", a.DisplayName, MaxNameLen},
		{"description", a.Description, MaxDescriptionLen},
		{"version", a.Version, MaxNameLen},
		{"parameters fidelity", a.Fidelity, MaxNameLen},
		{"source", a.Source, MaxNameLen},
	} {
		if err := checkText(c.what, c.s, c.max); err != nil {
			return Action{}, fmt.Errorf("%w: action %q: %v", ErrInvalid, slug, err)
		}
	}
	if err := checkList("tags", a.Tags); err != nil {
		return Action{}, fmt.Errorf("%w: action %q: %v", ErrInvalid, slug, err)
	}
	if len(a.Parameters) == 0 {
		a.Parameters = json.RawMessage(emptyParameters)
	} else {
		if err := checkObject("parameters", a.Parameters); err != nil {
			return Action{}, fmt.Errorf("%w: action %q: %v", ErrInvalid, slug, err)
		}
		a.Parameters = cloneRaw(a.Parameters)
	}
	if len(a.Response) > 0 {
		if err := checkObject("response schema", a.Response); err != nil {
			return Action{}, fmt.Errorf("%w: action %q: %v", ErrInvalid, slug, err)
		}
	}
	a.Response = cloneRaw(a.Response)
	a.Tags = cloneStrings(a.Tags)
	a.Destructive = cloneBool(a.Destructive)
	a.ReadOnly = cloneBool(a.ReadOnly)
	a.UpdatedAt = time.Time{}
	return a, nil
}

// itemError reports a refused element of a Batch; ImportJSONL maps the index back to the
// line it read the element from.
type itemError struct {
	list  string // "apps" or "actions"
	index int
	err   error
}

func (e *itemError) Error() string { return fmt.Sprintf("%v (%s[%d])", e.err, e.list, e.index) }

func (e *itemError) Unwrap() error { return e.err }

// normBatch checks every part of a batch that does not depend on stored data and returns
// its stored form: slugs normalised, values copied. Duplicate app or action slugs (after
// normalisation) are refused with ErrConflict naming the slug. Whether each action's app
// exists is checked by checkActionApps against the store.
func normBatch(b Batch) (Batch, error) {
	var out Batch
	if len(b.Apps) > 0 {
		out.Apps = make([]App, len(b.Apps))
		seen := make(map[string]int, len(b.Apps))
		for i, a := range b.Apps {
			n, err := normApp(a)
			if err != nil {
				return Batch{}, &itemError{list: "apps", index: i, err: err}
			}
			if j, dup := seen[n.Slug]; dup {
				return Batch{}, fmt.Errorf("%w: app %q appears twice in the batch (apps[%d] and apps[%d])", ErrConflict, n.Slug, j, i)
			}
			seen[n.Slug] = i
			out.Apps[i] = n
		}
	}
	if len(b.Actions) > 0 {
		out.Actions = make([]Action, len(b.Actions))
		seen := make(map[string]int, len(b.Actions))
		for i, a := range b.Actions {
			n, err := normAction(a)
			if err != nil {
				return Batch{}, &itemError{list: "actions", index: i, err: err}
			}
			if j, dup := seen[n.Slug]; dup {
				return Batch{}, fmt.Errorf("%w: action %q appears twice in the batch (actions[%d] and actions[%d])", ErrConflict, n.Slug, j, i)
			}
			seen[n.Slug] = i
			out.Actions[i] = n
		}
	}
	var err error
	if out.DeleteApps, err = normSlugList("delete apps", b.DeleteApps, normAppSlug); err != nil {
		return Batch{}, err
	}
	if out.DeleteActions, err = normSlugList("delete actions", b.DeleteActions, normActionSlug); err != nil {
		return Batch{}, err
	}
	return out, nil
}

// batchSeq normalises the batches of one batchApplier write, refusing a slug that an
// earlier batch of the write already had, as normBatch refuses one repeated within a
// batch. Its zero value is ready; apps holds every app slug seen so far.
type batchSeq struct {
	apps, actions map[string]bool
}

// norm normalises b (see normBatch). Batches of a stream carry no deletions: their order
// against the upserts of other batches would be ambiguous.
func (s *batchSeq) norm(b Batch) (Batch, error) {
	if len(b.DeleteApps)+len(b.DeleteActions) > 0 {
		return Batch{}, fmt.Errorf("%w: a streamed write cannot delete", ErrInvalid)
	}
	nb, err := normBatch(b)
	if err != nil {
		return Batch{}, err
	}
	if s.apps == nil {
		s.apps, s.actions = map[string]bool{}, map[string]bool{}
	}
	for i, a := range nb.Apps {
		if s.apps[a.Slug] {
			return Batch{}, &itemError{list: "apps", index: i, err: fmt.Errorf("%w: app %q was in an earlier batch", ErrConflict, a.Slug)}
		}
	}
	for i, a := range nb.Actions {
		if s.actions[a.Slug] {
			return Batch{}, &itemError{list: "actions", index: i, err: fmt.Errorf("%w: action %q was in an earlier batch", ErrConflict, a.Slug)}
		}
	}
	for _, a := range nb.Apps {
		s.apps[a.Slug] = true
	}
	for _, a := range nb.Actions {
		s.actions[a.Slug] = true
	}
	return nb, nil
}

// normSlugList normalises a list of slugs to delete, dropping repeats.
func normSlugList(what string, list []string, norm func(string) (string, error)) ([]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(list))
	seen := make(map[string]bool, len(list))
	for i, s := range list {
		n, err := norm(s)
		if err != nil {
			return nil, fmt.Errorf("%w (%s[%d])", err, what, i)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// checkActionApps refuses a normalised batch with an action whose app is neither in the
// batch's Apps nor stored (stored reports whether an app is stored before the batch). An app
// the batch deletes and does not re-create counts as not stored.
func checkActionApps(b Batch, stored func(app string) bool) error {
	if len(b.Actions) == 0 {
		return nil
	}
	inBatch := make(map[string]bool, len(b.Apps))
	for _, a := range b.Apps {
		inBatch[a.Slug] = true
	}
	deleted := make(map[string]bool, len(b.DeleteApps))
	for _, s := range b.DeleteApps {
		deleted[s] = true
	}
	for i, a := range b.Actions {
		if inBatch[a.App] {
			continue
		}
		if deleted[a.App] {
			return &itemError{list: "actions", index: i, err: fmt.Errorf("%w: action %q belongs to app %q, which the batch deletes", ErrInvalid, a.Slug, a.App)}
		}
		if !stored(a.App) {
			return &itemError{list: "actions", index: i, err: fmt.Errorf("%w: action %q belongs to unknown app %q", ErrInvalid, a.Slug, a.App)}
		}
	}
	return nil
}

// batchActionApps lists the apps the batch's actions refer to that the batch itself does not
// create, each once: the apps a store must look up for checkActionApps.
func batchActionApps(b Batch) []string {
	inBatch := make(map[string]bool, len(b.Apps))
	for _, a := range b.Apps {
		inBatch[a.Slug] = true
	}
	var out []string
	for _, a := range b.Actions {
		if !inBatch[a.App] {
			inBatch[a.App] = true
			out = append(out, a.App)
		}
	}
	return out
}

// pageBounds checks limit and offset and applies the default and the maximum limit.
func pageBounds(limit, offset int) (int, int, error) {
	if limit < 0 || offset < 0 {
		return 0, 0, fmt.Errorf("%w: negative limit or offset", ErrInvalid)
	}
	if limit == 0 {
		limit = defaultPageLimit
	}
	if limit > maxPageLimit {
		limit = maxPageLimit
	}
	return limit, offset, nil
}

// checkWorkspace refuses an empty or over-long workspace ID.
func checkWorkspace(ws string) error {
	if strings.TrimSpace(ws) == "" {
		return fmt.Errorf("%w: empty workspace id", ErrInvalid)
	}
	if err := checkText("workspace id", ws, MaxSlugLen); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

// checkQueryText refuses a search or filter string that no stored text can hold: not
// UTF-8, a NUL byte, or longer than MaxDescriptionLen. Without it the memory store would
// answer such a query (with no match, or a match across the separators of its search
// text) where PostgreSQL refuses it.
func checkQueryText(what, s string) error {
	if err := checkText(what, s, MaxDescriptionLen); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

// checkAppQuery refuses an AppQuery whose strings no stored text can hold.
func checkAppQuery(q AppQuery) error {
	if err := checkQueryText("category", q.Category); err != nil {
		return err
	}
	if err := checkQueryText("search", q.Search); err != nil {
		return err
	}
	for i, h := range q.Hidden {
		if err := checkQueryText(fmt.Sprintf("hidden[%d]", i), h); err != nil {
			return err
		}
	}
	return nil
}

// checkActionsQuery refuses an AppActionsQuery whose workspace or search no stored text
// can hold. An empty workspace is allowed (every action enabled).
func checkActionsQuery(q AppActionsQuery) error {
	if q.WorkspaceID != "" {
		if err := checkWorkspace(q.WorkspaceID); err != nil {
			return err
		}
	}
	return checkQueryText("search", q.Search)
}

// normConnArgs checks a workspace and app pair and returns the app slug in stored form.
func normConnArgs(ws, app string) (string, error) {
	if err := checkWorkspace(ws); err != nil {
		return "", err
	}
	return normAppSlug(app)
}

// knownStatus reports whether s is one of the connection statuses.
func knownStatus(s ConnectionStatus) bool {
	switch s {
	case StatusAdded, StatusPending, StatusActive, StatusFailed:
		return true
	}
	return false
}

// knownJobEnd reports whether s is a status a finished sync job may have.
func knownJobEnd(s string) bool {
	switch s {
	case JobSucceeded, JobFailed, JobCancelled:
		return true
	}
	return false
}

// normEnabledActions normalises a SaveEnabledActions list: upper-cased, sorted, repeats
// dropped; nil stays nil (every action enabled) and an empty list stays empty (none).
func normEnabledActions(list []string) ([]string, error) {
	if list == nil {
		return nil, nil
	}
	out := make([]string, 0, len(list))
	seen := make(map[string]bool, len(list))
	for i, s := range list {
		n, err := normActionSlug(s)
		if err != nil {
			return nil, fmt.Errorf("%w (enabled actions[%d])", err, i)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// likeEscape escapes the LIKE metacharacters '%' and '_' (and the escape character '\')
// so that s matches literally in a LIKE pattern with ESCAPE '\'.
func likeEscape(s string) string {
	if !strings.ContainsAny(s, `%_\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c == '_' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// checkStats refuses statistics with an empty or over-long key or a value that is not JSON.
func checkStats(stats map[string]json.RawMessage) error {
	for k, v := range stats {
		if strings.TrimSpace(k) == "" {
			return fmt.Errorf("%w: empty stats key", ErrInvalid)
		}
		if err := checkText("stats key", k, MaxSlugLen); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		if len(v) > MaxSchemaLen {
			return fmt.Errorf("%w: stats %q value is %d bytes, longer than %d", ErrInvalid, k, len(v), MaxSchemaLen)
		}
		if len(bytes.TrimSpace(v)) == 0 || !json.Valid(v) {
			return fmt.Errorf("%w: stats %q value is not valid JSON", ErrInvalid, k)
		}
		if err := checkJSONText(fmt.Sprintf("stats %q value", k), v); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	return nil
}

// checkJobType refuses an empty or over-long sync job type.
func checkJobType(t string) error {
	if strings.TrimSpace(t) == "" {
		return fmt.Errorf("%w: empty sync job type", ErrInvalid)
	}
	if err := checkText("sync job type", t, MaxSlugLen); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

// checkJobEnd refuses a FinishSyncJob argument with a status that does not end a job,
// negative counts or an over-long error text.
func checkJobEnd(j SyncJob) error {
	if !knownJobEnd(j.Status) {
		return fmt.Errorf("%w: sync job %d: status %q does not finish a job (want %s, %s or %s)", ErrInvalid, j.ID, j.Status, JobSucceeded, JobFailed, JobCancelled)
	}
	if j.AppsSynced < 0 || j.ActionsSynced < 0 || j.ActionsDeleted < 0 {
		return fmt.Errorf("%w: sync job %d: negative count", ErrInvalid, j.ID)
	}
	if err := checkText("sync job error", j.Error, MaxDescriptionLen); err != nil {
		return fmt.Errorf("%w: sync job %d: %v", ErrInvalid, j.ID, err)
	}
	return nil
}

// normAssignment checks an assignment and returns its stored form (app lower-cased,
// CreatedAt zeroed: the store sets it). Agent IDs must be positive.
func normAssignment(a Assignment) (Assignment, error) {
	if a.AgentID <= 0 {
		return Assignment{}, fmt.Errorf("%w: agent id %d is not positive", ErrInvalid, a.AgentID)
	}
	s, err := normAppSlug(a.App)
	if err != nil {
		return Assignment{}, err
	}
	a.App = s
	if err := checkText("assignment type", a.Type, MaxSlugLen); err != nil {
		return Assignment{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	a.CreatedAt = time.Time{}
	return a, nil
}

// checkConnTarget refuses an unknown connection status or an over-long connection ID.
func checkConnTarget(to ConnectionStatus, connectedAccountID string) error {
	if !knownStatus(to) {
		return fmt.Errorf("%w: unknown connection status %q", ErrInvalid, to)
	}
	if err := checkText("connected account id", connectedAccountID, MaxNameLen); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

// checkConnFilter refuses a Connections filter with a workspace no connection can have
// (empty means every workspace) or an unknown status.
func checkConnFilter(ws string, list []ConnectionStatus) error {
	if ws != "" {
		if err := checkWorkspace(ws); err != nil {
			return err
		}
	}
	for _, s := range list {
		if !knownStatus(s) {
			return fmt.Errorf("%w: unknown connection status %q", ErrInvalid, s)
		}
	}
	return nil
}
