//go:build go1.25

package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/toolhint/toolhint/schema"
)

// mkdirAll creates p and its missing parents with os.Root.MkdirAll, which walks the path
// once holding each directory it opened (openat with O_DIRECTORY, so a FIFO on the way is
// refused, not opened): the work grows with the depth, not with its square as when every
// prefix is resolved from the root again.
func (f *Files) mkdirAll(_ context.Context, p string) (DirCreated, error) {
	// Asked first: a race only mislabels Created.
	_, err := f.root.Lstat(p)
	out := DirCreated{Path: p, Created: errors.Is(err, fs.ErrNotExist)}
	if err := f.root.MkdirAll(p, 0o755); err != nil {
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
			return DirCreated{}, fmt.Errorf("%w: %s %q: it or a directory on its way exists and is not a directory", ErrExists, ToolCreateDirectory, schema.Excerpt(p))
		}
		return DirCreated{}, fileErr(ToolCreateDirectory, p, err)
	}
	return out, nil
}
