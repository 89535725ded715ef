package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"sync"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// A call's statements stop when the call's context ends (its timeout, or
// the client's notifications/cancelled), wherever they are. The driver,
// modernc.org/sqlite, interrupts a statement only while one of its own
// methods runs: ExecContext, and QueryContext, which steps to the first
// row. Rows.Next, which steps to every later row, it leaves running, so a
// statement slow between two rows (the second arm of a UNION ALL, a
// recursion or a join that finds its next row late) ran to its end past
// any timeout, holding its connection. So each call also arms an
// interrupt of its own on its connection, for as long as it holds it:
// sqlite3_interrupt, which SQLite honours at any point of a running
// statement and which may come from any goroutine.
//
// An interrupt must not outlive the call: the connection goes back to the
// pool, and one that came late would stop the next call's statement.
// release waits for an interrupt under way and disarms the rest, and runs
// before the connection is given back or closed (the handle is not valid
// after). An interrupt that came after the call's last statement ended,
// before release, is harmless: SQLite clears it when the next statement
// starts on a connection running none (the write call's own COMMIT), and
// the driver closes, instead of giving to the next call, a connection that
// has one pending.

// interruptible arms an interrupt of the statements on conn for when ctx
// ends, until release is called.
func interruptible(ctx context.Context, conn *sql.Conn) (release func(), err error) {
	db, err := handle(conn)
	if err != nil {
		return nil, err
	}
	return afterUntil(ctx, func() { interrupt(db) }), nil
}

// afterUntil calls f once ctx ends, unless release is called first. When
// release returns, f has returned or will never be called.
func afterUntil(ctx context.Context, f func()) (release func()) {
	var mu sync.Mutex
	released := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !released {
			f()
		}
	})
	return func() {
		if stop() {
			return // ctx had not ended: f was not called, and will not be
		}
		mu.Lock() // a call of f under way is over once this is held
		released = true
		mu.Unlock()
	}
}

// interrupt is sqlite3_interrupt of the connection db, with a thread state
// of its own: the connection's may be in use by the statement it stops.
func interrupt(db uintptr) {
	tls := libc.NewTLS()
	defer tls.Close()
	sqlite3.Xsqlite3_interrupt(tls, db)
}

// handle returns the SQLite handle (sqlite3*) of conn. The driver keeps
// it in its connection's unexported field db and offers no interrupt to
// call outside its own methods; a driver without that field is an error,
// which Open reports, not a connection left uninterruptible.
func handle(conn *sql.Conn) (uintptr, error) {
	var db uintptr
	err := conn.Raw(func(dc any) error {
		v := reflect.ValueOf(dc)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			return errNoHandle(dc)
		}
		t := v.Elem().Type()
		if t.PkgPath() != "modernc.org/sqlite" || t.Name() != "conn" {
			return errNoHandle(dc)
		}
		f := v.Elem().FieldByName("db")
		if !f.IsValid() || f.Kind() != reflect.Uintptr || f.Uint() == 0 {
			return errNoHandle(dc)
		}
		db = uintptr(f.Uint())
		return nil
	})
	return db, err
}

func errNoHandle(dc any) error {
	return fmt.Errorf("the SQLite driver's connection (%T) has no handle to interrupt its statements with", dc)
}
