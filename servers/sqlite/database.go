package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"modernc.org/sqlite"
)

// Limits applied when Options leaves them zero.
const (
	// DefaultMaxRows bounds the rows of one result; more are cut, with a
	// note saying so.
	DefaultMaxRows = 1000
	// DefaultMaxBytes bounds the JSON text of one result's rows.
	DefaultMaxBytes = 1 << 20
	// DefaultTimeout bounds the statements of one call; they are
	// interrupted past it.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxWriteValueBytes bounds one value (a string or blob) that
	// a write tool's statements make or read: the largest message
	// mcpwire's peers read.
	DefaultMaxWriteValueBytes = 16 << 20
	// DefaultMaxGrowthBytes bounds how much one write call may grow the
	// database file.
	DefaultMaxGrowthBytes = 256 << 20
	// DefaultMaxInsights bounds the insights of the memo.
	DefaultMaxInsights = 1000
	// DefaultMaxInsightBytes bounds one insight.
	DefaultMaxInsightBytes = 16 << 10
	// DefaultBusyTimeout is how long a statement waits for another
	// connection's lock (SQLite's busy_timeout).
	DefaultBusyTimeout = 5 * time.Second
	// readers is the number of read-only connections.
	readers = 4
	// maxLength is the longest value SQLite holds (its SQLITE_MAX_LENGTH,
	// as modernc.org/sqlite builds it).
	maxLength = 1_000_000_000
)

// Options configures a Database. The zero value (or nil) is valid: a
// zero limit takes its default; a negative one is an error.
type Options struct {
	// ReadOnly opens the file read-only (SQLite's mode=ro): the write
	// tools are not offered and nothing can change the file.
	ReadOnly bool
	// MaxRows bounds the rows of a result; default DefaultMaxRows.
	MaxRows int
	// MaxBytes bounds the JSON of a result's rows; default DefaultMaxBytes.
	MaxBytes int
	// MaxValueBytes bounds one value (a string or blob) that the read
	// tools' statements make or read, wherever it is in the statement:
	// SQLite refuses a longer one ("string or blob too big") before
	// making it. Default: MaxBytes, since a longer value cannot be in an
	// answer; at most 1e9, SQLite's own bound.
	MaxValueBytes int
	// MaxWriteValueBytes bounds one value that the write tools'
	// statements make or read (SQLITE_LIMIT_LENGTH on the write
	// connection, as MaxValueBytes on the read ones), and a row they
	// write, whole: SQLite refuses a longer one ("string or blob too
	// big") before making it, so that randomblob(500000000) costs
	// nothing. A row already longer, written by another program, cannot
	// be changed through the tools. Default DefaultMaxWriteValueBytes; at
	// most 1e9, SQLite's own bound.
	MaxWriteValueBytes int
	// MaxGrowthBytes bounds how much the database file may grow in one
	// call of a write tool (SQLite's max_page_count, set for each call
	// from the file's size): a call that would grow it more fails
	// ("database or disk is full") and is rolled back. Default
	// DefaultMaxGrowthBytes.
	MaxGrowthBytes int64
	// Timeout bounds the statements of each call (the text of a
	// read_query or write_query): past it, or once the client cancels the
	// call, SQLite interrupts them wherever they are, before their first
	// row or between two; a write is rolled back. Default DefaultTimeout.
	Timeout time.Duration
	// MaxInsights bounds the memo's insights; default DefaultMaxInsights.
	MaxInsights int
	// MaxInsightBytes bounds one insight; default DefaultMaxInsightBytes.
	MaxInsightBytes int
}

// A Database is the one SQLite file the tools work on. It is safe for
// concurrent use.
type Database struct {
	path     string
	readOnly bool
	rw       *sql.DB // one connection; nil when read-only
	ro       *sql.DB // mode=ro, query_only, for reads

	maxRows, maxBytes, maxValue  int
	maxWriteValue                int
	maxGrowth                    int64
	timeout                      time.Duration
	maxInsights, maxInsightBytes int

	mu       sync.Mutex
	insights []string
}

