package inspect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/config"
)

// The servers catalog: mcpwire inspect started without a server lists
// the servers of the hosts' configuration files (what mcpwire servers
// shows), and connects to the one the person chooses; the page can
// switch between them.
//
// The page names a server, never a command: the inspector reads the
// files again when it connects, and starts only the server that name
// stands for (the first file's, as @NAME does). A name no file has, an
// entry that is not valid, and the servers of a file that another user
// could have written (writable by others, or not the person's: see
// fileTrust) are refused. A project's file (.mcp.json, .vscode/mcp.json,
// .cursor/mcp.json: what a cloned repository brings, and which comes
// first in the order, so that its "github" hides the person's) may name
// any command: its servers are listed, marked, and started only once
// the person has trusted the entry the page shows (Trust, the digest of
// the entry as written, sent back): an entry that changes is trusted no
// more. The doctor of a server of the catalog starts it too, and asks
// the same. What the page shows of a server is masked as mcpwire
// servers masks it: variables unexpanded, env and header values never
// shown; but a project's entry, which the person trusts as shown, is
// shown as written, all that its digest covers (config.Server.Written),
// the variables of its envFile (which the repository brings too)
// included.

// catalogState is the catalog as the page shows it.
type catalogState struct {
	Servers []catalogEntry `json:"servers"`
	// Current is the name of the server of the session, if any.
	Current string `json:"current,omitempty"`
	// Error is why the last connection failed, if it did.
	Error string `json:"error,omitempty"`
}

// catalogEntry is one server of the catalog.
type catalogEntry struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind,omitempty"`
	Target   string   `json:"target"`             // as written, masked
	Settings []string `json:"settings,omitempty"` // env or headers, values masked
	File     string   `json:"file"`
	Host     string   `json:"host"`
	Project  bool     `json:"project,omitempty"`  // a project's file (the current directory's)
	Shadowed bool     `json:"shadowed,omitempty"` // an earlier file has the name
	Error    string   `json:"error,omitempty"`    // the entry is not valid
	Refused  string   `json:"refused,omitempty"`  // why the inspector will not start it
	// Trust is the digest of a project file's entry (entryDigest), which
	// the person sends to trust it; Trusted says it is trusted.
	Trust   string `json:"trust,omitempty"`
	Trusted bool   `json:"trusted,omitempty"`
}

// readCatalog reads the hosts' files into a catalog.
func (in *Inspector) readCatalog() (*catalogState, *config.Listing, error) {
	files, m, err := in.app.ConfigFiles()
	if err != nil {
		return nil, nil, err
	}
	l, err := config.List(files)
	if err != nil {
		return nil, nil, err
	}
	c := &catalogState{Servers: []catalogEntry{}}
	for _, s := range l.Servers {
		e := catalogEntry{Name: s.Name, Kind: string(s.Kind), File: s.File.Path, Host: s.File.Host.Title(), Project: s.File.Project, Shadowed: !l.Winner(s)}
		switch {
		case s.Err != nil:
			e.Error = s.Err.Error()
		case s.File.Project:
			e.Target, e.Settings = s.Written() // trusted as shown: all of it
		default:
			e.Target, e.Settings = s.Target(), s.Settings()
		}
		if why := fileTrust(s.File.Path); why != "" {
			e.Refused = why
		}
		if s.File.Project && s.Err == nil {
			envFile := envFileLines(s, m)
			e.Settings = append(e.Settings, envFile...)
			e.Trust = entryDigest(s, envFile)
		}
		c.Servers = append(c.Servers, e)
	}
	return c, l, nil
}

// markTrusted marks the entries of c the person trusted; in.mu is held.
func (in *Inspector) markTrusted(c *catalogState) {
	for i := range c.Servers {
		if e := &c.Servers[i]; e.Trust != "" && in.trusted[e.Trust] {
			e.Trusted = true
		}
	}
}

// loadCatalog puts the catalog in the state.
func (in *Inspector) loadCatalog() error {
	c, _, err := in.readCatalog()
	if err != nil {
		return err
	}
	in.mu.Lock()
	if in.st.Catalog != nil {
		c.Current = in.st.Catalog.Current
	}
	in.markTrusted(c)
	in.st.Catalog = c
	in.mu.Unlock()
	in.publish()
	return nil
}

// connectArgs are the page's choice of a server of the catalog: its
// name, nothing else, and for a server of a project's file, the digest
// of its entry the person trusts.
type connectArgs struct {
	Name  string `json:"name"`
	Trust string `json:"trust,omitempty"`
}

// Why the catalog will not start a server.
var (
	errNotInCatalog = errors.New("no server of that name in the hosts' configuration files")
	errRefusedFile  = errors.New("the inspector does not start the servers of this file")
	errNoCatalog    = errors.New("mcpwire inspect was started with a server: there is no catalog")
	errUntrusted    = errors.New("a server of a project's file (which a repository brings, and which may name any command) starts only once you trust its entry as the page shows it")
	errChanged      = errors.New("the entry of this project server changed since the page showed it: look at it again, and trust it again")
	errRaced        = errors.New("the configuration file changed while mcpwire read it: try again")
)

