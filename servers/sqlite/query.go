package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// execer is a connection or a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

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

// query runs a statement on db and reads its rows, at most d.maxRows of
// them and d.maxBytes of JSON: the statement is stopped there and the
// result says it was cut. The statement is interrupted when ctx ends or
// after d.timeout.
func (d *Database) query(ctx context.Context, db *sql.DB, q string, args ...any) (*result, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, d.wrap(ctx, err)
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
		return nil, d.wrap(ctx, err)
	}
	return res, nil
}

// exec runs a statement that changes the database and returns the number
// of rows it changed.
func (d *Database) exec(ctx context.Context, conn execer, q string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	r, err := conn.ExecContext(ctx, q)
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
