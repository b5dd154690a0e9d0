//go:build !linux

package platform

import (
	"os"
	"path/filepath"
)

// subreapers tells that there are no child subreapers: they are Linux's.
const subreapers = false

// workDir returns the directory a command starts in: rel under abs, as checked through
// the root just before. Without /proc a component swapped for a symlink between the check
// and the start could still move it; keep other writers out of the directory.
func workDir(_ *os.Root, abs, rel string) (string, func(), error) {
	return filepath.Join(abs, rel), func() {}, nil
}
