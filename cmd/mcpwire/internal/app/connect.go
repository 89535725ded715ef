package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/command"
)

// A Link is the way to one server: the transport the client connects
// over and, for a server process that mcpwire started, how it ended.
// Connect makes the links of real targets; a test's Link has only a
// Transport.
type Link struct {
	Transport transport.Transport
	// exit, if not nil, is asked once the session has closed. It tells
	// how the server process ended, or returns nil if it has not ended or
	// ended well (status 0 once mcpwire stopped it).
	exit func() *serverGone
	// diagnose, if not nil, explains a failed operation in the link's
	// own words (an HTTP server that cannot be reached, refuses the
	// request or wants a login), or returns nil when it has nothing to
	// add. Errors that need the user's login carry exit code 4.
	diagnose func(err error) error
	// release, if not nil, frees what the link holds once its session is
	// closed (idle HTTP connections).
	release func()
	// bound, if not nil, bounds the end of the connection: a server
	// process that has not left by the deadline (plus stopGrace) is
	// killed; the zero time lifts the bound.
	bound func(deadline time.Time)
}

// stopGrace is how long past the deadline of its command (--timeout) a
// server process may take to leave once mcpwire has closed its stdin,
// before it is killed: the timeout bounds the whole command, the server's
// shutdown included.
const stopGrace = 500 * time.Millisecond

// Connect builds the link to the server t names. It is the one place
// that knows the kinds of targets: a command to start, or an HTTP
// endpoint (see connectHTTP). log, if not nil, receives the server's
// stderr or the HTTP client's diagnostics.
func Connect(ctx context.Context, t *Target, log *slog.Logger) (*Link, error) {
	if t.URL != "" {
		return connectHTTP(t, log)
	}
	if len(t.Command) == 0 {
		return nil, UsageErrorf("no server given")
	}
	if t.Dir != "" {
		if st, err := os.Stat(t.Dir); err != nil || !st.IsDir() {
			return nil, ConnectErrorf("cannot start the server %q in %s: not a directory", t.Command[0], t.Dir)
		}
	}
	p := &process{name: t.Command[0]}
	p.t = command.NewFunc(t.Cmd, &command.Options{Logger: log, Observer: t.Observer})
	return &Link{Transport: p, exit: p.exit, bound: p.bound}, nil
}

// Cmd returns the command that starts the server t names after "--" or
// in a configuration file: its program, arguments, directory and
// environment. Connect starts it; verbs that speak to the process
// themselves (mcpwire check, which writes raw bytes) do too.
func (t *Target) Cmd() *exec.Cmd {
	cmd := exec.Command(t.Command[0], t.Command[1:]...)
	cmd.Dir = t.Dir
	if len(t.Env) > 0 || len(t.Unset) > 0 {
		cmd.Env = environ(os.Environ(), t.Env, t.Unset)
	}
	return cmd
}

// environ returns the environment base without the variables of unset,
// then add (whose values win over base's).
func environ(base, add, unset []string) []string {
	out := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(unset, func(u string) bool { return sameEnvName(u, name) }) {
			out = append(out, kv)
		}
	}
	return append(out, add...)
}

