package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReleasedInterruptNeverComes: once release has returned, the
// interrupt is not called, however late the call's context ends (here:
// just before release runs, or as it runs). Released but still to come,
// it would stop the statement of the next call on the same pooled
// connection.
func TestReleasedInterruptNeverComes(t *testing.T) {
	var late, calls atomic.Int64
	for i := range 20000 {
		ctx, end := context.WithCancel(context.Background())
		var released atomic.Bool
		release := afterUntil(ctx, func() {
			calls.Add(1)
			if released.Load() {
				late.Add(1)
			}
		})
		var wg sync.WaitGroup
		if i%2 == 0 {
			end() // just before the call ends: f starts on a goroutine of its own
		} else {
			wg.Go(end) // as the call ends
		}
		release()
		released.Store(true)
		wg.Wait()
	}
	t.Logf("%d interrupts before release", calls.Load())
	if n := late.Load(); n > 0 {
		t.Errorf("%d interrupts came after release returned", n)
	}
}

// TestLateInterruptSparesTheNextCall: an interrupt that came after a
// call's last statement ended, before release, finds no statement
// running, and stops none after: SQLite clears it when the next statement
// starts (the write call's own COMMIT: its statements succeeded, the call
// is committed), and the driver gives the next call a new connection
// instead of one with an interrupt pending (the read).
func TestLateInterruptSparesTheNextCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "late.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// handleOf is the handle of the one idle connection of a pool, which
	// the next call takes.
	handleOf := func(pool *sql.DB) uintptr {
		conn, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		h, err := handle(conn)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if _, err := d.change(ctx, writeRule, func(ctx context.Context, tx *sql.Tx) (int64, error) {
		return d.exec(ctx, tx, "CREATE TABLE t (x)")
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		h := handleOf(d.rw)
		n, err := d.change(ctx, writeRule, func(ctx context.Context, tx *sql.Tx) (int64, error) {
			n, err := d.exec(ctx, tx, "INSERT INTO t VALUES (1)")
			interrupt(h) // the call's context ends now, after its statement
			return n, err
		})
		if err != nil || n != 1 {
			t.Fatalf("write %d: (%d, %v) after an interrupt that came after its statement, want (1, nil)", i, n, err)
		}
	}
	d.ro.SetMaxOpenConns(1)
	for i := range 3 {
		interrupt(handleOf(d.ro)) // after the last call's statements
		res, err := d.query(ctx, "SELECT count(*) AS n FROM t")
		if err != nil || res.text() != `[{"n":3}]` {
			t.Fatalf("read %d: (%v, %v) after an interrupt that came after the last call, want [{\"n\":3}]", i, res, err)
		}
	}
}

// TestInterruptibleStopsAStatementBetweenRows: the interrupt reaches a
// statement between two of its rows, where the driver does not.
func TestInterruptibleStopsAStatementBetweenRows(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "rows.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	conn, err := d.ro.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	callCtx, end := context.WithCancel(ctx)
	defer end()
	release, err := interruptible(callCtx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	rows, err := conn.QueryContext(callCtx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000) SELECT x FROM c WHERE x IN (1, 100000000)")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() { // the first row, at once
		t.Fatalf("no first row: %v", rows.Err())
	}
	end() // the second is seconds away: only an interrupt ends the statement sooner
	if rows.Next() {
		t.Fatal("a second row")
	}
	if err := rows.Err(); err == nil {
		t.Fatal("the statement ended without an error")
	}
}

// conn is a driver connection named as modernc.org/sqlite's, with a field
// db, of another package.
type conn struct{ db uintptr }

func (conn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no") }
func (conn) Close() error                        { return nil }
func (conn) Begin() (driver.Tx, error)           { return nil, errors.New("no") }

// otherConnector opens conns.
type otherConnector struct{}

func (otherConnector) Connect(context.Context) (driver.Conn, error) { return &conn{db: 1}, nil }
func (otherConnector) Driver() driver.Driver                        { return nil }

// TestHandleOfAnotherDriverRefused: the handle is read from
// modernc.org/sqlite's connection only, never from a field that happens
// to be called db (an interrupt writes where it points).
func TestHandleOfAnotherDriverRefused(t *testing.T) {
	db := sql.OpenDB(otherConnector{})
	defer db.Close()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if h, err := handle(c); err == nil || !strings.Contains(err.Error(), "no handle to interrupt") {
		t.Errorf("handle of %T: (%d, %v), want an error", conn{}, h, err)
	}
}

// BenchmarkInterruptible is what arming and releasing the interrupt adds
// to a call: reading the handle, context.AfterFunc, and its stop.
func BenchmarkInterruptible(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	conn, err := d.ro.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	callCtx, end := context.WithTimeout(ctx, time.Minute) // a call's, made anyway
	defer end()
	b.ReportAllocs()
	for b.Loop() {
		release, err := interruptible(callCtx, conn)
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}
