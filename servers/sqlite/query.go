package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A result is the rows a statement returned, each a JSON object whose
// members are the columns in order.
type result struct {
	Columns   []string          `json:"columns"`
	Rows      []json.RawMessage `json:"rows"`
	Truncated bool              `json:"truncated"`
	note      string            // why the rows were cut, for the model
}

// text is the rows as a JSON array, one row a line, like sqlite3 -json.
func (r *result) text() string {
	if len(r.Rows) == 0 {
		return "[]"
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, row := range r.Rows {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(row)
	}
	b.WriteByte(']')
	return b.String()
}

// query runs a read statement on a read connection and reads its rows,
// at most d.maxRows of them and d.maxBytes of JSON: the statement is
// stopped there and the result says it was cut. The statement runs under
// readRule, with no value longer than d.maxValue (SQLite's
// SQLITE_LIMIT_LENGTH, so SQLite refuses to make or read a longer one),
// and is interrupted when ctx ends or after d.timeout, before its first
// row as between two (see interruptible). Each value is copied once, by
// the driver, and encoded only as far as the answer has room.
func (d *Database) query(ctx context.Context, q string, args ...any) (*result, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	conn, err := d.ro.Conn(ctx)
	if err != nil {
		return nil, d.wrap(ctx, err)
	}
	defer conn.Close()
	g := &guard{rule: readRule}
	if err := g.install(conn); err != nil {
		return nil, err
	}
	if _, err := msqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, d.maxValue); err != nil {
		return nil, err
	}
	release, err := interruptible(ctx, conn)
	if err != nil {
		return nil, err
	}
	defer release() // before conn.Close
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, d.wrap(ctx, d.tooBig(g.explain(err)))
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, d.wrap(ctx, err)
	}
	res := &result{Columns: uniqueNames(cols), Rows: []json.RawMessage{}}
	keys := columnKeys(res.Columns)
	cells := make([]cell, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	size := 0
	var buf []byte // each row is written here, then copied to its size
	for rows.Next() {
		if len(res.Rows) == d.maxRows {
			res.Truncated = true
			res.note = fmt.Sprintf("[result cut at %d rows, the server's limit: more rows follow; add a LIMIT or narrow the query]", d.maxRows)
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, d.wrap(ctx, err) // the rows were closed as ctx ended
		}
		room := d.maxBytes - size
		least, likely := rowLen(keys, cells)
		if n := min(room, 2*likely) + 8; least <= room && cap(buf) < n {
			buf = make([]byte, 0, n) // no regrowing while a long value is written
		}
		row, ok := buf, least <= room
		if ok {
			row, ok = appendRow(buf[:0], keys, cells, room)
		}
		if !ok {
			res.Truncated = true
			res.note = fmt.Sprintf("[result cut after %d rows at %d bytes, the server's limit: more rows follow; select fewer columns or rows]", len(res.Rows), d.maxBytes)
			break
		}
		buf = row
		size += len(row) + 2
		res.Rows = append(res.Rows, bytes.Clone(row))
	}
	if err := rows.Err(); err != nil {
		if sqliteCode(err) == sqlite3.SQLITE_TOOBIG && ctx.Err() == nil {
			res.Truncated = true
			res.note = fmt.Sprintf("[result cut after %d rows: the next row has a value longer than %d bytes, the most the server reads of one value; leave that column out, or select its octet_length()]", len(res.Rows), d.maxValue)
			return res, nil
		}
		return nil, d.wrap(ctx, d.tooBig(g.explain(err)))
	}
	return res, nil
}

// tooBig words SQLite's error for a value longer than d.maxValue.
func (d *Database) tooBig(err error) error {
	if sqliteCode(err) == sqlite3.SQLITE_TOOBIG {
		return fmt.Errorf("%w: a value would be longer than %d bytes, the most the server reads of one value; leave that column out, or select its octet_length()", err, d.maxValue)
	}
	return err
}

// errRolledBack marks the error of a call whose transaction was rolled
// back.
type errRolledBack struct{ err error }

func (e errRolledBack) Error() string {
	return e.err.Error() + " (the call was rolled back: nothing was changed)"
}

func (e errRolledBack) Unwrap() error { return e.err }

