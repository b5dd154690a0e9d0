package platform

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/schema"
)

// Names of the file tools.
const (
	ToolReadFile        = "read_file"
	ToolWriteFile       = "write_file"
	ToolListDirectory   = "list_directory"
	ToolCreateDirectory = "create_directory"
	ToolDeleteFile      = "delete_file"
)

// Defaults of FilesConfig.
const (
	DefaultMaxReadBytes   = 1 << 20
	DefaultMaxWriteBytes  = 1 << 20
	DefaultMaxListEntries = 1000
)

// maxPathLen bounds a path the model writes.
const maxPathLen = 4096

// maxDirScan bounds the entries list_directory reads from one directory.
const maxDirScan = 100_000

// FilesConfig configures NewFiles. It is copied by the constructor; changing it afterwards
// has no effect.
type FilesConfig struct {
	// Root is the directory the tools work in. Required: it must exist.
	Root string
	// MaxReadBytes caps what read_file returns; longer files are cut and flagged truncated.
	// Optional. Defaults to DefaultMaxReadBytes.
	MaxReadBytes int64
	// MaxWriteBytes caps what write_file writes in one call and the size a file may reach
	// by appending. Optional. Defaults to DefaultMaxWriteBytes.
	MaxWriteBytes int64
	// MaxListEntries caps the entries list_directory returns. Optional. Defaults to
	// DefaultMaxListEntries.
	MaxListEntries int
	// AllowOverwrite lets write_file replace an existing file when the model asks for it.
	// Replacing is destructive, so with it set write_file is marked Destructive and the
	// executor runs it only when the host's confirmation hook allows. Optional: without it
	// write_file creates new files and appends to existing ones only.
	AllowOverwrite bool
}

// Files holds the file tools over one root directory. It keeps the directory open (an
// os.Root) until Close. It is safe for concurrent use.
type Files struct {
	root  *os.Root
	cfg   FilesConfig
	specs []registry.ToolSpec
}

// NewFiles opens cfg.Root and returns the file tools over it. It fails with
// ErrInvalidConfig when Root is empty or not a directory. The caller must call Close.
func NewFiles(cfg FilesConfig) (*Files, error) {
	if cfg.Root == "" {
		return nil, fmt.Errorf("%w: files need a root directory", ErrInvalidConfig)
	}
	root, err := os.OpenRoot(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("%w: files root: %v", ErrInvalidConfig, err)
	}
	if cfg.MaxReadBytes <= 0 {
		cfg.MaxReadBytes = DefaultMaxReadBytes
	}
	if cfg.MaxWriteBytes <= 0 {
		cfg.MaxWriteBytes = DefaultMaxWriteBytes
	}
	if cfg.MaxListEntries <= 0 {
		cfg.MaxListEntries = DefaultMaxListEntries
	}
	f := &Files{root: root, cfg: cfg}
	if err := f.buildSpecs(); err != nil {
		root.Close()
		return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	return f, nil
}

// Close closes the root directory; the tools fail afterwards. Close is idempotent.
func (f *Files) Close() error {
	if err := f.root.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("platform: close files root: %w", err)
	}
	return nil
}

// Tools returns read_file, write_file, list_directory, create_directory and delete_file,
// in that order, in registry.CategoryFile: pick the ones to register. delete_file is
// destructive (the executor runs it only with the host's confirmation); so is write_file
// when AllowOverwrite is set. The specs are the caller's.
func (f *Files) Tools() []registry.ToolSpec { return slices.Clone(f.specs) }

func (f *Files) buildSpecs() error {
	writeDesc := "Write a file under the workspace directory (relative path). Creates a new file, or appends to one with append=true"
	if f.cfg.AllowOverwrite {
		writeDesc += ", or replaces one with overwrite=true"
	}
	writeDesc += fmt.Sprintf(". The parent directory must exist. At most %d bytes.", f.cfg.MaxWriteBytes)
	var errs []error
	add := func(spec registry.ToolSpec, err error) {
		errs = append(errs, err)
		f.specs = append(f.specs, spec)
	}
	add(registry.Typed(registry.ToolSpec{Name: ToolReadFile, Category: registry.CategoryFile, ReadOnly: true,
		Description: fmt.Sprintf("Read a file under the workspace directory (relative path). Returns at most %d bytes; binary content comes back base64-encoded.", f.cfg.MaxReadBytes)}, f.readFile))
	add(registry.Typed(registry.ToolSpec{Name: ToolWriteFile, Category: registry.CategoryFile, Security: registry.SecurityMedium,
		Destructive: f.cfg.AllowOverwrite, Description: writeDesc}, f.writeFile))
	add(registry.Typed(registry.ToolSpec{Name: ToolListDirectory, Category: registry.CategoryFile, ReadOnly: true,
		Description: "List a directory under the workspace directory (relative path; empty for the workspace itself): names, types and sizes."}, f.listDirectory))
	add(registry.Typed(registry.ToolSpec{Name: ToolCreateDirectory, Category: registry.CategoryFile, Security: registry.SecurityMedium, Idempotent: true,
		Description: "Create a directory under the workspace directory (relative path), with any missing parents."}, f.createDirectory))
	add(registry.Typed(registry.ToolSpec{Name: ToolDeleteFile, Category: registry.CategoryFile, Security: registry.SecurityHigh, Destructive: true,
		Description: "Delete a file or an empty directory under the workspace directory (relative path)."}, f.deleteFile))
	return errors.Join(errs...)
}