// catalogTarget returns the target of the server of the catalog name
// stands for, if the inspector may start it (connecting, or the
// doctor): a server of the files as they are now, of a file no other
// user may write, and, for a project's file, whose entry the person
// trusted (trust, the digest the page showed, trusts it for the rest of
// the inspection). The target is the entry that was checked: one that
// changed in between is refused.
func (in *Inspector) catalogTarget(name, trust string) (*app.Target, error) {
	in.mu.Lock()
	has := in.st.Catalog != nil
	in.mu.Unlock()
	if in.app == nil || !has {
		return nil, errNoCatalog
	}
	_, l, err := in.readCatalog() // again: what the files say now
	if err != nil {
		return nil, err
	}
	s, _ := l.Lookup(name)
	switch {
	case s == nil:
		return nil, fmt.Errorf("%w: %q", errNotInCatalog, name)
	case s.Err != nil:
		return nil, fmt.Errorf("server %q: %v", name, s.Err)
	}
	if why := fileTrust(s.File.Path); why != "" {
		return nil, fmt.Errorf("%w: %s", errRefusedFile, why)
	}
	var envFile []string // of a project's entry, as the page shows it
	if s.File.Project {
		_, m, err := in.app.ConfigFiles()
		if err != nil {
			return nil, err
		}
		envFile = envFileLines(s, m)
	}
	digest := entryDigest(s, envFile)
	if s.File.Project {
		in.mu.Lock()
		trusted := in.trusted[digest]
		switch {
		case trusted:
		case trust == digest:
			if in.trusted == nil {
				in.trusted = make(map[string]bool)
			}
			in.trusted[digest], trusted = true, true
		}
		in.mu.Unlock()
		switch {
		case trusted:
		case trust != "":
			return nil, errChanged
		default:
			return nil, fmt.Errorf("%w (%s)", errUntrusted, s.File.Path)
		}
	}
	t, err := in.app.ParseTarget("@NAME", "@"+name)
	if err != nil {
		return nil, err
	}
	if t.Config == nil || entryDigest(t.Config, envFile) != digest {
		return nil, errRaced // the file changed between the two readings
	}
	t.Observer = nil // the inspector's own, with --trace's
	return &t, nil
}

// entryDigest returns the SHA-256, in hex, of a server's entry as
// written (its file, name and every field that says what runs, values
// included) and of the lines of its envFile (envFileLines), which the
// person trusts.
func entryDigest(s *config.Server, envFile []string) string {
	data, _ := json.Marshal(struct {
		File, Name, Kind, Command string
		Args                      []string
		Env                       []config.EnvVar
		EnvFile, Cwd, URL         string
		Headers                   []config.Header
		EnvFileLines              []string
	}{s.File.Path, s.Name, string(s.Kind), s.Command, s.Args, s.Env, s.EnvFile, s.Cwd, s.URL, s.Headers, envFile})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// envFileLines returns the variables of the envFile of a project's
// entry, as the page shows them ("envFile: NAME=VALUE", as the file
// writes them), or why it cannot be read: a repository brings the file
// with the entry, and the person trusts both as shown.
func envFileLines(s *config.Server, m *config.Machine) []string {
	if s.Kind != config.Stdio || s.EnvFile == "" {
		return nil
	}
	l, err := s.Resolve(m)
	if err != nil {
		return []string{"envFile: " + err.Error()}
	}
	out := []string{}
	for _, v := range l.EnvFile {
		out = append(out, "envFile: "+v.Name+"="+v.Value)
	}
	return out
}

// connectTo connects to the server of the catalog the page names. The
// page's request does not bound the connection (openContext).
func (in *Inspector) connectTo(_ context.Context, a *connectArgs) (*outcome, error) {
	t, err := in.catalogTarget(a.Name, a.Trust)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	octx, cancel := in.openContext()
	defer cancel()
	err = in.open(octx, t, in.logger())
	if errors.Is(err, errOpening) {
		return nil, err
	}
	c, _, rerr := in.readCatalog()
	in.mu.Lock()
	if rerr != nil || c == nil {
		c = in.st.Catalog
	} else if in.st.Catalog != nil {
		c.Current = in.st.Catalog.Current
	}
	in.markTrusted(c)
	c.Error = ""
	if err != nil {
		c.Error = a.Name + ": " + describe(err).Message
	} else {
		c.Current = a.Name
	}
	in.st.Catalog = c
	in.mu.Unlock()
	in.publish()
	if err != nil {
		return &outcome{Error: describe(err), MS: msSince(start)}, nil
	}
	return &outcome{Result: struct{}{}, MS: msSince(start)}, nil
}
