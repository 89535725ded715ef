package filesystem

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// Limits that apply unless Options change them.
const (
	// DefaultMaxReadBytes bounds what one call reads: a file of
	// read_text_file, read_file or read_media_file, the total of
	// read_multiple_files, the file edit_file edits, and the part of a file
	// that head or tail reads. It keeps answers within the 16 MiB messages
	// that MCP peers accept by default, base64 and JSON escapes included.
	DefaultMaxReadBytes = 8 << 20
	// DefaultMaxWriteBytes bounds what write_file and edit_file write.
	DefaultMaxWriteBytes = 16 << 20
	// DefaultMaxEntries bounds the directory entries one call lists or
	// visits: list_directory, list_directory_with_sizes, directory_tree
	// and search_files.
	DefaultMaxEntries = 200_000
	// DefaultRootsTimeout bounds the wait for a client's answer to
	// roots/list.
	DefaultRootsTimeout = 10 * time.Second
)

// RootsPolicy says what a client's roots do to the allowed directories.
type RootsPolicy int

const (
	// RootsReplace: the client's roots replace the configured
	// directories, as in the official server. A client that declares the
	// roots capability decides what the tools may touch.
	RootsReplace RootsPolicy = iota
	// RootsWithin: the client's roots replace the configured directories,
	// confined to them (2.3.0's --confine-roots): a root inside a
	// configured directory is kept, a root that holds configured
	// directories is narrowed to them, and a root that overlaps none is
	// ignored. The client can narrow access, never widen it.
	RootsWithin
	// RootsIgnore: the configured directories always apply.
	RootsIgnore
)

// Options configure an FS. A nil *Options, and every zero field, mean the
// defaults.
type Options struct {
	// MaxReadBytes, MaxWriteBytes and MaxEntries override
	// DefaultMaxReadBytes, DefaultMaxWriteBytes and DefaultMaxEntries.
	MaxReadBytes  int64
	MaxWriteBytes int64
	MaxEntries    int
	// Roots says what the client's roots do; default RootsReplace.
	Roots RootsPolicy
	// ModernRoots makes every tool call of the stateless era
	// (2026-07-28) ask a client that declares the roots capability for
	// its roots first, in an input_required round: one more round trip
	// per call. Without it, modern requests use the configured
	// directories; see the package documentation.
	ModernRoots bool
	// ReadOnly withholds every tool that can change the file system: only
	// the tools annotated readOnlyHint true are listed (2.3.0's
	// --read-only). A tool added later is withheld unless it says it
	// cannot write.
	ReadOnly bool
	// ReadOnlyDirs are directories the tools may read but never write
	// into (2.3.0's --read-only-dir): a write, an append, a copy into one,
	// an edit (even a dry run), a directory created in one, and a move
	// whose source or destination is in one or holds one, are refused
	// with the official "Access denied - read-only directory" text. Each
	// must exist when New runs; it is an allowed directory too. The
	// marking holds whatever the client's roots, and follows the
	// directory: a symbolic link into it, or a rename of it or of a
	// directory above it, does not lift it.
	ReadOnlyDirs []string
	// RootsTimeout overrides DefaultRootsTimeout.
	RootsTimeout time.Duration
	// Logger receives diagnostics (roots that could not be used, for
	// example). Default: discarded.
	Logger *slog.Logger
}

// FS serves the filesystem tools over a set of allowed directories. Its
// methods are safe for concurrent use.
type FS struct {
	opts Options
	log  *slog.Logger
	base *dirSet // the configured directories
	ro   []*readOnlyDir

	mu       sync.Mutex
	sessions map[*server.Session]*sessionRoots
	closed   bool
}

