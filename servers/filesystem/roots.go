package filesystem

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// sessionRoots is what a legacy session's client said of its roots.
type sessionRoots struct {
	sess  *server.Session
	stale atomic.Bool // the roots must be asked (again) before the next call

	mu      sync.Mutex // held while asking
	set     *dirSet    // the client's roots; nil: the configured directories
	dropped bool       // the session ended or the FS closed
}

// drop releases the session's roots.
func (st *sessionRoots) drop() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.dropped = true
	if st.set != nil {
		st.set.release()
		st.set = nil
	}
}

// session returns the roots state of sess, made stale (to be asked) when
// new. States of sessions that ended are dropped on the way.
func (f *FS) session(sess *server.Session) (*sessionRoots, error) {
	var ended []*sessionRoots
	defer func() { // not under f.mu: a call of an ended session may hold st.mu and want f.mu
		for _, st := range ended {
			st.drop()
		}
	}()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errClosed
	}
	if st, ok := f.sessions[sess]; ok {
		return st, nil
	}
	for s, st := range f.sessions {
		select {
		case <-s.Done():
			ended = append(ended, st)
			delete(f.sessions, s)
		default:
		}
	}
	st := &sessionRoots{sess: sess}
	st.stale.Store(true)
	f.sessions[sess] = st
	return st, nil
}

// RootsListChanged marks the session's roots to be asked again before its
// next tool call. ServerOptions installs it as
// server.Options.OnRootsListChanged.
func (f *FS) RootsListChanged(ctx context.Context, sess *server.Session) {
	if st, err := f.session(sess); err == nil {
		st.stale.Store(true)
	}
}

// dirsFor returns the allowed directories for a call, held: the caller
// releases them.
//
// A legacy session whose client declares the roots capability asks the
// client for its roots before its first tool call and again after each
// notifications/roots/list_changed, then uses them for every call until
// they change. The official server asks as soon as the session is
// initialized; asking at the first call instead works over every
// transport (over HTTP the question travels on the call's own response
// stream) and guarantees that the call sees the roots.
func (f *FS) dirsFor(ctx context.Context, req *server.Request) (*dirSet, error) {
	if !f.rootsAsked(req) {
		return f.acquireBase()
	}
	if req.Session == nil {
		res, err := req.ListRoots(ctx)
		if err != nil {
			if errors.Is(err, server.ErrInputRequired) {
				return nil, err // the server asks the client and retries the call
			}
			f.log.Warn("filesystem: asking the client for its roots failed", "error", err)
			return f.acquireBase()
		}
		set := f.rootsSet(res.Roots)
		if len(set.dirs) > 0 {
			return set, nil // held once: the caller's release closes it
		}
		set.release()
		return f.acquireBase()
	}
	st, err := f.session(req.Session)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dropped {
		return nil, errClosed
	}
	if st.stale.Swap(false) {
		rctx, cancel := context.WithTimeout(ctx, f.opts.RootsTimeout)
		res, err := req.ListRoots(rctx)
		cancel()
		switch {
		case err != nil:
			f.log.Warn("filesystem: asking the client for its roots failed; keeping the current directories", "error", err)
		default:
			// Once roots are in force, roots that name no usable directory
			// withdraw access (as in the official server, 2.3.0): a client
			// that withdraws its roots withdraws the server's access too.
			// Before, the configured directories stay.
			set := f.rootsSet(res.Roots)
			switch {
			case len(set.dirs) > 0 || st.set != nil:
				if len(set.dirs) == 0 {
					f.log.Warn("filesystem: the client's roots name no usable directory; access withdrawn until they do")
				}
				if st.set != nil {
					st.set.release()
				}
				st.set = set
			default:
				set.release()
				f.log.Warn("filesystem: the client gave no usable root; keeping the current directories")
			}
		}
	}
	if st.set != nil {
		st.set.acquire()
		return st.set, nil
	}
	return f.acquireBase()
}