// sameEnvName reports whether a and b name the same variable: Windows's
// names ignore case.
func sameEnvName(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// dial starts or reaches the server t names and agrees on a protocol
// revision, with a client of the options o (nil for none). Its errors
// have exit code 4.
func (a *App) dial(ctx context.Context, t *Target, log *slog.Logger, o *client.Options) (*client.Session, *Link, error) {
	if s := t.Config; s != nil && log != nil {
		log.Info(describeConfig(s))
	}
	l, err := a.Connect(ctx, t, log)
	if err != nil {
		return nil, nil, WithCode(err, ExitConnect)
	}
	if d, ok := ctx.Deadline(); ok {
		l.setBound(d) // a connection that fails ends within ctx too
	}
	var opts client.Options
	if o != nil {
		opts = *o
	}
	opts.Version, opts.Logger = a.Global.Protocol, log
	c := client.New(mcp.Implementation{Name: "mcpwire", Version: mcpwire.Version()}, a.ClientOptions(&opts))
	stop := a.WaitNotice(t, log)
	sess, err := c.Connect(ctx, l.Transport)
	stop()
	if err != nil {
		l.done()
		var e *ExitError
		if errors.As(err, &e) {
			return nil, nil, e
		}
		if d := l.explain(err); d != nil {
			return nil, nil, WithCode(d, ExitConnect)
		}
		// Connect has closed the connection: the process has ended.
		if g := l.gone(); g != nil && g.early {
			g.when = " before answering"
			g.tell(err)
			return nil, nil, &ExitError{Code: ExitConnect, Err: g}
		}
		return nil, nil, ConnectErrorf("cannot connect to the server: %v", a.describe(err))
	}
	if want := a.Global.Protocol; want != "" && sess.ProtocolVersion() != want {
		got := sess.ProtocolVersion()
		sess.Close()
		l.done()
		return nil, nil, ConnectErrorf("the server does not speak protocol %s (it offered %s)", want, got)
	}
	if log != nil {
		info := sess.ServerInfo()
		log.Info(fmt.Sprintf("connected to %s %s, protocol %s (%s era)", info.Name, info.Version, sess.ProtocolVersion(), era(sess)))
	}
	return sess, l, nil
}

// setBound bounds the end of l's connection by deadline (see Link.bound);
// the zero time lifts the bound.
func (l *Link) setBound(deadline time.Time) {
	if l.bound != nil {
		l.bound(deadline)
	}
}

// explain asks l to explain err, if l can.
func (l *Link) explain(err error) error {
	if l.diagnose == nil || err == nil {
		return nil
	}
	return l.diagnose(err)
}

// Explain words err, the failure of an exchange with the server, in the
// link's own terms (an HTTP server that cannot be reached, refuses the
// request or wants a login, with exit code 4 for the last), or returns
// nil when it has nothing to add. For verbs that use the link's
// transport themselves (mcpwire bridge --url).
func (l *Link) Explain(err error) error { return l.explain(err) }

// Release frees what l holds, once its connections are closed.
func (l *Link) Release() { l.done() }

// done releases what l holds, once its session is closed.
func (l *Link) done() {
	if l.release != nil {
		l.release()
	}
}

// gone asks l how the server ended, if l can tell.
func (l *Link) gone() *serverGone {
	if l.exit == nil {
		return nil
	}
	return l.exit()
}

// era names the protocol era of a session.
func era(s *client.Session) string {
	if s.IsModern() {
		return "stateless"
	}
	return "stateful"
}

// WithSession runs f with a session to the server of a.Global.Target,
// all of it bounded by --timeout, and closes the session. It turns f's
// errors into the words and exit codes mcpwire reports: a server that
// went away mid-operation is reported by its exit status and last stderr
// line, an HTTP server's refusal in the words of its link, a protocol
// error by the server's message. Errors that already have an exit code
// (an ExitError) are returned as they are.
func (a *App) WithSession(ctx context.Context, f func(ctx context.Context, s *client.Session) error) error {
	return a.WithSessionOptions(ctx, nil, f)
}

// WithSessionOptions is WithSession with a client of the options o (nil
// for none): its handlers (Version and Logger are set from --protocol and
// --verbose). mcpwire call answers the server's questions with them.
func (a *App) WithSessionOptions(ctx context.Context, o *client.Options, f func(ctx context.Context, s *client.Session) error) error {
	if a.Global.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.Global.Timeout)
		defer cancel()
	}
	log := a.Logger()
	sess, l, err := a.dial(ctx, &a.Global.Target, log, o)
	if err != nil {
		return err
	}
	err = f(ctx, sess)
	sess.Close()
	l.done()
	g := l.gone()
	var e *ExitError
	var je *jsonrpc.Error
	switch {
	case err == nil:
		if g != nil && log != nil {
			log.Info(g.Error())
		}
		return nil
	case errors.As(err, &e):
		return err
	case g != nil && g.early && !errors.As(err, &je):
		g.tell(err)
		return Failure(g)
	}
	if d := l.explain(err); d != nil {
		return Failure(d)
	}
	return Failure(a.describe(err))
}