// New opens the allowed directories (absolute paths, paths relative to
// the working directory, or paths starting with ~/) and returns the tools
// over them. Each must be a directory; symbolic links in their paths are
// resolved once, here. With no directories, the tools work only for
// clients that provide roots.
func New(dirs []string, opts *Options) (*FS, error) {
	f := &FS{sessions: make(map[*server.Session]*sessionRoots)}
	if opts != nil {
		f.opts = *opts
	}
	if f.opts.MaxReadBytes <= 0 {
		f.opts.MaxReadBytes = DefaultMaxReadBytes
	}
	if f.opts.MaxWriteBytes <= 0 {
		f.opts.MaxWriteBytes = DefaultMaxWriteBytes
	}
	if f.opts.MaxEntries <= 0 {
		f.opts.MaxEntries = DefaultMaxEntries
	}
	if f.opts.RootsTimeout <= 0 {
		f.opts.RootsTimeout = DefaultRootsTimeout
	}
	f.log = f.opts.Logger
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	ro, err := openReadOnlyDirs(f.opts.ReadOnlyDirs)
	if err != nil {
		return nil, err
	}
	// A read-only directory is an allowed directory too, as in 2.3.0.
	base, err := openDirs(append(append([]string(nil), dirs...), f.opts.ReadOnlyDirs...))
	if err != nil {
		closeReadOnlyDirs(ro)
		return nil, err
	}
	f.base, f.ro = base, ro
	return f, nil
}

// Close closes the allowed directories. Calls still running finish with
// the directories they hold; later calls fail.
func (f *FS) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	states := f.sessions
	f.sessions = nil
	f.mu.Unlock()
	for _, st := range states { // not under f.mu: a call may hold st.mu and want f.mu
		st.drop()
	}
	f.base.release()
	closeReadOnlyDirs(f.ro)
	return nil
}

// Dirs returns the configured allowed directories, as
// list_allowed_directories shows them to a client without roots.
func (f *FS) Dirs() []string { return append([]string(nil), f.base.names...) }

// Instructions tells the model how to use the tools; Server and
// ServerOptions send it to clients.
const Instructions = `These tools read, write, edit, move and search files, but only inside the allowed directories: call list_allowed_directories first to learn them. Paths may be absolute or relative to the first allowed directory. Prefer read_text_file with head or tail for large files and read_multiple_files for several; run edit_file with dryRun true to preview a change as a diff before applying it. write_file overwrites without asking; move_file never overwrites.`

// ServerOptions returns a copy of opts (or of the zero Options) that an
// FS needs from the server it is registered with: the instructions (after
// any already there) and the hook that hears a client's
// notifications/roots/list_changed (chained before any already set).
func (f *FS) ServerOptions(opts *server.Options) *server.Options {
	var o server.Options
	if opts != nil {
		o = *opts
	}
	if o.Instructions == "" {
		o.Instructions = Instructions
	} else {
		o.Instructions += "\n\n" + Instructions
	}
	prev := o.OnRootsListChanged
	o.OnRootsListChanged = func(ctx context.Context, sess *server.Session) {
		f.RootsListChanged(ctx, sess)
		if prev != nil {
			prev(ctx, sess)
		}
	}
	return &o
}

// Server returns a server with the tools, the instructions and the roots
// hook: the server of mcpwire serve filesystem. opts may be nil.
func (f *FS) Server(opts *server.Options) (*server.Server, error) {
	srv := server.New(Implementation(), f.ServerOptions(opts))
	if err := f.Register(srv); err != nil {
		return nil, err
	}
	return srv, nil
}

// Implementation is the server's name and version: mcpwire-filesystem and
// the version of the mcpwire module it was built from.
func Implementation() mcp.Implementation {
	return mcp.Implementation{Name: "mcpwire-filesystem", Title: "Filesystem", Version: mcpwire.Version()}
}

// errClosed fails calls after Close.
var errClosed = errors.New("the filesystem server is closed")

// acquireBase returns the configured directories, held for a call.
func (f *FS) acquireBase() (*dirSet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errClosed
	}
	f.base.acquire()
	return f.base, nil
}
