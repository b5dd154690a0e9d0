//go:build unix

package platform

import "syscall"

// openNonblock makes opening a FIFO return at once instead of waiting for a peer, so the
// fstat check can refuse it.
const openNonblock = syscall.O_NONBLOCK
