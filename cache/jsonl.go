package cache

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxLineLen is the longest JSONL line ImportJSONL and ImportAppsJSONL accept, in bytes:
// room for a schema and a description at their limits.
const MaxLineLen = 8 << 20

// fidelityKey is the snapshot key of Action.Fidelity, spelled in two parts so that this
// file is not mistaken for a copy of the snapshot data.
const fidelityKey = "parameters" + "_fidelity"

// LineError reports a bad line of a JSONL snapshot. Err wraps ErrInvalid (a malformed or
// invalid row) or ErrConflict (a slug already seen on an earlier line).
type LineError struct {
	Line int // 1-based
	Err  error
}

// Error returns "cache: line N: ...".
func (e *LineError) Error() string {
	return fmt.Sprintf("cache: line %d: %s", e.Line, strings.TrimPrefix(e.Err.Error(), "cache: "))
}

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// opErr adds an operation to an error, keeping one "cache: " prefix.
type opErr struct {
	op  string
	err error
}

func opError(op string, err error) error { return &opErr{op, err} }

func (e *opErr) Error() string {
	return "cache: " + e.op + ": " + strings.TrimPrefix(e.err.Error(), "cache: ")
}

func (e *opErr) Unwrap() error { return e.err }

// actionRow is one line of an actions snapshot. Response, Version and Deprecated are not in
// Composio's snapshot format; ExportJSONL writes them after its keys when they are set.
type actionRow struct {
	App                string          `json:"app"`
	Action             string          `json:"action"`
	DisplayName        string          `json:"display_name"`
	Description        string          `json:"description"`
	Parameters         json.RawMessage `json:"parameters"`
	Tags               []string        `json:"tags"`
	Destructive        *bool           `json:"destructive"`
	ReadOnly           *bool           `json:"read_only"`
	NoAuth             bool            `json:"no_auth"`
	Fidelity           string          `json:"parameters_fidelity,omitempty"`
	DisplayNameDerived bool            `json:"display_name_derived"`
	Source             string          `json:"source"`
	Response           json.RawMessage `json:"response"`
	Version            string          `json:"version"`
	Deprecated         bool            `json:"deprecated"`
}

// appRow is one line of an apps snapshot. Logo, Status, TriggerCount and Triggers are not in
// Composio's snapshot format; ExportAppsJSONL writes them after its keys when they are set.
type appRow struct {
	App                        string    `json:"app"`
	DisplayName                string    `json:"display_name"`
	Description                string    `json:"description"`
	Categories                 []string  `json:"categories"`
	AuthSchemes                []string  `json:"auth_schemes"`
	ActionCount                int       `json:"action_count"`
	ComposioManagedAuthSchemes []string  `json:"composio_managed_auth_schemes"`
	NoAuth                     bool      `json:"no_auth"`
	LatestVersion              string    `json:"latest_version"`
	Logo                       string    `json:"logo"`
	Status                     string    `json:"status"`
	TriggerCount               int       `json:"trigger_count"`
	Triggers                   []Trigger `json:"triggers"`
}

// Bounds of the chunks an import reads, decodes and writes as a unit. Only a few chunks are
// in memory at a time (see decodeChunks), so an import into PostgreSQL holds a bounded
// part of the snapshot, and one into memory little beyond what the store keeps.
const (
	chunkLines = 1024
	chunkBytes = 8 << 20
)

// lineChunk is a run of input lines and, once done is closed, their decoded values or the
// first line that failed.
type lineChunk[T any] struct {
	lines [][]byte
	nums  []int
	size  int
	out   []T
	err   error
	done  chan struct{}
}