// The official server's words for a server that has no allowed
// directory and no way to get one: started without directories, with a
// legacy client that does not give roots, or in the stateless era, whose
// clients cannot.
const (
	noDirsText       = "Server cannot operate: No allowed directories available. Server was started without command-line directories and client does not support MCP roots protocol. Please either: 1) Start server with directory arguments, or 2) Use a client that supports MCP roots protocol and provides valid root directories."
	noDirsModernText = "Server cannot operate: No allowed directories available. Server was started without command-line directories, and on protocol version 2026-07-28 the client cannot provide them through MCP Roots. Restart the server with the directories it may access as command-line arguments."
)

// cannotOperate says why a call cannot run when set (the directories
// dirsFor returned) is empty and the client cannot change that, or
// returns nil: a client that gives roots may yet name a directory, and
// until it does every path is refused on its own.
func (f *FS) cannotOperate(req *server.Request, set *dirSet) error {
	if len(set.dirs) > 0 || f.rootsAsked(req) {
		return nil
	}
	if req.Session == nil {
		return toolError(noDirsModernText)
	}
	return toolError(noDirsText)
}

// rootsAsked reports whether the client of req is asked for its roots.
func (f *FS) rootsAsked(req *server.Request) bool {
	if f.opts.Roots == RootsIgnore || req.ClientCapabilities().Roots == nil {
		return false
	}
	return req.Session != nil || f.opts.ModernRoots && req.IsModern()
}

// rootsSet opens the roots that name existing directories, known by
// the path the client gave and by their real path (as the official
// server knows them). With RootsWithin, each is confined to the
// configured directories: kept when inside one, narrowed to the
// configured directories it holds, ignored when it overlaps none. The
// set may be empty.
func (f *FS) rootsSet(roots []mcp.Root) *dirSet {
	s := &dirSet{}
	s.refs.Store(1)
	have := func(names []string) bool {
		for _, n := range names {
			if !slices.Contains(s.names, n) {
				return false
			}
		}
		return true
	}
	for _, r := range roots {
		p, err := rootPath(r.URI)
		if err != nil {
			f.log.Warn("filesystem: skipping a root", "uri", r.URI, "error", err)
			continue
		}
		d, err := openDir(p)
		if err != nil {
			f.log.Warn("filesystem: skipping a root", "uri", r.URI, "error", err)
			continue
		}
		if f.opts.Roots != RootsWithin || len(f.base.dirs) == 0 {
			if have(d.names) {
				d.root.Close()
			} else {
				s.add(d)
			}
			continue
		}
		// Confined: the names of the root inside a configured directory,
		// and the configured directories inside the root.
		var inside []string
		for _, n := range d.names {
			if f.base.contains(n) {
				inside = append(inside, n)
			}
		}
		var held []*allowedDir
		for _, bd := range f.base.dirs {
			if withinAny(bd.real, d.names) {
				held = append(held, bd)
			}
		}
		if len(inside) == 0 && len(held) == 0 {
			f.log.Warn("filesystem: ignoring a root outside the configured directories (confined)", "uri", r.URI)
		}
		if len(inside) > 0 && !have(inside) {
			d.names = inside
			s.add(d)
		} else {
			d.root.Close()
		}
		for _, bd := range held {
			if have(bd.names) {
				continue
			}
			nd, err := openDir(bd.real)
			if err != nil {
				f.log.Warn("filesystem: skipping a configured directory", "dir", bd.real, "error", err)
				continue
			}
			nd.names = bd.names
			s.add(nd)
		}
	}
	return s
}

// rootPath turns a root's URI into a path: a file: URI, or (as the
// official server accepts) a plain path.
func rootPath(uri string) (string, error) {
	if !strings.HasPrefix(uri, "file://") {
		return uri, nil
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", errorf("a file URI of another host (%s) cannot name a directory here", u.Host)
	}
	if strings.Contains(strings.ToLower(u.EscapedPath()), "%2f") {
		return "", errorf("a file URI must not hold an encoded /")
	}
	return filepath.FromSlash(u.Path), nil
}
