package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toolhint/toolhint/cache"
)

// progressBar draws a sync's progress: one bar per phase, redrawn in place, on a terminal;
// one line per finished phase otherwise. It is called from the syncing goroutine only.
type progressBar struct {
	w    io.Writer
	draw bool

	last       cache.SyncProgress
	started    bool
	lastDraw   time.Time
	phaseStart time.Time
}

const barWidth = 30

func (b *progressBar) update(p cache.SyncProgress) {
	changed := !b.started || p.Phase != b.last.Phase
	if changed && b.started {
		// Close the previous phase with its final figures.
		if b.draw {
			b.render(b.last)
			fmt.Fprintln(b.w)
		} else if line := b.summary(b.last); line != "" {
			fmt.Fprintln(b.w, line)
		}
	}
	if changed {
		b.phaseStart = time.Now()
	}
	b.started = true
	b.last = p
	if !b.draw || p.Phase == cache.PhaseDone {
		return
	}
	if changed || time.Since(b.lastDraw) > 50*time.Millisecond {
		b.render(p)
	}
}

// finish ends the last line.
func (b *progressBar) finish() {
	if b.started && b.last.Phase != cache.PhaseDone {
		if b.draw {
			fmt.Fprintln(b.w)
		} else if line := b.summary(b.last); line != "" {
			fmt.Fprintln(b.w, line)
		}
	}
}

// counts returns what a phase has done, its total (0: unknown) and its unit.
func counts(p cache.SyncProgress) (done, total int, unit string) {
	switch p.Phase {
	case cache.PhaseApps:
		return p.Apps, p.AppsTotal, "apps"
	case cache.PhaseActions:
		return p.Actions, p.ActionsTotal, "actions"
	case cache.PhaseBackfill:
		return p.Backfill, p.BackfillTotal, "apps"
	}
	return 0, 0, ""
}

func (b *progressBar) render(p cache.SyncProgress) {
	b.lastDraw = time.Now()
	done, total, unit := counts(p)
	var bar, figures string
	switch {
	case unit == "":
		bar = strings.Repeat(" ", barWidth)
		figures = "…"
	case total > 0:
		n := min(barWidth, done*barWidth/total)
		bar = strings.Repeat("#", n) + strings.Repeat(".", barWidth-n)
		figures = fmt.Sprintf("%3d%%  %d/%d %s", done*100/total, done, total, unit)
	default:
		// Total unknown: a marker that moves with each page.
		pos := p.Pages % barWidth
		bar = strings.Repeat(".", pos) + "#" + strings.Repeat(".", barWidth-pos-1)
		figures = fmt.Sprintf("%d %s", done, unit)
	}
	fmt.Fprintf(b.w, "\r%-8s [%s] %s, %d pages\x1b[K", p.Phase, bar, figures, p.Pages)
}

func (b *progressBar) summary(p cache.SyncProgress) string {
	done, total, unit := counts(p)
	took := time.Since(b.phaseStart).Round(time.Millisecond)
	switch {
	case unit == "":
		return fmt.Sprintf("%s: done in %s", p.Phase, took)
	case total > 0:
		return fmt.Sprintf("%s: %d/%d %s, %d pages, in %s", p.Phase, done, total, unit, p.Pages, took)
	}
	return fmt.Sprintf("%s: %d %s, %d pages, in %s", p.Phase, done, unit, p.Pages, took)
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
