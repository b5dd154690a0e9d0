package cache

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Memory is a Store held in process memory. It is the default for tests, examples and small
// programs; its contents are lost when the process exits.
//
// A Memory is safe for concurrent use. Reads of the catalogue take no lock: writers build a
// new immutable snapshot of what they change and swap it in, so ActionMeta and AppActions
// never wait for an import. Catalogue writes (Apply, Reclassify) are serialised, and run the
// classifier on up to GOMAXPROCS goroutines while holding the write turn.
//
// Values returned are the caller's, except the slices inside each ActionMeta, which are
// shared with the store and must be treated as read-only.
//
// The zero value is not usable; call NewMemory.
type Memory struct {
	wmu     sync.Mutex // serialises catalogue writers (Apply, Reclassify)
	catalog atomic.Pointer[memCatalog]
	classif atomic.Pointer[classifierBox]
	// lastKnow is the catalogue knowledge computed last, which a later snapshot of the same
	// version reuses (knowledge.go).
	lastKnow atomic.Pointer[CatalogKnowledge]

	mu          sync.RWMutex // guards the workspace data below
	stats       map[string]json.RawMessage
	jobs        []SyncJob // in ID order
	assignments map[assignKey]Assignment
	connections map[connKey]Connection
	configs     map[connKey]ToolConfig
	enabledSets map[connKey]map[string]bool // EnabledActions of configs as sets; immutable values

	syncSlot chan struct{} // the sync lock: holds a token while a sync runs (see LockSync)

	plugins memPlugins // plugins, enablements and assignments (plugins_memory.go)
	vectors memVectors // action vectors (vectors_memory.go)
	usage   memUsage   // workspaces' records of use (usage_memory.go)
}

type classifierBox struct{ c Classifier }

type assignKey struct {
	agent int64
	app   string
}

type connKey struct{ ws, app string }

// memCatalog is an immutable snapshot of the catalogue. Writers copy what they change.
type memCatalog struct {
	apps     map[string]*memApp
	appSlugs []string // sorted
	actions  map[string]*memAction

	// views memoises ActionMeta results for sets of apps (key: the sorted slugs joined by
	// ","), so repeated calls for the same agent share one read-only slice instead of
	// copying. It lives and dies with this snapshot; viewSize bounds what it holds.
	views    sync.Map
	viewSize atomic.Int64

	// know is the snapshot's CatalogKnowledge, computed on first read: a snapshot never
	// changes, so its knowledge is computed once and read whole. Snapshots that differ only
	// in action metadata (Reclassify) share it.
	know *memKnowledge
}

// memKnowledge is a snapshot's CatalogKnowledge, computed once.
type memKnowledge struct {
	once sync.Once
	k    CatalogKnowledge
}

// maxViewMetas bounds the metadata entries memoised in one snapshot's views (about
// 170 bytes each).
const maxViewMetas = 1 << 16

// memApp is one app with its actions. All fields are immutable once published.
type memApp struct {
	app     App          // ActionCount is len(actions)
	actions []*memAction // sorted by slug
	meta    []ActionMeta // parallel to actions; shared read-only with ActionMeta callers
	search  string       // lower-cased slug, display name and description
}

// memAction is one action. Immutable once published.
type memAction struct {
	a      Action
	meta   ActionMeta
	search string // lower-cased slug, display name and description
}

// NewMemory returns an empty in-memory store that classifies actions with
// NewClassifier(nil).
func NewMemory() *Memory {
	m := &Memory{
		stats:       make(map[string]json.RawMessage),
		assignments: make(map[assignKey]Assignment),
		connections: make(map[connKey]Connection),
		configs:     make(map[connKey]ToolConfig),
		enabledSets: make(map[connKey]map[string]bool),
		syncSlot:    make(chan struct{}, 1),
	}
	m.catalog.Store(&memCatalog{apps: map[string]*memApp{}, actions: map[string]*memAction{}, know: &memKnowledge{}})
	m.classif.Store(&classifierBox{NewClassifier(nil)})
	return m
}

// SetClassifier sets the classifier that later writes use; nil means NewClassifier(nil).
// Stored metadata is not recomputed: call Reclassify for that.
func (m *Memory) SetClassifier(c Classifier) {
	if c == nil {
		c = NewClassifier(nil)
	}
	m.classif.Store(&classifierBox{c})
}

func (m *Memory) classifier() Classifier { return m.classif.Load().c }

// now is the store's clock: UTC, microsecond precision (as PostgreSQL keeps it).
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func searchText(slug, name, desc string) string {
	return strings.ToLower(slug + "\x00" + name + "\x00" + desc)
}