// change runs f, the statements of one call that changes the database, as
// one transaction on the read-write connection, under the rule r, and
// commits it if f succeeds; otherwise it rolls it back and says so. The
// statements cannot begin, commit or roll back a transaction of their own
// (r ignores or refuses them), so the connection is in autocommit again
// after every call, whatever the statements were; a transaction that did
// not end cleanly closes the connection, which rolls it back, and the next
// call opens a new one. The statements are interrupted when ctx ends or
// after d.timeout, wherever they are (see interruptible); the tool's own
// COMMIT or ROLLBACK is not.
func (d *Database) change(ctx context.Context, r rule, f func(ctx context.Context, tx *sql.Tx) (int64, error)) (int64, error) {
	conn, err := d.rw.Conn(ctx)
	if err != nil {
		return 0, d.wrap(ctx, err)
	}
	defer conn.Close()
	// The transaction outlives ctx: database/sql would otherwise roll it
	// back on its own when ctx ends, perhaps under the call's rule, which
	// refuses a ROLLBACK. The statements still stop with ctx.
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		discard(conn)
		return 0, err
	}
	if err := d.bound(ctx, conn, tx); err != nil {
		tx.Rollback()
		discard(conn)
		return 0, err
	}
	g := &guard{rule: r}
	own := &guard{rule: ownRule}
	if err := g.install(conn); err != nil {
		tx.Rollback()
		discard(conn)
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	release, err := interruptible(ctx, conn)
	if err != nil {
		tx.Rollback()
		discard(conn)
		return 0, err
	}
	defer release() // before conn.Close, should f panic
	n, err := f(ctx, tx)
	release() // before the transaction ends: its end is not interrupted
	err = d.tooBigToWrite(g.explain(err))
	if ierr := own.install(conn); ierr != nil {
		tx.Rollback()
		discard(conn) // not back to the pool under the call's rule
		return 0, errRolledBack{errors.Join(err, ierr)}
	}
	if err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			discard(conn) // SQLite ended the transaction itself, or could not
		}
		return 0, errRolledBack{err}
	}
	if err := tx.Commit(); err != nil {
		discard(conn)
		return 0, errRolledBack{err}
	}
	return n, nil
}

// bound sets the bounds of a write call on its connection, under
// ownRule, before the call's statements run: no value or row longer
// than d.maxWriteValue (SQLITE_LIMIT_LENGTH), and no more than
// d.maxGrowth bytes of pages added to the file (max_page_count, from the
// file's page count in the call's transaction).
func (d *Database) bound(ctx context.Context, conn *sql.Conn, tx *sql.Tx) error {
	if _, err := msqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, d.maxWriteValue); err != nil {
		return err
	}
	var pages, size int64
	if err := tx.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return err
	}
	if size <= 0 {
		return fmt.Errorf("the database's page size is %d", size)
	}
	_, err := tx.ExecContext(ctx, "PRAGMA max_page_count = "+strconv.FormatInt(pages+(d.maxGrowth+size-1)/size, 10))
	return err
}

// tooBigToWrite words SQLite's errors for a write past its bounds.
func (d *Database) tooBigToWrite(err error) error {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_TOOBIG:
		return fmt.Errorf("%w: a value or row would be longer than %d bytes, the most a write makes", err, d.maxWriteValue)
	case sqlite3.SQLITE_FULL:
		return fmt.Errorf("%w: a call may grow the database file by %d bytes at most, or the disk is full", err, d.maxGrowth)
	}
	return err
}

// discard closes the connection instead of returning it to the pool.
func discard(conn *sql.Conn) {
	conn.Raw(func(any) error { return driver.ErrBadConn })
}

// exec runs a statement that changes the database and returns the number
// of rows it changed.
func (d *Database) exec(ctx context.Context, tx *sql.Tx, q string) (int64, error) {
	r, err := tx.ExecContext(ctx, q)
	if err != nil {
		return 0, d.wrap(ctx, err)
	}
	return r.RowsAffected()
}

// wrap words the error of a statement that ctx ended.
func (d *Database) wrap(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the statement ran longer than %v and was interrupted: %w", d.timeout, ctx.Err())
	}
	if ctx.Err() != nil {
		return fmt.Errorf("the statement was cancelled: %w", ctx.Err())
	}
	return err
}

// uniqueNames returns the column names with a suffix on repeated ones
// (a, a:2, a:3), so that each row is a JSON object without duplicate
// members.
func uniqueNames(cols []string) []string {
	seen := make(map[string]int, len(cols))
	out := make([]string, len(cols))
	for i, c := range cols {
		seen[c]++
		out[i] = c
		for n := seen[c]; n > 1; n++ {
			name := c + ":" + strconv.Itoa(n)
			if seen[name] == 0 {
				seen[name] = 1
				out[i] = name
				break
			}
		}
	}
	return out
}
