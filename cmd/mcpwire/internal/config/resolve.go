package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxEnvFileSize bounds an envFile.
const MaxEnvFileSize = 1 << 20

// A Launch is a server ready to start or to reach: its variables
// expanded and its envFile read.
type Launch struct {
	Command []string // stdio: the program and its arguments
	Env     []string // stdio: KEY=VALUE to add to mcpwire's own environment, in order
	Unset   []string // stdio: variables to remove from it (VS Code's null)
	Dir     string   // stdio: the directory to start in; "" for mcpwire's
	EnvFile []EnvVar // stdio: the variables of the envFile, as read (in Env too)
	URL     string   // http, sse
	Headers []Header // http, sse
	// Secrets are the values never to print: every env and header value
	// (and the values of the variables in them), the password and query
	// values of the URL, and every value of a VS Code input.
	Secrets []string
}

// Resolve expands the variables of s as its file's host does, reads its
// envFile, and returns what starts or reaches it. Its errors name the
// file and the server's position.
func (s *Server) Resolve(m *Machine) (*Launch, error) {
	if s.Err != nil {
		return nil, s.Err
	}
	l, err := s.resolve(m)
	if err != nil {
		return nil, &FileError{Path: s.File.Path, Line: s.Line, Col: s.Col, Err: err}
	}
	return l, nil
}

func (s *Server) resolve(m *Machine) (*Launch, error) {
	x := &expander{d: dialectOf(s.File.Host), m: m, f: s.File, s: s}
	l := &Launch{}
	if s.Kind != Stdio {
		u, err := x.expand(s.URL, "url")
		if err != nil {
			return nil, err
		}
		if err := checkURL(u); err != nil {
			return nil, fmt.Errorf("server %q: %w", s.Name, err)
		}
		l.URL = u
		l.Secrets = append(l.Secrets, urlSecrets(u)...)
		for _, h := range s.Headers {
			v, err := x.expandSecret(h.Value, "header "+h.Name)
			if err != nil {
				return nil, err
			}
			l.Headers = append(l.Headers, Header{Name: h.Name, Value: v})
			l.Secrets = append(l.Secrets, v)
		}
		l.Secrets = append(l.Secrets, x.secrets...)
		return l, nil
	}
	cmd, err := x.expand(s.Command, "command")
	if err != nil {
		return nil, err
	}
	l.Command = []string{cmd}
	for i, a := range s.Args {
		a, err := x.expand(a, fmt.Sprintf("args[%d]", i))
		if err != nil {
			return nil, err
		}
		l.Command = append(l.Command, a)
	}
	if s.Cwd != "" {
		dir, err := x.expand(s.Cwd, "cwd")
		if err != nil {
			return nil, err
		}
		l.Dir = s.File.abs(dir)
	} else if s.File.Project {
		l.Dir = s.File.Workspace
	}
	if s.EnvFile != "" {
		path, err := x.expand(s.EnvFile, "envFile")
		if err != nil {
			return nil, err
		}
		vars, err := readEnvFile(s.File.abs(path))
		if err != nil {
			return nil, fmt.Errorf("server %q: envFile: %w", s.Name, err)
		}
		l.EnvFile = vars
		for _, v := range vars {
			l.Env = append(l.Env, v.Name+"="+v.Value)
			l.Secrets = append(l.Secrets, v.Value)
		}
	}
	for _, e := range s.Env {
		if e.Unset {
			l.Unset = append(l.Unset, e.Name)
			continue
		}
		v, err := x.expandSecret(e.Value, "env "+e.Name)
		if err != nil {
			return nil, err
		}
		l.Env = append(l.Env, e.Name+"="+v)
		l.Secrets = append(l.Secrets, v)
	}
	l.Secrets = append(l.Secrets, x.secrets...)
	return l, nil
}

// urlSecrets returns the secrets of a URL: its password and the values of
// its query.
func urlSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok {
		out = append(out, p)
	}
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	return out
}

// abs returns path, relative to the file's workspace folder if it is
// relative.
func (f *File) abs(path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(f.Workspace, path)
}

// checkURL checks a server's url: http or https (VS Code's Unix socket
// and named pipe URLs are not supported).
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("url %q: %v", raw, errors.Unwrap(err))
	case u.Scheme == "unix" || u.Scheme == "pipe":
		return fmt.Errorf("url %q: mcpwire does not reach servers on Unix sockets or named pipes", raw)
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("url %q: want an http or https URL", raw)
	}
	return nil
}

// readEnvFile reads an envFile: KEY=VALUE lines, as dotenv writes them.
// Blank lines and lines starting with # are skipped; "export " before a
// name is allowed; a value in double quotes may hold \n and \" escapes,
// one in single quotes is taken as it is; an unquoted value ends at a #
// after a space.
func readEnvFile(path string) ([]EnvVar, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxEnvFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxEnvFileSize {
		return nil, fmt.Errorf("%s: larger than %d MiB", path, MaxEnvFileSize>>20)
	}
	vars, err := parseEnvFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return vars, nil
}

// parseEnvFile parses the lines of an envFile; its errors start with
// "LINE: ".
func parseEnvFile(data []byte) ([]EnvVar, error) {
	var vars []EnvVar
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, MaxEnvFileSize)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, val, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !validEnvName(name) {
			return nil, fmt.Errorf("%d: want NAME=VALUE", n)
		}
		val = strings.TrimSpace(val)
		switch {
		case strings.HasPrefix(val, `"`):
			end := closingQuote(val)
			if end < 0 {
				return nil, fmt.Errorf("%d: the value of %s has no closing \"", n, name)
			}
			s, err := strconv.Unquote(val[:end+1])
			if err != nil {
				return nil, fmt.Errorf("%d: the value of %s: %v", n, name, err)
			}
			val = s
		case strings.HasPrefix(val, "'"):
			end := strings.IndexByte(val[1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%d: the value of %s has no closing '", n, name)
			}
			val = val[1 : end+1]
		default:
			if i := strings.Index(val, " #"); i >= 0 {
				val = strings.TrimSpace(val[:i])
			}
		}
		vars = append(vars, EnvVar{Name: name, Value: val})
	}
	return vars, sc.Err()
}

// closingQuote returns the index of the " that closes the string s
// starts, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}
