package config

import (
	"fmt"
	"slices"
	"strings"
)

// A Listing is what the configuration files hold: every server of every
// file that exists, in the order of the files and of each file.
type Listing struct {
	Files   []*File // the files looked at, in order
	Found   []*File // those that exist
	Servers []*Server
}

// List reads files in order. It stops at the first file that cannot be
// read or is not valid (its *FileError is returned, with what was read
// before it).
func List(files []*File) (*Listing, error) {
	l := &Listing{Files: files}
	for _, f := range files {
		servers, ok, err := Read(f)
		if err != nil {
			return l, err
		}
		if ok {
			l.Found = append(l.Found, f)
		}
		l.Servers = append(l.Servers, servers...)
	}
	return l, nil
}

// Lookup returns the server name of the first file that has one, and the
// servers of later files it hides.
func (l *Listing) Lookup(name string) (s *Server, hidden []*Server) {
	for _, x := range l.Servers {
		if x.Name != name {
			continue
		}
		if s == nil {
			s = x
		} else {
			hidden = append(hidden, x)
		}
	}
	return s, hidden
}

// Winner reports whether s is the server its name stands for: no earlier
// file has one of that name.
func (l *Listing) Winner(s *Server) bool {
	w, _ := l.Lookup(s.Name)
	return w == s
}

// Find returns the server name of the first file of files that has one.
// A file that cannot be read or is not valid before the server is found
// is an error; so is a name no file has (a *NotFoundError).
func Find(name string, files []*File) (*Server, error) {
	l := &Listing{Files: files}
	for _, f := range files {
		servers, ok, err := Read(f)
		if err != nil {
			return nil, err
		}
		if ok {
			l.Found = append(l.Found, f)
		}
		for _, s := range servers {
			if s.Name == name {
				return s, nil
			}
		}
		l.Servers = append(l.Servers, servers...)
	}
	return nil, &NotFoundError{Name: name, Listing: l}
}

// A NotFoundError is a server name that no configuration file has.
type NotFoundError struct {
	Name    string
	Listing *Listing // what the files hold
}

// Error says where the name was looked for, and which names there are.
func (e *NotFoundError) Error() string {
	l := e.Listing
	var names []string
	for _, s := range l.Servers {
		if !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no server named %q", e.Name)
	switch {
	case len(l.Found) == 1:
		fmt.Fprintf(&b, " in %s", l.Found[0].Path)
	case len(l.Found) == 0:
		b.WriteString(": no configuration file of Claude Desktop, Cursor, VS Code or Claude Code was found (mcpwire servers --help says where mcpwire looks)")
		return b.String()
	default:
		fmt.Fprintf(&b, " in the %d configuration files found", len(l.Found))
	}
	if s := suggest(e.Name, names); s != "" {
		fmt.Fprintf(&b, "; did you mean %q?", s)
	}
	switch {
	case len(names) == 0:
		b.WriteString("; they name no server")
	case len(names) <= 8:
		fmt.Fprintf(&b, "; the servers are %s", quoteJoin(names))
	default:
		fmt.Fprintf(&b, "; mcpwire servers lists their %d servers", len(names))
	}
	return b.String()
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// suggest returns the name of names closest to name, within 2 edits
// (ignoring case), or "".
func suggest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := distance(strings.ToLower(name), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance returns the Levenshtein distance of a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
