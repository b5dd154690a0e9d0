//go:build !unix

package platform

import "io/fs"

// openNonblock is zero where FIFOs cannot block an open.
const openNonblock = 0

// linkCount is 1 where the file system's link count is not read.
func linkCount(fs.FileInfo) uint64 { return 1 }