// classify runs c on a stored-form action and pins the identity fields. The package's own
// classifier interns the terms in terms.
func classify(c Classifier, a Action, terms *termTable) ActionMeta {
	var meta ActionMeta
	if rc, ok := c.(*ruleClassifier); ok {
		meta = rc.classify(a, terms)
	} else {
		meta = c.Classify(a)
	}
	meta.Action = a.Slug
	meta.App = a.App
	return meta
}

// Apply writes a batch all-or-nothing. See Store.
func (m *Memory) Apply(ctx context.Context, b Batch) (ApplyResult, error) {
	if err := ctx.Err(); err != nil {
		return ApplyResult{}, err
	}
	nb, err := normBatch(b)
	if err != nil {
		return ApplyResult{}, err
	}
	m.wmu.Lock()
	defer m.wmu.Unlock()
	return m.write(ctx, nb)
}

// Memory implements batchApplier.
var _ batchApplier = (*Memory)(nil)

// applyBatches writes the batches produce hands over as one Apply would: each is checked
// as it comes (so that a refused row is reported against its own batch), and all are
// installed in one snapshot swap at the end, or none. See batchApplier.
func (m *Memory) applyBatches(ctx context.Context, produce func(apply func(Batch) error) error) (ApplyResult, error) {
	if err := ctx.Err(); err != nil {
		return ApplyResult{}, err
	}
	var (
		all Batch
		seq batchSeq
	)
	err := produce(func(b Batch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		nb, err := seq.norm(b)
		if err != nil {
			return err
		}
		c := m.catalog.Load()
		if err := checkActionApps(nb, func(app string) bool { _, ok := c.apps[app]; return ok || seq.apps[app] }); err != nil {
			return err
		}
		all.Apps = append(all.Apps, nb.Apps...)
		all.Actions = append(all.Actions, nb.Actions...)
		return nil
	})
	if err != nil {
		return ApplyResult{}, err
	}
	m.wmu.Lock()
	defer m.wmu.Unlock()
	return m.write(ctx, all)
}

// write applies a normalised batch. The caller holds wmu.
func (m *Memory) write(ctx context.Context, nb Batch) (ApplyResult, error) {
	cl := m.classifier()
	old := m.catalog.Load()
	if err := checkActionApps(nb, func(app string) bool { _, ok := old.apps[app]; return ok }); err != nil {
		return ApplyResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return ApplyResult{}, err
	}

	var res ApplyResult
	ts := now()
	apps := maps.Clone(old.apps)
	actions := old.actions
	cloned := false
	cloneActions := func() {
		if !cloned {
			actions = maps.Clone(old.actions)
			cloned = true
		}
	}
	// dirty lists the apps whose action lists must be rebuilt.
	dirty := make(map[string]bool)
	appsChanged := false

	for _, s := range nb.DeleteApps {
		if _, ok := apps[s]; !ok {
			continue
		}
		delete(apps, s)
		appsChanged = true
		res.AppsDeleted++
		cloneActions()
		for slug, a := range actions {
			if a.a.App == s {
				delete(actions, slug)
				res.ActionsDeleted++
			}
		}
	}
	for _, s := range nb.DeleteActions {
		a, ok := actions[s]
		if !ok {
			continue
		}
		cloneActions()
		delete(actions, s)
		res.ActionsDeleted++
		dirty[a.a.App] = true
	}
	for _, a := range nb.Apps {
		prev, ok := apps[a.Slug]
		if ok && appEqual(prev.app, a) {
			res.AppsUnchanged++
			continue
		}
		a.UpdatedAt = ts
		e := &memApp{app: a, search: searchText(a.Slug, a.DisplayName, a.Description)}
		if ok {
			e.actions, e.meta = prev.actions, prev.meta
		} else {
			appsChanged = true
		}
		apps[a.Slug] = e
		dirty[a.Slug] = true
		res.AppsWritten++
	}
	// Find the actions that change, classify them (in parallel for big batches), then
	// install them.
	// changed is nb.Actions itself until an unchanged action is met: a fresh import does
	// not copy its actions once more.
	changed := nb.Actions
	for i, a := range nb.Actions {
		prev, ok := actions[a.Slug]
		if ok && actionEqual(prev.a, a) {
			if res.ActionsUnchanged == 0 {
				changed = nb.Actions[:i:i] // appends copy
			}
			res.ActionsUnchanged++
			continue
		}
		if res.ActionsUnchanged > 0 {
			changed = append(changed, a)
		}
	}
	metas, err := classifyAll(ctx, cl, changed)
	if err != nil {
		return ApplyResult{}, err
	}
	for i, a := range changed {
		prev, ok := actions[a.Slug]
		a.UpdatedAt = ts
		cloneActions()
		actions[a.Slug] = &memAction{a: a, meta: metas[i], search: searchText(a.Slug, a.DisplayName, a.Description)}
		res.ActionsWritten++
		dirty[a.App] = true
		if ok && prev.a.App != a.App {
			dirty[prev.a.App] = true
		}
	}
	if err := ctx.Err(); err != nil {
		return ApplyResult{}, err
	}
	if len(dirty) == 0 && !appsChanged && !cloned {
		return res, nil
	}

	next := &memCatalog{apps: apps, actions: actions, appSlugs: old.appSlugs, know: &memKnowledge{}}
	if appsChanged {
		next.appSlugs = slices.Sorted(maps.Keys(apps))
	}
	if len(dirty) > 0 {
		byApp := make(map[string][]*memAction, len(dirty))
		for _, a := range actions {
			if dirty[a.a.App] {
				byApp[a.a.App] = append(byApp[a.a.App], a)
			}
		}
		for app := range dirty {
			prev, ok := apps[app]
			if !ok {
				continue // deleted
			}
			e := *prev
			e.actions = byApp[app]
			slices.SortFunc(e.actions, func(x, y *memAction) int { return strings.Compare(x.a.Slug, y.a.Slug) })
			e.meta = make([]ActionMeta, len(e.actions))
			for i, a := range e.actions {
				e.meta[i] = a.meta
			}
			e.app.ActionCount = len(e.actions)
			apps[app] = &e
		}
	}
	m.catalog.Store(next)
	return res, nil
}

