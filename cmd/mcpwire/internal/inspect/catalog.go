package inspect

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// fileTrust) are refused. What the page shows of a server is masked as
// mcpwire servers masks it: variables unexpanded, env and header values
// never shown.

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
}

// readCatalog reads the hosts' files into a catalog.
func (in *Inspector) readCatalog() (*catalogState, *config.Listing, error) {
	files, _, err := in.app.ConfigFiles()
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
		if s.Err != nil {
			e.Error = s.Err.Error()
		} else {
			e.Target, e.Settings = s.Target(), s.Settings()
		}
		if why := fileTrust(s.File.Path); why != "" {
			e.Refused = why
		}
		c.Servers = append(c.Servers, e)
	}
	return c, l, nil
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
	in.st.Catalog = c
	in.mu.Unlock()
	in.publish()
	return nil
}

// connectArgs are the page's choice of a server of the catalog: its
// name, nothing else.
type connectArgs struct {
	Name string `json:"name"`
}

// errNotInCatalog is the refusal of a name the files do not have.
var errNotInCatalog = errors.New("no server of that name in the hosts' configuration files")

// connectTo connects to the server of the catalog the page names. The
// page's request does not bound the connection (openContext).
func (in *Inspector) connectTo(_ context.Context, a *connectArgs) (*outcome, error) {
	if in.app == nil || in.st.Catalog == nil {
		return nil, errors.New("mcpwire inspect was started with a server: there is no catalog")
	}
	c, l, err := in.readCatalog() // again: what the files say now
	if err != nil {
		return nil, err
	}
	s, _ := l.Lookup(a.Name)
	if s == nil {
		return nil, fmt.Errorf("%w: %q", errNotInCatalog, a.Name)
	}
	for _, e := range c.Servers {
		if e.Name == a.Name && !e.Shadowed && e.Refused != "" {
			return nil, fmt.Errorf("%w: %s", errRefusedFile, e.Refused)
		}
	}
	if s.Err != nil {
		return nil, fmt.Errorf("server %q: %v", a.Name, s.Err)
	}
	t, err := in.app.ParseTarget("@NAME", "@"+a.Name)
	if err != nil {
		return nil, err
	}
	t.Observer = nil // the inspector's own, with --trace's
	start := time.Now()
	octx, cancel := in.openContext()
	defer cancel()
	err = in.open(octx, &t, in.logger())
	if errors.Is(err, errOpening) {
		return nil, err
	}
	in.mu.Lock()
	if in.st.Catalog != nil {
		c.Current = in.st.Catalog.Current
	}
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

// errRefusedFile is the refusal of a server of a file another user
// could have written.
var errRefusedFile = errors.New("the inspector does not start the servers of this file")
