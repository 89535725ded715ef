package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
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
// readRule, and is interrupted when ctx ends or after d.timeout.
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
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, d.wrap(ctx, g.explain(err))
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	res := &result{Columns: uniqueNames(cols), Rows: []json.RawMessage{}}
	keys := make([][]byte, len(cols))
	for i, c := range res.Columns {
		keys[i], _ = json.Marshal(c)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	size := 0
	for rows.Next() {
		if len(res.Rows) == d.maxRows {
			res.Truncated = true
			res.note = fmt.Sprintf("[result cut at %d rows, the server's limit: more rows follow; add a LIMIT or narrow the query]", d.maxRows)
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := encodeRow(keys, vals)
		if size+len(row) > d.maxBytes {
			res.Truncated = true
			res.note = fmt.Sprintf("[result cut after %d rows at %d bytes, the server's limit: more rows follow; select fewer columns or rows]", len(res.Rows), d.maxBytes)
			break
		}
		size += len(row) + 2
		res.Rows = append(res.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, d.wrap(ctx, g.explain(err))
	}
	return res, nil
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
// call opens a new one.
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
	g := &guard{rule: r}
	own := &guard{rule: ownRule}
	if err := g.install(conn); err != nil {
		tx.Rollback()
		discard(conn)
		return 0, err
	}
	n, err := f(ctx, tx)
	err = g.explain(err)
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

// discard closes the connection instead of returning it to the pool.
func discard(conn *sql.Conn) {
	conn.Raw(func(any) error { return driver.ErrBadConn })
}

// exec runs a statement that changes the database and returns the number
// of rows it changed.
func (d *Database) exec(ctx context.Context, tx *sql.Tx, q string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
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

// encodeRow writes one row as a JSON object.
func encodeRow(keys [][]byte, vals []any) json.RawMessage {
	b := []byte{'{'}
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, keys[i]...)
		b = append(b, ':')
		b = appendValue(b, v)
	}
	return append(b, '}')
}

// appendValue writes an SQLite value as JSON: NULL as null, integers and
// reals as numbers (infinities as the strings "Infinity" and
// "-Infinity", which JSON numbers cannot hold), text as a string, a blob
// as the string of its SQL literal (x'00ff'), and a time the driver
// parsed from a DATE, DATETIME or TIMESTAMP column back as SQLite text.
func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		switch {
		case math.IsInf(v, 1):
			return append(b, `"Infinity"`...)
		case math.IsInf(v, -1):
			return append(b, `"-Infinity"`...)
		case math.IsNaN(v):
			return append(b, "null"...)
		}
		return strconv.AppendFloat(b, v, 'g', -1, 64)
	case string:
		s, _ := json.Marshal(v)
		return append(b, s...)
	case []byte:
		return append(append(append(b, `"x'`...), hex.EncodeToString(v)...), `'"`...)
	case time.Time:
		s, _ := json.Marshal(sqliteTime(v))
		return append(b, s...)
	}
	s, _ := json.Marshal(fmt.Sprint(v))
	return append(b, s...)
}

// sqliteTime writes a time in the form SQLite's date functions use: the
// date alone at midnight UTC, else date and time, with fractional seconds
// and a zone only when there are some.
func sqliteTime(t time.Time) string {
	_, off := t.Zone()
	switch {
	case off == 0 && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0:
		return t.Format(time.DateOnly)
	case off == 0:
		return t.Format("2006-01-02 15:04:05.999999999")
	}
	return t.Format("2006-01-02 15:04:05.999999999-07:00")
}