// classifyAll classifies actions with c, spreading big batches over GOMAXPROCS goroutines
// (Classifier implementations are safe for concurrent use). The terms of one call share
// strings (see termTable). It returns ctx.Err() when ctx is cancelled; every goroutine has
// finished when it returns.
func classifyAll(ctx context.Context, c Classifier, as []Action) ([]ActionMeta, error) {
	out := make([]ActionMeta, len(as))
	terms := &termTable{}
	workers := min(runtime.GOMAXPROCS(0), len(as)/256+1, 8)
	var next atomic.Int64
	var failed atomic.Pointer[error]
	const chunk = 128
	work := func() {
		i := -1
		defer func() {
			// A host's classifier that panics fails the write instead of the process.
			if r := recover(); r != nil {
				err := fmt.Errorf("cache: classifier panicked on action %q: %v", as[i].Slug, r)
				failed.CompareAndSwap(nil, &err)
			}
		}()
		for {
			start := int(next.Add(chunk)) - chunk
			if start >= len(as) || ctx.Err() != nil || failed.Load() != nil {
				return
			}
			for i = start; i < min(start+chunk, len(as)); i++ {
				out[i] = classify(c, as[i], terms)
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := failed.Load(); err != nil {
		return nil, *err
	}
	return out, nil
}

func appEqual(a, b App) bool {
	return a.Slug == b.Slug && a.DisplayName == b.DisplayName && a.Description == b.Description &&
		a.Logo == b.Logo && slices.Equal(a.Categories, b.Categories) &&
		slices.Equal(a.AuthSchemes, b.AuthSchemes) &&
		slices.Equal(a.ComposioManagedAuthSchemes, b.ComposioManagedAuthSchemes) &&
		a.NoAuth == b.NoAuth && a.TriggerCount == b.TriggerCount && a.Status == b.Status &&
		a.LatestVersion == b.LatestVersion &&
		slices.EqualFunc(a.Triggers, b.Triggers, func(x, y Trigger) bool {
			return x.Slug == y.Slug && x.Name == y.Name && x.Description == y.Description && bytes.Equal(x.Config, y.Config)
		})
}

func boolPtrEqual(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func actionEqual(a, b Action) bool {
	return a.App == b.App && a.Slug == b.Slug && a.DisplayName == b.DisplayName &&
		a.DisplayNameDerived == b.DisplayNameDerived && a.Description == b.Description &&
		bytes.Equal(a.Parameters, b.Parameters) && bytes.Equal(a.Response, b.Response) &&
		slices.Equal(a.Tags, b.Tags) && a.Version == b.Version && a.Deprecated == b.Deprecated &&
		a.NoAuth == b.NoAuth && boolPtrEqual(a.Destructive, b.Destructive) &&
		boolPtrEqual(a.ReadOnly, b.ReadOnly) && a.Fidelity == b.Fidelity && a.Source == b.Source
}

// copyApp returns a copy of a that shares no memory with the store.
func copyApp(a App) App {
	a.Categories = cloneStrings(a.Categories)
	a.AuthSchemes = cloneStrings(a.AuthSchemes)
	a.ComposioManagedAuthSchemes = cloneStrings(a.ComposioManagedAuthSchemes)
	if a.Triggers != nil {
		trs := make([]Trigger, len(a.Triggers))
		for i, t := range a.Triggers {
			t.Config = cloneRaw(t.Config)
			trs[i] = t
		}
		a.Triggers = trs
	}
	return a
}

// actionCopier copies actions out of the store, carving their raw JSON, tags and flags from
// one allocation each per call, so that a caller's edits never reach the store.
type actionCopier struct {
	buf   []byte
	tags  []string
	flags []bool
}

// newActionCopier returns a copier sized for the count actions at(0), ..., at(count-1).
func newActionCopier(count int, at func(i int) *Action) *actionCopier {
	n, t, f := 0, 0, 0
	for i := range count {
		a := at(i)
		n += len(a.Parameters) + len(a.Response)
		t += len(a.Tags)
		if a.Destructive != nil {
			f++
		}
		if a.ReadOnly != nil {
			f++
		}
	}
	return &actionCopier{buf: make([]byte, 0, n), tags: make([]string, 0, t), flags: make([]bool, 0, f)}
}

func (c *actionCopier) raw(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return nil
	}
	start := len(c.buf)
	c.buf = append(c.buf, r...)
	return json.RawMessage(c.buf[start:len(c.buf):len(c.buf)])
}

func (c *actionCopier) flag(p *bool) *bool {
	if p == nil {
		return nil
	}
	c.flags = append(c.flags, *p)
	return &c.flags[len(c.flags)-1]
}

func (c *actionCopier) copy(a Action) Action {
	a.Parameters = c.raw(a.Parameters)
	a.Response = c.raw(a.Response)
	if len(a.Tags) > 0 {
		start := len(c.tags)
		c.tags = append(c.tags, a.Tags...)
		a.Tags = c.tags[start:len(c.tags):len(c.tags)]
	}
	a.Destructive = c.flag(a.Destructive)
	a.ReadOnly = c.flag(a.ReadOnly)
	return a
}

// App returns one app; ErrNotFound when it is not stored.
func (m *Memory) App(ctx context.Context, slug string) (App, error) {
	if err := ctx.Err(); err != nil {
		return App{}, err
	}
	s, err := normAppSlug(slug)
	if err != nil {
		return App{}, err
	}
	e, ok := m.catalog.Load().apps[s]
	if !ok {
		return App{}, fmt.Errorf("%w: app %q", ErrNotFound, s)
	}
	return copyApp(e.app), nil
}

// ListApps returns one page of apps ordered by slug. See AppQuery.
func (m *Memory) ListApps(ctx context.Context, q AppQuery) (AppPage, error) {
	if err := ctx.Err(); err != nil {
		return AppPage{}, err
	}
	limit, offset, err := pageBounds(q.Limit, q.Offset)
	if err != nil {
		return AppPage{}, err
	}
	if err := checkAppQuery(q); err != nil {
		return AppPage{}, err
	}
	hidden := make(map[string]bool, len(q.Hidden))
	for _, h := range q.Hidden {
		hidden[strings.ToLower(strings.TrimSpace(h))] = true
	}
	search := strings.ToLower(q.Search)
	cat := strings.TrimSpace(q.Category) // as the PostgreSQL store: " Email " names the category Email
	c := m.catalog.Load()
	page := AppPage{Apps: []App{}}
	for _, s := range c.appSlugs {
		e := c.apps[s]
		if hidden[s] {
			continue
		}
		if cat != "" && !slices.ContainsFunc(e.app.Categories, func(x string) bool { return strings.EqualFold(x, cat) }) {
			continue
		}
		if search != "" && !strings.Contains(e.search, search) {
			continue
		}
		if page.Total >= offset && len(page.Apps) < limit {
			page.Apps = append(page.Apps, copyApp(e.app))
		}
		page.Total++
	}
	return page, nil
}

// AppTriggers returns an app's triggers; ErrNotFound when the app is not stored.
func (m *Memory) AppTriggers(ctx context.Context, app string) ([]Trigger, error) {
	a, err := m.App(ctx, app)
	if err != nil {
		return nil, err
	}
	if a.Triggers == nil {
		return []Trigger{}, nil
	}
	return a.Triggers, nil
}

// Action returns one action; ErrNotFound when it is not stored.
func (m *Memory) Action(ctx context.Context, slug string) (Action, error) {
	if err := ctx.Err(); err != nil {
		return Action{}, err
	}
	s, err := normActionSlug(slug)
	if err != nil {
		return Action{}, err
	}
	a, ok := m.catalog.Load().actions[s]
	if !ok {
		return Action{}, fmt.Errorf("%w: action %q", ErrNotFound, s)
	}
	return newActionCopier(1, func(int) *Action { return &a.a }).copy(a.a), nil
}

// Actions lists actions ordered by app then slug. See ActionFilter.
func (m *Memory) Actions(ctx context.Context, f ActionFilter) ([]Action, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.Limit < 0 || f.Offset < 0 {
		return nil, fmt.Errorf("%w: negative limit or offset", ErrInvalid)
	}
	c := m.catalog.Load()
	apps := c.appSlugs
	if len(f.Apps) > 0 {
		var err error
		if apps, err = normAppList(f.Apps); err != nil {
			return nil, err
		}
	}
	var sel []*memAction
	skip := f.Offset
	for _, s := range apps {
		e, ok := c.apps[s]
		if !ok {
			continue
		}
		as := e.actions
		if skip >= len(as) {
			skip -= len(as)
			continue
		}
		as = as[skip:]
		skip = 0
		if f.Limit > 0 && len(sel)+len(as) > f.Limit {
			as = as[:f.Limit-len(sel)]
		}
		sel = append(sel, as...)
		if f.Limit > 0 && len(sel) == f.Limit {
			break
		}
	}
	cp := newActionCopier(len(sel), func(i int) *Action { return &sel[i].a })
	out := make([]Action, len(sel))
	for i, a := range sel {
		out[i] = cp.copy(a.a)
	}
	return out, nil
}

// normAppList normalises app slugs, sorts them and drops repeats.
func normAppList(list []string) ([]string, error) {
	out := make([]string, 0, len(list))
	for _, s := range list {
		n, err := normAppSlug(s)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// AppActions returns one page of an app's actions with their enabled state in a workspace:
// an action is enabled when the workspace saved no list for the app (or saved nil) or when
// the saved list names it. The app-level switch (SetAppEnabled) is reported by ToolConfig,
// not here. ErrNotFound when the app is not stored. See AppActionsQuery.
func (m *Memory) AppActions(ctx context.Context, q AppActionsQuery) (ActionPage, error) {
	if err := ctx.Err(); err != nil {
		return ActionPage{}, err
	}
	app, err := normAppSlug(q.App)
	if err != nil {
		return ActionPage{}, err
	}
	limit, offset, err := pageBounds(q.Limit, q.Offset)
	if err != nil {
		return ActionPage{}, err
	}
	if err := checkActionsQuery(q); err != nil {
		return ActionPage{}, err
	}
	var enabled map[string]bool // nil: all enabled
	if q.WorkspaceID != "" {
		m.mu.RLock()
		enabled = m.enabledSets[connKey{q.WorkspaceID, app}]
		m.mu.RUnlock()
	}
	e, ok := m.catalog.Load().apps[app]
	if !ok {
		return ActionPage{}, fmt.Errorf("%w: app %q", ErrNotFound, app)
	}
	search := strings.ToLower(q.Search)
	var sel []*memAction
	total := 0
	for _, a := range e.actions {
		if search != "" && !strings.Contains(a.search, search) {
			continue
		}
		if total >= offset && len(sel) < limit {
			sel = append(sel, a)
		}
		total++
	}
	cp := newActionCopier(len(sel), func(i int) *Action { return &sel[i].a })
	page := ActionPage{Actions: make([]ActionState, len(sel)), Total: total}
	for i, a := range sel {
		page.Actions[i] = ActionState{Action: cp.copy(a.a), Enabled: enabled == nil || enabled[a.a.Slug]}
	}
	return page, nil
}

// ActionMeta returns the metadata of every action of the given apps (all apps when empty),
// ordered by app then action. Unknown apps contribute nothing. The slices inside each
// ActionMeta are shared with the store and must not be modified.
func (m *Memory) ActionMeta(ctx context.Context, apps []string) ([]ActionMeta, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := m.catalog.Load()
	var list []string
	if len(apps) == 0 {
		list = c.appSlugs
	} else {
		var buf [16]string
		list = buf[:0]
		for _, s := range apps {
			n, err := normAppSlug(s)
			if err != nil {
				return nil, err
			}
			list = append(list, n)
		}
		if !slices.IsSorted(list) {
			slices.Sort(list)
		}
		list = slices.Compact(list)
	}
	if len(list) == 1 {
		if e, ok := c.apps[list[0]]; ok {
			return e.meta[:len(e.meta):len(e.meta)], nil
		}
		return []ActionMeta{}, nil
	}
	key := strings.Join(list, ",")
	if v, ok := c.views.Load(key); ok {
		return v.([]ActionMeta), nil
	}
	n := 0
	for _, s := range list {
		if e, ok := c.apps[s]; ok {
			n += len(e.meta)
		}
	}
	out := make([]ActionMeta, 0, n)
	for _, s := range list {
		if e, ok := c.apps[s]; ok {
			out = append(out, e.meta...)
		}
	}
	if c.viewSize.Add(int64(n)) <= maxViewMetas {
		c.views.Store(key, out)
	} else {
		c.viewSize.Add(-int64(n))
	}
	return out, nil
}

// Reclassify recomputes every action's metadata with c (nil: the store's classifier) and
// stores it. It returns the number of actions classified. It does not change the classifier
// later writes use; see SetClassifier.
func (m *Memory) Reclassify(ctx context.Context, c Classifier) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if c == nil {
		c = m.classifier()
	}
	m.wmu.Lock()
	defer m.wmu.Unlock()
	old := m.catalog.Load()
	var all []Action
	for _, s := range old.appSlugs {
		for _, a := range old.apps[s].actions {
			in := a.a
			in.UpdatedAt = time.Time{}
			all = append(all, in)
		}
	}
	metas, err := classifyAll(ctx, c, all)
	if err != nil {
		return 0, err
	}
	next := &memCatalog{
		apps:     make(map[string]*memApp, len(old.apps)),
		actions:  make(map[string]*memAction, len(old.actions)),
		appSlugs: old.appSlugs,
		know:     old.know, // the classifier reads nothing the knowledge is made from
	}
	n := 0
	for _, slug := range old.appSlugs {
		e := old.apps[slug]
		ne := *e
		ne.actions = make([]*memAction, len(e.actions))
		ne.meta = make([]ActionMeta, len(e.actions))
		for i, a := range e.actions {
			na := *a
			na.meta = metas[n]
			ne.actions[i] = &na
			ne.meta[i] = na.meta
			next.actions[na.a.Slug] = &na
			n++
		}
		next.apps[slug] = &ne
	}
	m.catalog.Store(next)
	return n, nil
}

// Stats returns every stored statistic by key. The map is the caller's.
func (m *Memory) Stats(ctx context.Context) (map[string]json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string]json.RawMessage, len(m.stats))
	for k, v := range m.stats {
		out[k] = cloneRaw(v)
	}
	return out, nil
}

// PutStats stores statistics by key, replacing the keys given and keeping the others.
// Each value must be valid JSON.
func (m *Memory) PutStats(ctx context.Context, stats map[string]json.RawMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkStats(stats); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range stats {
		m.stats[k] = cloneRaw(v)
	}
	return nil
}

// StartSyncJob records a new running sync job of the given type and returns it.
func (m *Memory) StartSyncJob(ctx context.Context, jobType string) (SyncJob, error) {
	if err := ctx.Err(); err != nil {
		return SyncJob{}, err
	}
	if err := checkJobType(jobType); err != nil {
		return SyncJob{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	j := SyncJob{ID: int64(len(m.jobs) + 1), Type: jobType, Status: JobRunning, StartedAt: now()}
	m.jobs = append(m.jobs, j)
	return j, nil
}

// FinishSyncJob records the end of a running job: its status (succeeded, failed or
// cancelled), counts and error text. FinishedAt is set by the store. ErrNotFound when the
// job does not exist, ErrConflict when it has already finished.
func (m *Memory) FinishSyncJob(ctx context.Context, job SyncJob) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkJobEnd(job); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if job.ID < 1 || job.ID > int64(len(m.jobs)) {
		return fmt.Errorf("%w: sync job %d", ErrNotFound, job.ID)
	}
	j := &m.jobs[job.ID-1]
	if j.Status != JobRunning {
		return fmt.Errorf("%w: sync job %d is already %s", ErrConflict, job.ID, j.Status)
	}
	j.Status = job.Status
	j.AppsSynced, j.ActionsSynced, j.ActionsDeleted = job.AppsSynced, job.ActionsSynced, job.ActionsDeleted
	j.Error = job.Error
	j.FinishedAt = now()
	return nil
}

// SyncJobs lists sync jobs newest first; limit 0 means 20.
func (m *Memory) SyncJobs(ctx context.Context, limit int) ([]SyncJob, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit < 0 {
		return nil, fmt.Errorf("%w: negative limit", ErrInvalid)
	}
	if limit == 0 {
		limit = defaultJobLimit
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]SyncJob, 0, min(limit, len(m.jobs)))
	for i := len(m.jobs) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, m.jobs[i])
	}
	return out, nil
}

