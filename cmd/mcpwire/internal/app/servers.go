package app

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/config"
)

// A server named with --server NAME or @NAME comes from the MCP hosts'
// configuration files (package config): --config FILE, or the usual files
// of Claude Desktop, Cursor, VS Code and Claude Code. Its variables are
// expanded as its host does, and its secrets (env and header values, what
// variables expanded to) are masked in everything mcpwire writes on
// stderr from then on.

// Machine returns what the hosts' files are looked for with: the
// operating system, the environment and the current directory.
func (a *App) Machine() (*config.Machine, error) {
	dir, err := a.Getwd()
	if err != nil {
		return nil, fmt.Errorf("cannot find the current directory: %w", err)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	return &config.Machine{GOOS: runtime.GOOS, LookupEnv: a.LookupEnv, Dir: dir}, nil
}

// ConfigFiles returns the configuration files to read: the one of
// --config, or the usual ones (config.Files).
func (a *App) ConfigFiles() ([]*config.File, *config.Machine, error) {
	m, err := a.Machine()
	if err != nil {
		return nil, nil, Failure(err)
	}
	if a.flags.config != "" {
		return []*config.File{config.Given(a.flags.config, m)}, m, nil
	}
	return config.Files(m), m, nil
}

// configTarget makes t the configured server name: its command, with its
// environment and directory, or its URL and headers. A name no file has
// is a usage error; a file that cannot be read, or a variable that
// cannot be expanded, is a failure.
func (a *App) configTarget(t *Target, name string) error {
	files, m, err := a.ConfigFiles()
	if err != nil {
		return err
	}
	s, err := config.Find(name, files)
	var nf *config.NotFoundError
	switch {
	case errors.As(err, &nf):
		return UsageErrorf("%v", err)
	case err != nil:
		return Failure(err)
	}
	l, err := s.Resolve(m)
	if err != nil {
		return Failure(err)
	}
	a.hide(l.Secrets...)
	t.Config = s
	if s.Kind == config.Stdio {
		t.Command, t.Env, t.Unset, t.Dir = l.Command, l.Env, l.Unset, l.Dir
		return nil
	}
	if err := checkConfigURL(l.URL); err != nil {
		return Failure(fmt.Errorf("%s: server %q: %w", s.Where(), s.Name, err))
	}
	t.URL = l.URL
	t.TokenStore, _ = TokenStorePath(a.Getenv)
	for _, h := range l.Headers {
		if !validHeaderName(h.Name) || strings.ContainsAny(h.Value, "\r\n\x00") {
			return Failure(fmt.Errorf("%s: server %q: header %q is not a valid HTTP header (its value is not shown)", s.Where(), s.Name, h.Name))
		}
		t.Headers = append(t.Headers, Header{Key: h.Name, Value: h.Value})
	}
	return nil
}

// checkConfigURL checks a configured server's URL (http or https, as
// config checked) as --url is checked: no credentials, no fragment.
func checkConfigURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return err
	case u.User != nil:
		return errors.New(`put credentials in "headers", not in the url`)
	case u.Fragment != "":
		return errors.New("a URL with a fragment (#) names no server")
	}
	return nil
}

// describeConfig describes the configured server s for --verbose, its
// secrets masked.
func describeConfig(s *config.Server) string {
	d := fmt.Sprintf("server %q of %s (%s): %s", s.Name, s.File.Path, s.File.Host.Title(), s.Target())
	if set := s.Settings(); len(set) > 0 {
		d += "; " + strings.Join(set, ", ")
	}
	return d
}

// serverNames returns the names of the configured servers, for shell
// completion; none if the files cannot be read.
func (a *App) serverNames() []string {
	files, _, err := a.ConfigFiles()
	if err != nil {
		return nil
	}
	l, _ := config.List(files)
	var names []string
	for _, s := range l.Servers {
		if s.Err == nil && l.Winner(s) {
			names = append(names, s.Name)
		}
	}
	return names
}