// Open opens the SQLite database file at path. Unless opts.ReadOnly is
// set, the file (and its directory) is created when missing, as the
// official server does; read-only, it must exist.
func Open(ctx context.Context, path string, opts *Options) (*Database, error) {
	if opts == nil {
		opts = &Options{}
	}
	if err := opts.check(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("mcpwire sqlite: %w", err)
	}
	d := &Database{
		path:            abs,
		readOnly:        opts.ReadOnly,
		maxRows:         orDefault(opts.MaxRows, DefaultMaxRows),
		maxBytes:        orDefault(opts.MaxBytes, DefaultMaxBytes),
		maxWriteValue:   orDefault(opts.MaxWriteValueBytes, DefaultMaxWriteValueBytes),
		maxGrowth:       orDefault(opts.MaxGrowthBytes, DefaultMaxGrowthBytes),
		timeout:         orDefault(opts.Timeout, DefaultTimeout),
		maxInsights:     orDefault(opts.MaxInsights, DefaultMaxInsights),
		maxInsightBytes: orDefault(opts.MaxInsightBytes, DefaultMaxInsightBytes),
	}
	d.maxValue = orDefault(opts.MaxValueBytes, min(d.maxBytes, maxLength))
	if opts.ReadOnly {
		if _, err := os.Stat(abs); err != nil {
			return nil, fmt.Errorf("mcpwire sqlite: opening %s read-only: %w", path, err)
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, fmt.Errorf("mcpwire sqlite: %w", err)
		}
		d.rw = sql.OpenDB(connector{newDriver(ownRule), dsn(abs, "rwc")})
		d.rw.SetMaxOpenConns(1) // SQLite has one writer at a time anyway
		if err := ping(ctx, d.rw); err != nil {
			d.rw.Close()
			return nil, fmt.Errorf("mcpwire sqlite: opening %s: %w", path, err)
		}
	}
	d.ro = sql.OpenDB(connector{newDriver(readRule), dsn(abs, "ro") + "&_query_only=1"})
	d.ro.SetMaxOpenConns(readers)
	if err := ping(ctx, d.ro); err != nil {
		d.Close()
		return nil, fmt.Errorf("mcpwire sqlite: opening %s: %w", path, err)
	}
	return d, nil
}

// Path returns the database file's absolute path.
func (d *Database) Path() string { return d.path }

// ReadOnly tells whether the database was opened read-only.
func (d *Database) ReadOnly() bool { return d.readOnly }

// Close closes the database's connections.
func (d *Database) Close() error {
	var errs []error
	if d.rw != nil {
		errs = append(errs, d.rw.Close())
	}
	if d.ro != nil {
		errs = append(errs, d.ro.Close())
	}
	return errors.Join(errs...)
}

// ping opens a connection of db and checks that its statements can be
// interrupted (see interruptible).
func ping(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.PingContext(ctx); err != nil {
		return err
	}
	_, err = handle(conn)
	return err
}

// check refuses a negative limit, and a bound on values SQLite cannot
// hold.
func (o *Options) check() error {
	for _, f := range []struct {
		name     string
		negative bool
		v        any
	}{
		{"MaxRows", o.MaxRows < 0, o.MaxRows},
		{"MaxBytes", o.MaxBytes < 0, o.MaxBytes},
		{"MaxValueBytes", o.MaxValueBytes < 0, o.MaxValueBytes},
		{"MaxWriteValueBytes", o.MaxWriteValueBytes < 0, o.MaxWriteValueBytes},
		{"MaxGrowthBytes", o.MaxGrowthBytes < 0, o.MaxGrowthBytes},
		{"Timeout", o.Timeout < 0, o.Timeout},
		{"MaxInsights", o.MaxInsights < 0, o.MaxInsights},
		{"MaxInsightBytes", o.MaxInsightBytes < 0, o.MaxInsightBytes},
	} {
		if f.negative {
			return fmt.Errorf("mcpwire sqlite: Options.%s is %v: a limit is positive, or zero for the default", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxValueBytes", o.MaxValueBytes}, {"MaxWriteValueBytes", o.MaxWriteValueBytes}} {
		if f.v > maxLength {
			return fmt.Errorf("mcpwire sqlite: Options.%s is %d: SQLite holds values of at most %d bytes", f.name, f.v, maxLength)
		}
	}
	return nil
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// dsn is the SQLite URI of the file at the absolute path abs, opened in
// mode (ro, rw or rwc), with the busy timeout. The path is escaped, so
// that a '?' or '#' in a file name is part of the name.
func dsn(abs, mode string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return fmt.Sprintf("%s?mode=%s&_busy_timeout=%d", u.String(), mode, DefaultBusyTimeout.Milliseconds())
}

// connector opens connections of one driver, with its hook, to one DSN.
type connector struct {
	d   *sqlite.Driver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.d }

// newDriver returns a driver whose every connection is under the rule r
// (see guard.go) before it is used: the rule of its connections between
// calls; each call installs a guard of its own.
func newDriver(r rule) *sqlite.Driver {
	d := &sqlite.Driver{}
	d.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
		a, ok := c.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("the SQLite driver cannot install an authorizer")
		}
		return a.RegisterAuthorizer((&guard{rule: r}).authorize)
	})
	return d
}