// AssignApp gives an agent the use of an app, or updates the assignment's type and active
// flag when it exists (CreatedAt is kept). The app need not be in the catalogue.
func (m *Memory) AssignApp(ctx context.Context, a Assignment) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	na, err := normAssignment(a)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := assignKey{na.AgentID, na.App}
	if prev, ok := m.assignments[k]; ok {
		na.CreatedAt = prev.CreatedAt
	} else {
		na.CreatedAt = now()
	}
	m.assignments[k] = na
	return nil
}

// UnassignApp removes an assignment; ErrNotFound when there is none.
func (m *Memory) UnassignApp(ctx context.Context, agentID int64, app string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s, err := normAppSlug(app)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := assignKey{agentID, s}
	if _, ok := m.assignments[k]; !ok {
		return fmt.Errorf("%w: agent %d app %q assignment", ErrNotFound, agentID, s)
	}
	delete(m.assignments, k)
	return nil
}

// AgentApps lists an agent's assignments, active or not, ordered by app.
func (m *Memory) AgentApps(ctx context.Context, agentID int64) ([]Assignment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	out := []Assignment{}
	for k, a := range m.assignments {
		if k.agent == agentID {
			out = append(out, a)
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(out, func(x, y Assignment) int { return strings.Compare(x.App, y.App) })
	return out, nil
}

// connArgs checks a workspace and app pair and returns it as a connections key.
func connArgs(ws, app string) (connKey, error) {
	s, err := normConnArgs(ws, app)
	if err != nil {
		return connKey{}, err
	}
	return connKey{ws, s}, nil
}

// AddConnection creates a connection in status added. See Store.
func (m *Memory) AddConnection(ctx context.Context, workspaceID, app string) (Connection, error) {
	if err := ctx.Err(); err != nil {
		return Connection{}, err
	}
	k, err := connArgs(workspaceID, app)
	if err != nil {
		return Connection{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.connections[k]; ok {
		if c.Status == StatusAdded {
			return c, nil
		}
		return Connection{}, fmt.Errorf("%w: workspace %q app %q connection exists in status %s", ErrConflict, k.ws, k.app, c.Status)
	}
	c := Connection{WorkspaceID: k.ws, App: k.app, Status: StatusAdded, UpdatedAt: now()}
	m.connections[k] = c
	return c, nil
}

// SetConnectionStatus moves a connection to another status. See Store.
func (m *Memory) SetConnectionStatus(ctx context.Context, workspaceID, app string, to ConnectionStatus, connectedAccountID string) (Connection, error) {
	if err := ctx.Err(); err != nil {
		return Connection{}, err
	}
	k, err := connArgs(workspaceID, app)
	if err != nil {
		return Connection{}, err
	}
	if err := checkConnTarget(to, connectedAccountID); err != nil {
		return Connection{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.connections[k]
	if !ok {
		return Connection{}, fmt.Errorf("%w: workspace %q app %q connection", ErrNotFound, k.ws, k.app)
	}
	same := c.Status == to
	if same {
		write, err := sameStatus(c, connectedAccountID)
		if err != nil {
			return Connection{}, err
		}
		if !write {
			return c, nil
		}
	} else if !CanTransition(c.Status, to) {
		return Connection{}, fmt.Errorf("%w: workspace %q app %q connection: %s -> %s", ErrTransition, k.ws, k.app, c.Status, to)
	}
	t := now()
	c.Status = to
	if connectedAccountID != "" {
		c.ConnectedAccountID = connectedAccountID
	}
	if to == StatusActive && !same {
		c.ConnectedAt = t
	}
	c.UpdatedAt = t
	m.connections[k] = c
	return c, nil
}

// RemoveConnection deletes a connection in any status; ErrNotFound when there is none.
func (m *Memory) RemoveConnection(ctx context.Context, workspaceID, app string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k, err := connArgs(workspaceID, app)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.connections[k]; !ok {
		return fmt.Errorf("%w: workspace %q app %q connection", ErrNotFound, k.ws, k.app)
	}
	delete(m.connections, k)
	return nil
}

// Connection returns one connection; ErrNotFound when there is none.
func (m *Memory) Connection(ctx context.Context, workspaceID, app string) (Connection, error) {
	if err := ctx.Err(); err != nil {
		return Connection{}, err
	}
	k, err := connArgs(workspaceID, app)
	if err != nil {
		return Connection{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	c, ok := m.connections[k]
	if !ok {
		return Connection{}, fmt.Errorf("%w: workspace %q app %q connection", ErrNotFound, k.ws, k.app)
	}
	return c, nil
}

// Connections lists connections ordered by app (then workspace). See Store.
func (m *Memory) Connections(ctx context.Context, workspaceID string, statuses ...ConnectionStatus) ([]Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkConnFilter(workspaceID, statuses); err != nil {
		return nil, err
	}
	m.mu.RLock()
	out := []Connection{}
	for k, c := range m.connections {
		if workspaceID != "" && k.ws != workspaceID {
			continue
		}
		if len(statuses) > 0 && !slices.Contains(statuses, c.Status) {
			continue
		}
		out = append(out, c)
	}
	m.mu.RUnlock()
	slices.SortFunc(out, func(x, y Connection) int {
		return cmp.Or(strings.Compare(x.App, y.App), strings.Compare(x.WorkspaceID, y.WorkspaceID))
	})
	return out, nil
}

// SaveEnabledActions sets a workspace's enabled actions for an app: nil enables every
// action, an empty list none. ErrNotFound when the app is not stored, ErrInvalid when a slug
// is not an action of the app. The app-level switch (SetAppEnabled) is kept.
func (m *Memory) SaveEnabledActions(ctx context.Context, workspaceID, app string, actions []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k, err := connArgs(workspaceID, app)
	if err != nil {
		return err
	}
	list, err := normEnabledActions(actions)
	if err != nil {
		return err
	}
	c := m.catalog.Load()
	if _, ok := c.apps[k.app]; !ok {
		return fmt.Errorf("%w: app %q", ErrNotFound, k.app)
	}
	for _, s := range list {
		a, ok := c.actions[s]
		if !ok || a.a.App != k.app {
			return fmt.Errorf("%w: %q is not an action of app %q", ErrInvalid, s, k.app)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cfg, ok := m.configs[k]
	if !ok {
		cfg = ToolConfig{WorkspaceID: k.ws, App: k.app, Enabled: true}
	}
	cfg.EnabledActions = list
	cfg.UpdatedAt = now()
	m.configs[k] = cfg
	if list == nil {
		delete(m.enabledSets, k)
	} else {
		set := make(map[string]bool, len(list))
		for _, s := range list {
			set[s] = true
		}
		m.enabledSets[k] = set
	}
	return nil
}

// SetAppEnabled switches an app on or off for a workspace, keeping its enabled actions.
// ErrNotFound when the app is not stored.
func (m *Memory) SetAppEnabled(ctx context.Context, workspaceID, app string, enabled bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k, err := connArgs(workspaceID, app)
	if err != nil {
		return err
	}
	if _, ok := m.catalog.Load().apps[k.app]; !ok {
		return fmt.Errorf("%w: app %q", ErrNotFound, k.app)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cfg, ok := m.configs[k]
	if !ok {
		cfg = ToolConfig{WorkspaceID: k.ws, App: k.app}
	}
	cfg.Enabled = enabled
	cfg.UpdatedAt = now()
	m.configs[k] = cfg
	return nil
}

// ToolConfig returns a workspace's configuration of an app; ErrNotFound when none was saved.
func (m *Memory) ToolConfig(ctx context.Context, workspaceID, app string) (ToolConfig, error) {
	if err := ctx.Err(); err != nil {
		return ToolConfig{}, err
	}
	k, err := connArgs(workspaceID, app)
	if err != nil {
		return ToolConfig{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	cfg, ok := m.configs[k]
	if !ok {
		return ToolConfig{}, fmt.Errorf("%w: workspace %q app %q tool config", ErrNotFound, k.ws, k.app)
	}
	cfg.EnabledActions = cloneEnabled(cfg.EnabledActions)
	return cfg, nil
}

// ToolConfigs lists a workspace's tool configurations ordered by app.
func (m *Memory) ToolConfigs(ctx context.Context, workspaceID string) ([]ToolConfig, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkWorkspace(workspaceID); err != nil {
		return nil, err
	}
	m.mu.RLock()
	out := []ToolConfig{}
	for k, cfg := range m.configs {
		if k.ws == workspaceID {
			cfg.EnabledActions = cloneEnabled(cfg.EnabledActions)
			out = append(out, cfg)
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(out, func(x, y ToolConfig) int { return strings.Compare(x.App, y.App) })
	return out, nil
}

// cloneEnabled copies an enabled-actions list keeping nil (all) apart from empty (none).
func cloneEnabled(list []string) []string {
	if list == nil {
		return nil
	}
	return append([]string{}, list...)
}

var _ Store = (*Memory)(nil)