// OpenSession starts or reaches the server t names, agrees on a protocol
// revision as WithSession does, and returns the session with the function
// that ends it. For verbs that hold several sessions at once, or to
// several servers (mcpwire bench); the others use WithSession. ctx bounds
// the connection only. Its errors have exit code 4.
//
// The end function closes the session, frees the link, and reports a
// server that ended on its own, as WithSession words it: one that exited
// before end was called, or whose session had ended by then and that
// then failed (the session ends when the server's output does, which
// may come a moment before its exit); it is safe to call more than once.
func (a *App) OpenSession(ctx context.Context, t *Target) (*client.Session, func() error, error) {
	return a.OpenSessionWith(ctx, t, nil, a.Logger())
}

// OpenSessionWith is OpenSession with a client of the options o (its
// handlers and middleware; Version and Logger are set from --protocol
// and log) and the logger log (nil for none), which also receives the
// server's stderr ("stderr" records with a "line" attribute) or the HTTP
// client's diagnostics. mcpwire inspect answers the server's questions
// and shows its stderr with them.
func (a *App) OpenSessionWith(ctx context.Context, t *Target, o *client.Options, log *slog.Logger) (*client.Session, func() error, error) {
	sess, l, err := a.dial(ctx, t, log, o)
	if err != nil {
		return nil, nil, err
	}
	l.setBound(time.Time{}) // ctx bounds the connection only: the session outlives it
	var once sync.Once
	var endErr error
	return sess, func() error {
		once.Do(func() {
			ended := false
			select {
			case <-sess.Done():
				ended = true // the server's doing: mcpwire had not closed it
			default:
			}
			sess.Close()
			l.done()
			if g := l.gone(); g != nil && (g.early || ended) {
				endErr = Failure(g)
			}
		})
		return endErr
	}, nil
}

// Describe words the error of an MCP operation as mcpwire reports it: the
// server's own message for a protocol error, the deadline of a timeout,
// the error's text without the library's package prefixes otherwise.
func (a *App) Describe(err error) error { return a.describe(err) }

// process is the transport to a server that mcpwire starts: a command
// transport that keeps the connection, to tell how the process ended.
type process struct {
	name string // the program, as given
	t    *command.Transport

	mu       sync.Mutex
	conn     *command.Conn
	closing  bool      // Close was called: an exit from then on is ours
	early    bool      // the process had exited on its own before Close
	deadline time.Time // Close kills the process stopGrace after it; zero: no bound
}

// bound sets the deadline of the process's end (see Link.bound).
func (p *process) bound(deadline time.Time) {
	p.mu.Lock()
	p.deadline = deadline
	p.mu.Unlock()
}

// Connect starts the server process.
// Address names the server by its command line (transport.Addresser),
// for the telemetry's network.transport.
func (p *process) Address() string { return p.t.Address() }

func (p *process) Connect(ctx context.Context) (transport.Conn, error) {
	c, err := p.t.Start(ctx)
	if err != nil {
		return nil, StartError(p.name, err)
	}
	p.mu.Lock()
	p.conn = c
	p.mu.Unlock()
	return &processConn{Conn: c, p: p}, nil
}