// localPath checks a path the model wrote and returns it cleaned, or an ErrPathRefused
// error. "" and "." name the root itself when allowRoot is set.
func localPath(p string, allowRoot bool) (string, error) {
	if p == "" || p == "." {
		if allowRoot {
			return ".", nil
		}
		return "", fmt.Errorf("%w: the path is empty or names the workspace directory itself", ErrPathRefused)
	}
	switch {
	case len(p) > maxPathLen:
		return "", fmt.Errorf("%w: the path is longer than %d bytes", ErrPathRefused, maxPathLen)
	case strings.IndexByte(p, 0) >= 0:
		return "", fmt.Errorf("%w: the path contains a NUL byte", ErrPathRefused)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':'):
		return "", fmt.Errorf("%w: %q is absolute; use a path relative to the workspace directory", ErrPathRefused, schema.Excerpt(p))
	}
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", fmt.Errorf("%w: %q climbs out with \"..\"", ErrPathRefused, schema.Excerpt(p))
		}
	}
	clean := path.Clean(p)
	if clean == "." && !allowRoot {
		return "", fmt.Errorf("%w: %q names the workspace directory itself", ErrPathRefused, schema.Excerpt(p))
	}
	return clean, nil
}

// fileErr turns an error of an os.Root call into the package's error for op on p. It never
// includes the root's own path.
func fileErr(op, p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s %q", ErrNotFound, op, schema.Excerpt(p))
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%w: %s %q", ErrExists, op, schema.Excerpt(p))
	case errors.Is(err, syscall.ENXIO), errors.Is(err, syscall.ENODEV):
		return fmt.Errorf("%w: %s %q is a FIFO, socket or device", ErrNotRegular, op, schema.Excerpt(p))
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: %s %q: a component of the path is not a directory", ErrNotRegular, op, schema.Excerpt(p))
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%w: %s %q goes through too many symlinks", ErrPathRefused, op, schema.Excerpt(p))
	case strings.Contains(err.Error(), "escapes"):
		return fmt.Errorf("%w: %s %q leads out of the workspace directory", ErrPathRefused, op, schema.Excerpt(p))
	}
	return fmt.Errorf("platform: %s %q: %v", op, schema.Excerpt(p), err)
}

type readFileIn struct {
	Path     string `json:"path" jsonschema_description:"File path relative to the workspace directory."`
	MaxBytes int64  `json:"max_bytes,omitempty" jsonschema_description:"Read at most this many bytes (capped by the tool's limit)."`
}

// FileContent is what read_file returns.
type FileContent struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	Content   string `json:"content"`
	Encoding  string `json:"encoding"` // EncodingUTF8 or EncodingBase64
	Truncated bool   `json:"truncated,omitempty"`
}

// openRegular opens p for reading or writing without blocking (a FIFO would block open)
// and checks with fstat that it is a regular file with no other hard link: a second name
// may be outside the root (a link made there to a file outside), and os.Root cannot tell.
func (f *Files) openRegular(op, p string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	fh, err := f.root.OpenFile(p, flag|openNonblock, perm)
	if err != nil {
		return nil, nil, fileErr(op, p, err)
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, fileErr(op, p, err)
	}
	if !fi.Mode().IsRegular() {
		fh.Close()
		what := "a FIFO, socket or device"
		if fi.IsDir() {
			what = "a directory"
		}
		return nil, nil, fmt.Errorf("%w: %s %q is %s", ErrNotRegular, op, schema.Excerpt(p), what)
	}
	if n := linkCount(fi); n > 1 {
		fh.Close()
		return nil, nil, fmt.Errorf("%w: %s %q has %d hard links, and another may be outside the workspace directory; use a file with one name", ErrPathRefused, op, schema.Excerpt(p), n)
	}
	return fh, fi, nil
}