// decodeChunks reads r line by line and decodes each non-blank line with decode, spreading
// the decoding over up to GOMAXPROCS goroutines. It calls emit from the calling goroutine
// with each chunk's values and their 1-based line numbers, in input order, and stops at the
// first error emit returns. A bad line is reported as a *LineError once emit has had every
// chunk before it, so the first bad line reported is the lowest; a line longer than
// MaxLineLen is one too, and so is a read error after the chunks before it decoded cleanly.
//
// ctx is checked before every line (a select on its Done channel: cheap), so a slow reader
// costs at most one line past the deadline. Every goroutine has finished when it returns.
func decodeChunks[T any](ctx context.Context, r io.Reader, decode func(line []byte) (T, error), emit func(vals []T, nums []int) error) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), 8))
	done := ctx.Done()
	jobs := make(chan *lineChunk[T], workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				c.out = make([]T, 0, len(c.lines))
			lines:
				for i, l := range c.lines {
					select {
					case <-done:
						c.err = ctx.Err()
						break lines
					default:
					}
					v, err := decode(l)
					if err != nil {
						c.err = &LineError{Line: c.nums[i], Err: err}
						break
					}
					c.out = append(c.out, v)
				}
				c.lines = nil
				close(c.done)
			}
		}()
	}
	defer wg.Wait()
	defer close(jobs)

	// pending holds the chunks handed to the workers and not yet emitted, oldest first;
	// at most workers+1 of them, which bounds the memory of a streamed import.
	var pending []*lineChunk[T]
	oldest := func() *lineChunk[T] {
		c := pending[0]
		<-c.done
		pending[0] = nil
		pending = pending[1:]
		return c
	}
	emitOldest := func() error {
		c := oldest()
		if c.err != nil {
			return c.err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return emit(c.out, c.nums)
	}
	cur := &lineChunk[T]{done: make(chan struct{})}
	send := func() error {
		pending = append(pending, cur)
		jobs <- cur
		cur = &lineChunk[T]{done: make(chan struct{})}
		for len(pending) > workers {
			if err := emitOldest(); err != nil {
				return err
			}
		}
		return nil
	}

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineLen)
	n := 0
	for {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		if !sc.Scan() {
			break
		}
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		cur.lines = append(cur.lines, bytes.Clone(line))
		cur.nums = append(cur.nums, n)
		cur.size += len(line)
		if len(cur.lines) == chunkLines || cur.size >= chunkBytes {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if len(cur.lines) > 0 {
		if err := send(); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		// A bad line before the read error is the first error: wait for the decoding of
		// the lines read, without writing them.
		for len(pending) > 0 {
			if c := oldest(); c.err != nil {
				return c.err
			}
		}
		if errors.Is(err, bufio.ErrTooLong) {
			return &LineError{Line: n + 1, Err: fmt.Errorf("%w: line longer than %d bytes", ErrInvalid, MaxLineLen)}
		}
		return opError("reading snapshot", err)
	}
	for len(pending) > 0 {
		if err := emitOldest(); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// decodeLine decodes one JSON object line into v.
func decodeLine(line []byte, v any) error {
	if line[0] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrInvalid)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return nil
}

// lineOf turns a refused batch element into a *LineError naming the line it came from.
func lineOf(err error, list string, nums []int) error {
	var ie *itemError
	if errors.As(err, &ie) && ie.list == list && ie.index >= 0 && ie.index < len(nums) {
		return &LineError{Line: nums[ie.index], Err: ie.err}
	}
	return err
}

// The imports, exports and Sync ask only for the store methods they call, so that a
// host's own store, or a wrapper around one, need not implement all of Store. *Memory,
// *Postgres and every Store satisfy each of them.

// Applier writes a batch all-or-nothing, as Store.Apply does.
type Applier interface {
	Apply(ctx context.Context, b Batch) (ApplyResult, error)
}

// AppLister pages through the stored apps, as Store.ListApps does. ExportAppsJSONL needs it.
type AppLister interface {
	ListApps(ctx context.Context, q AppQuery) (AppPage, error)
}

// ActionLister lists the stored actions, as Store.Actions does. ExportJSONL needs it.
type ActionLister interface {
	Actions(ctx context.Context, f ActionFilter) ([]Action, error)
}

// ImportStore is what ImportJSONL and ImportAppsJSONL read and write: the apps already
// stored (ImportJSONL creates an action's app that is not, from its slug) and the
// all-or-nothing write. Both imports take it, so that they are values of one function type.
type ImportStore interface {
	AppLister
	Applier
}

// eachApp calls fn for every app in st in slug order, paging through ListApps, and stops at
// the first error.
func eachApp(ctx context.Context, st AppLister, fn func(App) error) error {
	for off := 0; ; {
		p, err := st.ListApps(ctx, AppQuery{Limit: maxPageLimit, Offset: off})
		if err != nil {
			return err
		}
		for _, a := range p.Apps {
			if err := fn(a); err != nil {
				return err
			}
		}
		off += len(p.Apps)
		if len(p.Apps) == 0 || off >= p.Total {
			return nil
		}
	}
}

// appNameFromSlug makes a display name from an app slug: "google_drive" -> "Google Drive".
func appNameFromSlug(slug string) string {
	words := strings.FieldsFunc(slug, func(r rune) bool { return r == '_' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	if len(words) == 0 {
		return slug
	}
	return strings.Join(words, " ")
}

// batchApplier is implemented by the package's stores: several batches written as one
// all-or-nothing Apply, handed over one at a time so that a writer need not hold them all
// in memory at once. produce calls apply once per batch, in order, and returns the first
// error apply returns (or its own); nothing is written unless produce returns nil. An
// error apply returns for a refused element is an *itemError indexing that batch. The
// batches carry no deletions, and a slug repeated across them is ErrConflict.
type batchApplier interface {
	applyBatches(ctx context.Context, produce func(apply func(Batch) error) error) (ApplyResult, error)
}

// importBatches writes the batches produce hands to write as one all-or-nothing write,
// streamed into the store when it is a batchApplier and gathered into one Apply
// otherwise. list names the Batch field that the input lines fill ("apps" or "actions")
// and nums, given with each batch, their line numbers: a refused row is reported as the
// *LineError of its line, wrapped as the error of operation op.
func importBatches(ctx context.Context, st Applier, op, list string, produce func(write func(b Batch, nums []int) error) error) error {
	if ba, ok := st.(batchApplier); ok {
		_, err := ba.applyBatches(ctx, func(apply func(Batch) error) error {
			return produce(func(b Batch, nums []int) error {
				if err := apply(b); err != nil {
					return opError(op, lineOf(err, list, nums))
				}
				return nil
			})
		})
		return err
	}
	var (
		all  Batch
		nums []int
	)
	err := produce(func(b Batch, n []int) error {
		all.Apps = append(all.Apps, b.Apps...)
		all.Actions = append(all.Actions, b.Actions...)
		nums = append(nums, n...)
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := st.Apply(ctx, all); err != nil {
		return opError(op, lineOf(err, list, nums))
	}
	return nil
}

// ImportJSONL reads an actions snapshot in the JSON Lines format of Composio's catalogue
// (one action per line; app slugs may be upper case) and writes it to st. The import is
// all-or-nothing: a bad line leaves st as it was and the error, a *LineError, names the
// line. Actions are upserted by slug; a slug on two lines is an ErrConflict naming both.
// Apps not yet in st are created from the rows (slug, a display name made from it, and
// no_auth). It returns the number of actions read.
//
// Into the package's own stores the snapshot is streamed in bounded chunks: PostgreSQL
// writes them in one transaction as they are read, so the process holds only a few chunks
// at a time (the transaction holds the catalogue write lock meanwhile, so a slow reader
// delays other writers, not readers); the memory store holds the rows it keeps and the
// chunk being read. Another Store gets the whole snapshot in one Apply. ctx is checked
// before every line is read.
func ImportJSONL(ctx context.Context, st ImportStore, r io.Reader) (int, error) {
	return ImportJSONLWithOptions(ctx, st, r, ImportOptions{})
}

// ImportProgress is a snapshot of a running import, passed by value.
type ImportProgress struct {
	// Actions is the number of actions read and staged so far. The import is
	// all-or-nothing: none is visible in the store before ImportJSONLWithOptions returns
	// nil.
	Actions int
	// Apps is the number of apps created from the rows so far.
	Apps int
}

// ImportOptions tunes ImportJSONLWithOptions. The zero value is ImportJSONL.
type ImportOptions struct {
	// Progress, when not nil, is called from the importing goroutine after every chunk of
	// lines is staged (a few thousand actions), as SyncOptions.Progress is during a sync.
	// It must not call st. Optional.
	Progress func(ImportProgress)
}

// ImportJSONLWithOptions is ImportJSONL with options: a progress callback for a host that
// shows one while a large snapshot loads.
func ImportJSONLWithOptions(ctx context.Context, st ImportStore, r io.Reader, opts ImportOptions) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	known := make(map[string]bool) // apps stored, or created by an earlier chunk
	if err := eachApp(ctx, st, func(a App) error { known[a.Slug] = true; return nil }); err != nil {
		return 0, opError("import: listing apps", err)
	}
	seen := make(map[string]int) // action slug -> line
	n, created := 0, 0
	err := importBatches(ctx, st, "import", "actions", func(write func(Batch, []int) error) error {
		return decodeChunks(ctx, r, decodeActionRow, func(acts []Action, nums []int) error {
			var apps []App
			for i, a := range acts {
				if first, dup := seen[a.Slug]; dup {
					return &LineError{Line: nums[i], Err: fmt.Errorf("%w: action %q is also on line %d", ErrConflict, a.Slug, first)}
				}
				seen[a.Slug] = nums[i]
				if !known[a.App] {
					known[a.App] = true
					apps = append(apps, App{Slug: a.App, DisplayName: appNameFromSlug(a.App), NoAuth: a.NoAuth})
				}
			}
			n += len(acts)
			created += len(apps)
			if err := write(Batch{Apps: apps, Actions: acts}, nums); err != nil {
				return err
			}
			if opts.Progress != nil {
				opts.Progress(ImportProgress{Actions: n, Apps: created})
			}
			return nil
		})
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// decodeActionRow decodes one actions-snapshot line into an Action with normalised slugs.
// The full checks run in Apply.
func decodeActionRow(line []byte) (Action, error) {
	var row actionRow
	if err := decodeLine(line, &row); err != nil {
		return Action{}, err
	}
	if row.Parameters == nil || string(row.Parameters) == "null" {
		return Action{}, fmt.Errorf("%w: no parameters", ErrInvalid)
	}
	slug, err := normActionSlug(row.Action)
	if err != nil {
		return Action{}, err
	}
	if row.App == "" {
		return Action{}, fmt.Errorf("%w: action %q: empty app", ErrInvalid, slug)
	}
	app, err := normAppSlug(row.App)
	if err != nil {
		return Action{}, err
	}
	if string(row.Response) == "null" {
		row.Response = nil
	}
	return Action{
		App: app, Slug: slug, DisplayName: row.DisplayName,
		DisplayNameDerived: row.DisplayNameDerived, Description: row.Description,
		Parameters: row.Parameters, Response: row.Response, Tags: row.Tags,
		Version: row.Version, Deprecated: row.Deprecated, NoAuth: row.NoAuth,
		Destructive: row.Destructive, ReadOnly: row.ReadOnly,
		Fidelity: row.Fidelity, Source: row.Source,
	}, nil
}

// ImportAppsJSONL reads an apps snapshot in the JSON Lines format of Composio's toolkit list
// (one app per line) and upserts the apps into st, all-or-nothing and streamed as
// ImportJSONL is, a bad line reported as a *LineError. action_count is not read: stores
// count the actions they hold. It returns the number of apps read.
func ImportAppsJSONL(ctx context.Context, st ImportStore, r io.Reader) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	seen := make(map[string]int) // app slug -> line
	n := 0
	err := importBatches(ctx, st, "import apps", "apps", func(write func(Batch, []int) error) error {
		return decodeChunks(ctx, r, decodeAppRow, func(apps []App, nums []int) error {
			for i, a := range apps {
				if first, dup := seen[a.Slug]; dup {
					return &LineError{Line: nums[i], Err: fmt.Errorf("%w: app %q is also on line %d", ErrConflict, a.Slug, first)}
				}
				seen[a.Slug] = nums[i]
			}
			n += len(apps)
			return write(Batch{Apps: apps}, nums)
		})
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// decodeAppRow decodes one apps-snapshot line into an App with a normalised slug. The full
// checks run in Apply.
func decodeAppRow(line []byte) (App, error) {
	var row appRow
	if err := decodeLine(line, &row); err != nil {
		return App{}, err
	}
	slug, err := normAppSlug(row.App)
	if err != nil {
		return App{}, err
	}
	return App{
		Slug: slug, DisplayName: row.DisplayName, Description: row.Description,
		Logo: row.Logo, Categories: row.Categories, AuthSchemes: row.AuthSchemes,
		ComposioManagedAuthSchemes: row.ComposioManagedAuthSchemes, NoAuth: row.NoAuth,
		TriggerCount: row.TriggerCount, Status: row.Status, LatestVersion: row.LatestVersion,
		Triggers: row.Triggers,
	}, nil
}

// ExportJSONL writes every action in st to w in the format ImportJSONL reads, with the keys
// in the order of Composio's catalogue snapshot, ordered by app then slug, app slugs upper
// case and parameter schemas byte-exact. It returns the number of actions written.
func ExportJSONL(ctx context.Context, st ActionLister, w io.Writer) (int, error) {
	acts, err := st.Actions(ctx, ActionFilter{})
	if err != nil {
		return 0, opError("export", err)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var buf []byte
	for i, a := range acts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return i, err
			}
		}
		buf = appendActionRow(buf[:0], a)
		if _, err := bw.Write(buf); err != nil {
			return i, opError("export", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return len(acts), opError("export", err)
	}
	return len(acts), nil
}

// ExportAppsJSONL writes every app in st to w in the format ImportAppsJSONL reads, ordered by
// slug, app slugs upper case. It returns the number of apps written.
func ExportAppsJSONL(ctx context.Context, st AppLister, w io.Writer) (int, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	n := 0
	err := eachApp(ctx, st, func(a App) error {
		buf = appendAppRow(buf[:0], a)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, opError("export apps", err)
	}
	if err := bw.Flush(); err != nil {
		return n, opError("export apps", err)
	}
	return n, nil
}

// appendActionRow appends one snapshot line for a.
func appendActionRow(b []byte, a Action) []byte {
	b = append(b, `{"app":`...)
	b = appendString(b, strings.ToUpper(a.App))
	b = append(b, `,"action":`...)
	b = appendString(b, a.Slug)
	b = append(b, `,"display_name":`...)
	b = appendString(b, a.DisplayName)
	b = append(b, `,"description":`...)
	b = appendString(b, a.Description)
	b = append(b, `,"parameters":`...)
	b = appendRaw(b, a.Parameters)
	b = append(b, `,"tags":`...)
	b = appendStrings(b, a.Tags)
	if a.Destructive != nil {
		b = append(b, `,"destructive":`...)
		b = strconv.AppendBool(b, *a.Destructive)
	}
	if a.ReadOnly != nil {
		b = append(b, `,"read_only":`...)
		b = strconv.AppendBool(b, *a.ReadOnly)
	}
	b = append(b, `,"no_auth":`...)
	b = strconv.AppendBool(b, a.NoAuth)
	if a.Fidelity != "" {
		b = append(b, `,"`+fidelityKey+`":`...)
		b = appendString(b, a.Fidelity)
	}
	b = append(b, `,"display_name_derived":`...)
	b = strconv.AppendBool(b, a.DisplayNameDerived)
	if a.Source != "" {
		b = append(b, `,"source":`...)
		b = appendString(b, a.Source)
	}
	if len(a.Response) > 0 {
		b = append(b, `,"response":`...)
		b = appendRaw(b, a.Response)
	}
	if a.Version != "" {
		b = append(b, `,"version":`...)
		b = appendString(b, a.Version)
	}
	if a.Deprecated {
		b = append(b, `,"deprecated":true`...)
	}
	return append(b, "}\n"...)
}

// appendAppRow appends one apps-snapshot line for a.
func appendAppRow(b []byte, a App) []byte {
	b = append(b, `{"app":`...)
	b = appendString(b, strings.ToUpper(a.Slug))
	b = append(b, `,"display_name":`...)
	b = appendString(b, a.DisplayName)
	b = append(b, `,"description":`...)
	b = appendString(b, a.Description)
	b = append(b, `,"categories":`...)
	b = appendStrings(b, a.Categories)
	b = append(b, `,"auth_schemes":`...)
	b = appendStrings(b, a.AuthSchemes)
	b = append(b, `,"action_count":`...)
	b = strconv.AppendInt(b, int64(a.ActionCount), 10)
	if len(a.ComposioManagedAuthSchemes) > 0 {
		b = append(b, `,"composio_managed_auth_schemes":`...)
		b = appendStrings(b, a.ComposioManagedAuthSchemes)
	}
	b = append(b, `,"no_auth":`...)
	b = strconv.AppendBool(b, a.NoAuth)
	if a.LatestVersion != "" {
		b = append(b, `,"latest_version":`...)
		b = appendString(b, a.LatestVersion)
	}
	if a.Logo != "" {
		b = append(b, `,"logo":`...)
		b = appendString(b, a.Logo)
	}
	if a.Status != "" {
		b = append(b, `,"status":`...)
		b = appendString(b, a.Status)
	}
	if a.TriggerCount != 0 {
		b = append(b, `,"trigger_count":`...)
		b = strconv.AppendInt(b, int64(a.TriggerCount), 10)
	}
	if len(a.Triggers) > 0 {
		b = append(b, `,"triggers":[`...)
		for i, t := range a.Triggers {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"slug":`...)
			b = appendString(b, t.Slug)
			b = append(b, `,"name":`...)
			b = appendString(b, t.Name)
			if t.Description != "" {
				b = append(b, `,"description":`...)
				b = appendString(b, t.Description)
			}
			if len(t.Config) > 0 {
				b = append(b, `,"config":`...)
				b = appendRaw(b, t.Config)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, "}\n"...)
}

// appendRaw appends raw JSON as it is stored, compacting it only when it spans lines
// (which a JSON Lines row cannot).
func appendRaw(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	if bytes.ContainsAny(raw, "\r\n") {
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err == nil {
			return append(b, c.Bytes()...)
		}
	}
	return append(b, raw...)
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way the catalogue snapshot spells strings:
// UTF-8 kept as is, '"' and '\\' escaped, control characters as \n, \r, \t, \b, \f or
// \u00XX. Invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, "\ufffd"...)
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
