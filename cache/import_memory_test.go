package cache_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolhint/toolhint/cache"
	"github.com/toolhint/toolhint/cache/cachetest"
)

// word turns n into a word of lowercase letters, so that every synthetic row has words of
// its own that the analyser keeps as terms.
func word(prefix string, n int) string {
	b := []byte(prefix)
	for {
		b = append(b, byte('a'+n%26))
		n /= 26
		if n == 0 {
			return string(b)
		}
	}
}

// synthActions returns a snapshot of n one-action apps; salt gives every description six
// words of its own, different from any other row's and any other salt's.
func synthActions(n int, salt string) string {
	var b strings.Builder
	for i := range n {
		w := make([]any, 6)
		for j := range w {
			w[j] = word(string(rune('k'+j))+"q"+salt, i)
		}
		desc := fmt.Sprintf("Sends a %s message to a %s channel about %s, %s, %s and %s.", w...)
		fmt.Fprintf(&b, `{"app":"SYN_%06d","action":"SYN_%06d_SEND_MESSAGE","display_name":"Send message","description":%q,"parameters":{"type":"object","properties":{"channel":{"type":"string","description":"The %s channel."},"text":{"type":"string","description":"Message text."}},"required":["channel"]},"tags":["important"],"no_auth":false,"display_name_derived":false}`+"\n",
			i, i, desc, w[0])
	}
	return b.String()
}

// assertSnapshot fails t unless st holds the catalogue want.
func assertSnapshot(t *testing.T, st cache.Store, want cachetest.Catalogue) {
	t.Helper()
	if diff := cmp.Diff(want, cachetest.Snapshot(t, st)); diff != "" {
		t.Errorf("catalogue changed (-want +got):\n%s", diff)
	}
}

// heapNow returns the bytes of heap objects, live or not yet swept.
func heapNow() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// liveHeap collects garbage and returns the heap that remains.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	return heapNow()
}

// peakHeap runs f with the collector set to run often (so that the heap tracks what is
// live) and returns the highest heap seen while f ran, sampled every millisecond.
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if h := heapNow(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	return max(peak.Load(), heapNow())
}

const mb = 1 << 20

// TestReimportHeapBounded re-imports a catalogue 20 times, each time with fresh words in
// every description: the heap must not grow with the words of replaced versions.
func TestReimportHeapBounded(t *testing.T) {
	const n, rounds = 1000, 20
	ctx := context.Background()
	st := cache.NewMemory()
	if _, err := cache.ImportJSONL(ctx, st, strings.NewReader(synthActions(n, "base"))); err != nil {
		t.Fatal(err)
	}
	inputs := make([]string, rounds)
	for i := range inputs {
		inputs[i] = synthActions(n, word("r", i))
	}
	before := liveHeap()
	for _, in := range inputs {
		if _, err := cache.ImportJSONL(ctx, st, strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
	}
	after := liveHeap()
	runtime.KeepAlive(st)
	runtime.KeepAlive(inputs)
	growth := float64(int64(after)-int64(before)) / mb
	t.Logf("heap growth over %d re-imports of %d actions: %.1f MB", rounds, n, growth)
	if growth >= 10 {
		t.Errorf("heap grew %.1f MB over %d re-imports, want under 10 MB", growth, rounds)
	}
}

// importApps is the number of one-action apps of TestImportPeakMemory: 10,000 by default,
// TOOLHINT_IMPORT_APPS to measure another size (the figures quoted in the package docs are
// for 200,000).
func importApps(t *testing.T) int {
	n := 10000
	if s := os.Getenv("TOOLHINT_IMPORT_APPS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			t.Fatalf("TOOLHINT_IMPORT_APPS=%q: want a positive number", s)
		}
		n = v
	}
	return n
}

// TestImportPeakMemory imports a large synthetic catalogue of one-action apps: into memory
// the heap must peak at no more than twice what the store keeps; into PostgreSQL, which
// streams the snapshot, at no more than half of that, beside what computing the catalogue's
// knowledge takes.
func TestImportPeakMemory(t *testing.T) {
	n := importApps(t)
	in := synthActions(n, "peak")
	ctx := context.Background()

	base := liveHeap()
	st := cache.NewMemory()
	peak := peakHeap(func() {
		if _, err := cache.ImportJSONL(ctx, st, strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
	}) - base
	final := liveHeap() - base
	runtime.KeepAlive(st)
	t.Logf("memory store, %d apps (%d MB of JSONL): heap peak +%.0f MB, store +%.0f MB (%.2fx)",
		n, len(in)/mb, float64(peak)/mb, float64(final)/mb, float64(peak)/float64(final))
	if peak > 2*final {
		t.Errorf("import into memory peaked at %d MB for a store of %d MB, want at most twice", peak/mb, final/mb)
	}
	// The catalogue's knowledge, which a PostgreSQL import computes in its transaction:
	// statistics of every distinct word, which no chunking bounds. The memory store
	// computes the same when first asked.
	base = liveHeap()
	know := peakHeap(func() {
		if _, err := st.CatalogKnowledge(ctx); err != nil {
			t.Fatal(err)
		}
	}) - base
	t.Logf("its catalogue knowledge: heap peak +%.0f MB", float64(know)/mb)
	st = nil

	if os.Getenv(pgEnv) == "" {
		return
	}
	pg := cachetest.OpenPostgres(t)
	base = liveHeap()
	pgPeak := peakHeap(func() {
		if _, err := cache.ImportJSONL(ctx, pg, strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
	}) - base
	t.Logf("postgres store, %d apps: heap peak +%.0f MB", n, float64(pgPeak)/mb)
	if pgPeak > final/2+know {
		t.Errorf("import into PostgreSQL peaked at %d MB, want at most half the %d MB the memory store keeps and the %d MB of computing the knowledge",
			pgPeak/mb, final/mb, know/mb)
	}
}
