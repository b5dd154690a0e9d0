//go:build !go1.25

package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/toolhint/toolhint/schema"
)

// mkdirAll creates p and its missing parents one prefix at a time, each resolved from the
// root again (os.Root has no MkdirAll before Go 1.25): the work grows with the square of
// the depth.
func (f *Files) mkdirAll(ctx context.Context, p string) (DirCreated, error) {
	out := DirCreated{Path: p}
	parts := strings.Split(p, "/")
	for i := range parts {
		if err := ctx.Err(); err != nil {
			return DirCreated{}, err
		}
		cur := strings.Join(parts[:i+1], "/")
		err := f.root.Mkdir(cur, 0o755)
		if err == nil {
			out.Created = true
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return DirCreated{}, fileErr(ToolCreateDirectory, cur, err)
		}
		fi, err := f.root.Stat(cur)
		if err != nil {
			return DirCreated{}, fileErr(ToolCreateDirectory, cur, err)
		}
		if !fi.IsDir() {
			return DirCreated{}, fmt.Errorf("%w: %s %q exists and is not a directory", ErrExists, ToolCreateDirectory, schema.Excerpt(cur))
		}
	}
	return out, nil
}