func (f *Files) readFile(ctx context.Context, in readFileIn) (FileContent, error) {
	p, err := localPath(in.Path, false)
	if err != nil {
		return FileContent{}, err
	}
	if err := ctx.Err(); err != nil {
		return FileContent{}, err
	}
	fh, fi, err := f.openRegular(ToolReadFile, p, os.O_RDONLY, 0)
	if err != nil {
		return FileContent{}, err
	}
	defer fh.Close()
	limit := f.cfg.MaxReadBytes
	if in.MaxBytes > 0 && in.MaxBytes < limit {
		limit = in.MaxBytes
	}
	b, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return FileContent{}, fileErr(ToolReadFile, p, err)
	}
	out := FileContent{Path: p, Size: fi.Size()}
	if int64(len(b)) > limit {
		b, out.Truncated = b[:limit], true
	}
	out.Content, out.Encoding = encodeContent(b)
	return out, nil
}

type writeFileIn struct {
	Path      string `json:"path" jsonschema_description:"File path relative to the workspace directory."`
	Content   string `json:"content" jsonschema_description:"What to write."`
	Encoding  string `json:"encoding,omitempty" jsonschema:"enum=utf-8,enum=base64" jsonschema_description:"How content is encoded (default utf-8)."`
	Append    bool   `json:"append,omitempty" jsonschema_description:"Append to the file instead of creating it."`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema_description:"Replace the file when it exists, if the workspace allows it."`
}

// FileWritten is what write_file returns.
type FileWritten struct {
	Path         string `json:"path"`
	BytesWritten int    `json:"bytes_written"`
	Size         int64  `json:"size"`
	Created      bool   `json:"created"`
}

func (f *Files) writeFile(ctx context.Context, in writeFileIn) (FileWritten, error) {
	p, err := localPath(in.Path, false)
	if err != nil {
		return FileWritten{}, err
	}
	data := []byte(in.Content)
	if in.Encoding == EncodingBase64 {
		if data, err = base64.StdEncoding.DecodeString(in.Content); err != nil {
			return FileWritten{}, fmt.Errorf("platform: %s %q: content is not valid base64", ToolWriteFile, schema.Excerpt(p))
		}
	}
	if int64(len(data)) > f.cfg.MaxWriteBytes {
		return FileWritten{}, fmt.Errorf("%w: %s %q: %d bytes, more than the limit of %d", ErrTooLarge, ToolWriteFile, schema.Excerpt(p), len(data), f.cfg.MaxWriteBytes)
	}
	if in.Overwrite && !f.cfg.AllowOverwrite {
		return FileWritten{}, fmt.Errorf("%w: %s %q: this workspace does not allow replacing files", ErrExists, ToolWriteFile, schema.Excerpt(p))
	}
	if err := ctx.Err(); err != nil {
		return FileWritten{}, err
	}
	flag := os.O_WRONLY | os.O_CREATE
	switch {
	case in.Append:
		flag |= os.O_APPEND
	case !in.Overwrite:
		flag |= os.O_EXCL
	}
	// Created is known for O_EXCL; otherwise ask first (a race only mislabels Created).
	created := flag&os.O_EXCL != 0
	if !created {
		_, err := f.root.Lstat(p)
		created = errors.Is(err, fs.ErrNotExist)
	}
	fh, fi, err := f.openRegular(ToolWriteFile, p, flag, 0o644)
	if err != nil {
		if errors.Is(err, ErrExists) {
			hint := "append=true"
			if f.cfg.AllowOverwrite {
				hint += " or overwrite=true"
			}
			return FileWritten{}, fmt.Errorf("%w: %s %q exists; use %s", ErrExists, ToolWriteFile, schema.Excerpt(p), hint)
		}
		return FileWritten{}, err
	}
	defer fh.Close()
	size := fi.Size()
	if in.Append && size+int64(len(data)) > f.cfg.MaxWriteBytes {
		return FileWritten{}, fmt.Errorf("%w: %s %q would grow to %d bytes, more than the limit of %d", ErrTooLarge, ToolWriteFile, schema.Excerpt(p), size+int64(len(data)), f.cfg.MaxWriteBytes)
	}
	if !in.Append && size > 0 {
		if err := fh.Truncate(0); err != nil {
			return FileWritten{}, fileErr(ToolWriteFile, p, err)
		}
		size = 0
	}
	n, err := fh.Write(data)
	if err != nil {
		return FileWritten{}, fileErr(ToolWriteFile, p, err)
	}
	if err := fh.Close(); err != nil {
		return FileWritten{}, fileErr(ToolWriteFile, p, err)
	}
	return FileWritten{Path: p, BytesWritten: n, Size: size + int64(n), Created: created}, nil
}

type listDirectoryIn struct {
	Path string `json:"path,omitempty" jsonschema_description:"Directory path relative to the workspace directory; empty for the workspace itself."`
}

// DirEntry is one entry listed by list_directory.
type DirEntry struct {
	Name string `json:"name"`
	Type string `json:"type"` // "file", "directory", "symlink" or "other"
	Size int64  `json:"size,omitempty"`
}

// DirListing is what list_directory returns.
type DirListing struct {
	Path      string     `json:"path"`
	Entries   []DirEntry `json:"entries"`
	Truncated bool       `json:"truncated,omitempty"`
}

func (f *Files) listDirectory(ctx context.Context, in listDirectoryIn) (DirListing, error) {
	p, err := localPath(in.Path, true)
	if err != nil {
		return DirListing{}, err
	}
	if err := ctx.Err(); err != nil {
		return DirListing{}, err
	}
	dh, err := f.root.OpenFile(p, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return DirListing{}, fileErr(ToolListDirectory, p, err)
	}
	defer dh.Close()
	fi, err := dh.Stat()
	if err != nil {
		return DirListing{}, fileErr(ToolListDirectory, p, err)
	}
	if !fi.IsDir() {
		return DirListing{}, fmt.Errorf("%w: %s %q is not a directory", ErrNotRegular, ToolListDirectory, schema.Excerpt(p))
	}
	// Keep the first MaxListEntries names in byte order, so a cut listing is the same
	// whatever order the file system returns entries in; stop reading at maxDirScan.
	var ents []fs.DirEntry
	out := DirListing{Path: p, Entries: []DirEntry{}}
	for scanned := 0; scanned < maxDirScan; {
		chunk, err := dh.ReadDir(1024)
		scanned += len(chunk)
		ents = append(ents, chunk...)
		if len(ents) > f.cfg.MaxListEntries {
			slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
			ents, out.Truncated = ents[:f.cfg.MaxListEntries], true
		}
		if errors.Is(err, io.EOF) || len(chunk) == 0 {
			break
		}
		if err != nil {
			return DirListing{}, fileErr(ToolListDirectory, p, err)
		}
		if err := ctx.Err(); err != nil {
			return DirListing{}, err
		}
		if scanned >= maxDirScan {
			out.Truncated = true
		}
	}
	for _, e := range ents {
		d := DirEntry{Name: e.Name(), Type: "other"}
		switch t := e.Type(); {
		case t.IsDir():
			d.Type = "directory"
		case t&fs.ModeSymlink != 0:
			d.Type = "symlink"
		case t.IsRegular():
			d.Type = "file"
			if info, err := e.Info(); err == nil {
				d.Size = info.Size()
			}
		}
		out.Entries = append(out.Entries, d)
	}
	slices.SortFunc(out.Entries, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

type createDirectoryIn struct {
	Path string `json:"path" jsonschema_description:"Directory path relative to the workspace directory."`
}

// DirCreated is what create_directory returns.
type DirCreated struct {
	Path    string `json:"path"`
	Created bool   `json:"created"` // false when it existed already
}

func (f *Files) createDirectory(ctx context.Context, in createDirectoryIn) (DirCreated, error) {
	p, err := localPath(in.Path, false)
	if err != nil {
		return DirCreated{}, err
	}
	if err := ctx.Err(); err != nil {
		return DirCreated{}, err
	}
	return f.mkdirAll(ctx, p)
}

type deleteFileIn struct {
	Path string `json:"path" jsonschema_description:"Path of a file or empty directory relative to the workspace directory."`
}

// FileDeleted is what delete_file returns.
type FileDeleted struct {
	Path    string `json:"path"`
	Deleted bool   `json:"deleted"`
}

func (f *Files) deleteFile(ctx context.Context, in deleteFileIn) (FileDeleted, error) {
	p, err := localPath(in.Path, false)
	if err != nil {
		return FileDeleted{}, err
	}
	if err := ctx.Err(); err != nil {
		return FileDeleted{}, err
	}
	// Remove unlinks a symlink itself, never what it points to.
	if err := f.root.Remove(p); err != nil {
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return FileDeleted{}, fmt.Errorf("platform: %s %q: the directory is not empty", ToolDeleteFile, schema.Excerpt(p))
		}
		return FileDeleted{}, fileErr(ToolDeleteFile, p, err)
	}
	return FileDeleted{Path: p, Deleted: true}, nil
}
