package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhint/toolhint/cache"
)

// fakeSource is a hand-written cache.Source over an in-memory catalogue, with faults that
// tests inject per page. Pages are numbered from 1 by position in the listing, so a retried
// page keeps its number.
type fakeSource struct {
	mu sync.Mutex

	apps     []cache.App
	actions  []cache.Action // with parameters: what AppActions serves
	pageSize int            // actions per page
	appPage  int            // apps per page

	// bulkWithoutParams makes ActionsPage leave parameters out, as Composio's bulk listing
	// can.
	bulkWithoutParams bool
	// overlap repeats the last n actions of each page at the start of the next one.
	overlap int

	// actionFaults fail the action page with this number; appFaults the app page.
	actionFaults map[int]*fault
	appFaults    map[int]*fault
	// appActionFaults fail AppActions for an app.
	appActionFaults map[string]*fault
	// beforeActionPage runs before an action page is served, outside the lock.
	beforeActionPage func(ctx context.Context, page int)
	// beforeAppActions runs before AppActions answers, outside the lock.
	beforeAppActions func(ctx context.Context, app string)
	// loopCursor makes every action page but the last point back at the second page.
	loopCursor bool

	// Recorded calls.
	actionPages     int
	appPages        int
	actionQueries   []cache.SourceActionQuery
	appActionsCalls []string
}

// fault fails a request: times times (0: always), with err.
type fault struct {
	err   error
	times int
	n     int
}

func (f *fault) fire() error {
	if f == nil {
		return nil
	}
	if f.times > 0 && f.n >= f.times {
		return nil
	}
	f.n++
	return f.err
}

// transientErr is how a fake 429 looks: it wraps cache.ErrTransient.
func transientErr(what string) error {
	return fmt.Errorf("fake: %s: 429 too many requests: %w", what, cache.ErrTransient)
}

// temporaryErr reports itself temporary the way net.Error does, without wrapping
// cache.ErrTransient.
type temporaryErr struct{}

func (temporaryErr) Error() string   { return "fake: 503 service unavailable" }
func (temporaryErr) Temporary() bool { return true }

func (f *fakeSource) AppsPage(ctx context.Context, cursor string) (cache.SourceAppPage, error) {
	if err := ctx.Err(); err != nil {
		return cache.SourceAppPage{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appPages++
	size := f.appPage
	if size <= 0 {
		size = 1000
	}
	off, err := parseCursor(cursor)
	if err != nil {
		return cache.SourceAppPage{}, err
	}
	if err := f.appFaults[off/size+1].fire(); err != nil {
		return cache.SourceAppPage{}, err
	}
	end := min(off+size, len(f.apps))
	p := cache.SourceAppPage{Apps: slices.Clone(f.apps[min(off, end):end]), Total: len(f.apps)}
	if end < len(f.apps) {
		p.Next = strconv.Itoa(end)
	}
	return p, nil
}

func (f *fakeSource) ActionsPage(ctx context.Context, q cache.SourceActionQuery) (cache.SourceActionPage, error) {
	if err := ctx.Err(); err != nil {
		return cache.SourceActionPage{}, err
	}
	off, err := parseCursor(q.Cursor)
	if err != nil {
		return cache.SourceActionPage{}, err
	}
	f.mu.Lock()
	f.actionPages++
	size := f.pageSize
	if size <= 0 {
		size = 1000
	}
	page := off/size + 1
	hook := f.beforeActionPage
	f.mu.Unlock()
	if hook != nil {
		hook(ctx, page)
		if err := ctx.Err(); err != nil {
			return cache.SourceActionPage{}, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actionQueries = append(f.actionQueries, cache.SourceActionQuery{Cursor: q.Cursor, Apps: slices.Clone(q.Apps)})
	if err := f.actionFaults[page].fire(); err != nil {
		return cache.SourceActionPage{}, err
	}
	var all []cache.Action
	for _, a := range f.actions {
		if len(q.Apps) == 0 || slices.Contains(q.Apps, a.App) {
			all = append(all, a)
		}
	}
	start := max(0, min(off-f.overlap, len(all)))
	if off == 0 {
		start = 0
	}
	end := min(off+size, len(all))
	p := cache.SourceActionPage{Total: len(all)}
	for _, a := range all[start:end] {
		if f.bulkWithoutParams {
			a.Parameters = nil
		}
		p.Actions = append(p.Actions, a)
	}
	if end < len(all) {
		p.Next = strconv.Itoa(end)
		if f.loopCursor {
			p.Next = strconv.Itoa(size)
		}
	}
	return p, nil
}

func (f *fakeSource) AppActions(ctx context.Context, app string) ([]cache.Action, error) {
	f.mu.Lock()
	hook := f.beforeAppActions
	f.mu.Unlock()
	if hook != nil {
		hook(ctx, app)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.appActionsCalls = append(f.appActionsCalls, app)
	if err := f.appActionFaults[app].fire(); err != nil {
		return nil, err
	}
	var out []cache.Action
	for _, a := range f.actions {
		if a.App == app {
			out = append(out, a)
		}
	}
	return out, nil
}

func parseCursor(c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(c)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("fake: bad cursor %q", c)
	}
	return n, nil
}

// set replaces the catalogue the source serves.
func (f *fakeSource) set(apps []cache.App, actions []cache.Action) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apps, f.actions = apps, actions
}

func (f *fakeSource) calls() (appPages, actionPages int, appActions []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.appPages, f.actionPages, slices.Clone(f.appActionsCalls)
}

// testCatalogue makes nApps apps with perApp actions each, realistic enough for the
// classifier and the store: lower_snake app slugs, UPPER_SNAKE action slugs prefixed by
// the app, parameter schemas that are JSON objects.
func testCatalogue(nApps, perApp int) ([]cache.App, []cache.Action) {
	verbs := []string{"SEND_MESSAGE", "LIST_ITEMS", "GET_ITEM", "CREATE_ITEM", "UPDATE_ITEM", "DELETE_ITEM", "SEARCH", "ARCHIVE_ITEM", "ADD_COMMENT", "UPLOAD_FILE"}
	cats := []string{"communication", "productivity", "developer tools", "crm"}
	var apps []cache.App
	var actions []cache.Action
	for i := range nApps {
		slug := fmt.Sprintf("app%02d", i)
		apps = append(apps, cache.App{
			Slug:          slug,
			DisplayName:   fmt.Sprintf("App %02d", i),
			Description:   fmt.Sprintf("App %02d is a test app for the sync.", i),
			Categories:    []string{cats[i%len(cats)]},
			AuthSchemes:   []string{"OAUTH2"},
			LatestVersion: "20260101_00",
		})
		for j := range perApp {
			verb := verbs[j%len(verbs)]
			if j >= len(verbs) {
				verb = fmt.Sprintf("%s_%d", verb, j/len(verbs))
			}
			s := strings.ToUpper(slug) + "_" + verb
			actions = append(actions, cache.Action{
				App:         slug,
				Slug:        s,
				DisplayName: strings.ToLower(strings.ReplaceAll(verb, "_", " ")),
				Description: fmt.Sprintf("%s in App %02d.", strings.ToLower(strings.ReplaceAll(verb, "_", " ")), i),
				Parameters:  json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string","description":"The item id."},"n%d":{"type":"integer"}},"required":["id"]}`, j)),
				Version:     "20260101_00",
			})
		}
	}
	return apps, actions
}