// StartError words the failure to start the server program name (exit
// code 4). A directory is named as one ("permission denied" is what
// starting it says), with the go run command line that runs the Go
// program in it, if it holds one.
func StartError(name string, err error) error {
	if st, serr := os.Stat(name); serr == nil && st.IsDir() {
		msg := "it is a directory, not a program"
		if hasGoFiles(name) {
			run := name
			if !filepath.IsAbs(run) && !strings.HasPrefix(run, "."+string(filepath.Separator)) && !strings.HasPrefix(run, "./") && run != "." && !strings.HasPrefix(run, "..") {
				run = "./" + run // go run takes "hello/" for a package path
			}
			msg += "; to run the Go program in it: -- go run " + ShellQuote(run)
		}
		return ConnectErrorf("cannot start the server %q: %s", name, msg)
	}
	var ee *exec.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ee):
		return ConnectErrorf("cannot start the server %q: %v", name, ee.Err)
	case errors.As(err, &pe):
		return ConnectErrorf("cannot start the server %q: %v", name, pe.Err)
	}
	return ConnectErrorf("cannot start the server %q: %v", name, TrimPrefixes(err.Error()))
}

// hasGoFiles reports whether dir holds a Go file other than a test's,
// among its first entries.
func hasGoFiles(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	entries, _ := f.ReadDir(1000)
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			return true
		}
	}
	return false
}

// exit tells how the process ended: every failure (a non-zero status, a
// signal mcpwire did not send), and an exit with status 0 that came
// before mcpwire closed the connection.
func (p *process) exit() *serverGone {
	p.mu.Lock()
	c, early := p.conn, p.early || !p.closing
	p.mu.Unlock()
	if c == nil {
		return nil
	}
	select {
	case <-c.Exited():
	default:
		return nil
	}
	var ee *command.ExitError
	switch err := c.ExitError(); {
	case errors.As(err, &ee):
		g := serverExit(ee)
		g.early = early
		return g
	case err != nil:
		return &serverGone{how: "could not be waited for (" + TrimPrefixes(err.Error()) + ")", early: early}
	case early:
		return &serverGone{how: "exited with status 0", early: true}
	}
	return nil
}

// processConn is the connection to a server process; it notes when Close
// begins, so that an exit before it is known to be the server's own.
type processConn struct {
	*command.Conn
	p *process
}

// Close shuts the server down, by the deadline of the link's bound (and
// stopGrace) when it has one.
func (c *processConn) Close() error {
	c.p.mu.Lock()
	if !c.p.closing {
		c.p.closing = true
		select {
		case <-c.Exited():
			c.p.early = true
		default:
		}
	}
	deadline := c.p.deadline
	c.p.mu.Unlock()
	if deadline.IsZero() {
		return c.Conn.Close()
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(stopGrace))
	defer cancel()
	return c.Conn.Shutdown(ctx)
}

// A serverGone reports how a server process ended.
type serverGone struct {
	how   string // "exited with status 1"
	when  string // " before answering", or ""
	line  string // the last line of its stderr, or ""
	early bool   // it ended on its own, before mcpwire closed the connection
	sent  string // a message it sent that was not valid JSON-RPC (invalidMessage), or ""
}

// Error returns, for example, "the server exited with status 1 before
// answering: fatal: no config".
func (e *serverGone) Error() string {
	s := "the server " + e.how + e.when
	if e.line != "" {
		s += ": " + e.line
	}
	if e.sent != "" {
		s += "; before that, it sent a message that is not valid JSON-RPC: " + e.sent
	}
	return s
}

// tell notes in g the invalid message that err names, if any.
func (g *serverGone) tell(err error) {
	var fe *jsonrpc.FrameError
	if errors.As(err, &fe) {
		g.sent = invalidMessage(fe)
	}
}

// goRunExit matches the line "go run" adds when the program it ran
// failed; the line before it is the program's own.
var goRunExit = regexp.MustCompile(`^exit status \d+$`)

// serverExit describes a failed server process: its exit status and the
// last line of its stderr (skipping the one "go run" adds).
func serverExit(e *command.ExitError) *serverGone {
	g := &serverGone{how: fmt.Sprintf("exited with status %d", e.ExitCode())}
	if e.ExitCode() < 0 {
		g.how = fmt.Sprintf("was stopped (%s)", e.State)
	}
	for i := len(e.Stderr) - 1; i >= 0; i-- {
		if line := e.Stderr[i]; !goRunExit.MatchString(line) || i == 0 {
			g.line = OneLine(line)
			break
		}
	}
	return g
}
