//go:build unix

package platform

import (
	"io/fs"
	"syscall"
)

// openNonblock makes opening a FIFO return at once instead of waiting for a peer, so the
// fstat check can refuse it.
const openNonblock = syscall.O_NONBLOCK

// linkCount returns how many names (hard links) the file of fi has.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
