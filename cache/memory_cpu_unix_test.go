//go:build unix

package cache_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used so far. Benchmarks
// report it per operation next to wall time, which other load on the machine inflates.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
