// Package sqlite serves an SQLite database to MCP clients: the tools,
// resource and prompt of the archived official Python server
// mcp-server-sqlite (0.6.2), with the same names, arguments and texts, on
// modernc.org/sqlite (pure Go, no cgo).
//
//	db, err := sqlite.Open(ctx, "shop.db", &sqlite.Options{ReadOnly: true})
//	if err != nil { ... }
//	defer db.Close()
//	srv, err := sqlite.New(db, nil)      // a server with everything and instructions
//	err = srv.Run(ctx, stdio.New(nil))
//
// or, to add them to a server of your own, db.Register(srv). The command
// line is mcpwire serve sqlite --db FILE [--read-only] [--http ADDR].
//
// # Tools, resource and prompt
//
//	read_query      any statement that only reads, on a read-only connection
//	list_tables     the tables
//	describe_table  a table's columns (PRAGMA table_info)
//	write_query     INSERT, UPDATE, DELETE and other changes    (not when read-only)
//	create_table    CREATE TABLE statements, nothing else        (not when read-only)
//	append_insight  adds an insight to the memo
//
//	memo://insights  the "Business Insights Memo" resource; clients that
//	                 subscribe are told when an insight is added
//	mcp-demo         the guided demo prompt (argument: topic)
//
// read_query, list_tables and describe_table return rows as a JSON array
// of objects (the text) and as structured content ({columns, rows,
// truncated}, with an output schema).
//
// # Read-only is SQLite's job
//
// Nothing here reads SQL to decide whether it writes. read_query,
// list_tables and describe_table run on connections opened with SQLite's
// mode=ro and PRAGMA query_only, so SQLite itself refuses any statement
// that would write ("attempt to write a readonly database"), whatever its
// text: INSERT ... RETURNING, a DELETE after a SELECT, a write in a CTE.
// With Options.ReadOnly there is no writable connection at all and
// write_query and create_table are not offered. Three doors that mode=ro
// leaves open are closed by an SQLite authorizer on every connection:
// ATTACH of a file and VACUUM INTO (either would create a file elsewhere,
// even from a read-only connection), and, on the read-only connections,
// PRAGMA query_only = 0 (a pooled connection would stay writable for temp
// tables). create_table runs in a transaction under an authorizer that
// allows creating tables and nothing else, so "CREATE TABLE a(x); DROP
// TABLE b" changes nothing through a tool that says it is not
// destructive. describe_table passes the table name as a bound parameter
// (pragma_table_info(?)), where the official server formats it into the
// SQL.
//
// # Bounds
//
// A result holds at most Options.MaxRows rows (DefaultMaxRows) and
// Options.MaxBytes bytes of JSON (DefaultMaxBytes): past either, the
// statement is stopped, the rows so far are returned with "truncated":
// true, and a second text block says what was cut and why. Each statement
// is interrupted when the request is cancelled or after Options.Timeout
// (DefaultTimeout). The memo holds at most Options.MaxInsights insights of
// Options.MaxInsightBytes each.
//
// # Differences from the official server
//
//   - Rows are JSON ([{"id":1,"name":"apple"}], what sqlite3 -json
//     prints), not Python's repr of a list of dicts ([{'id': 1, 'name':
//     'apple'}]); write_query answers [{"affected_rows":N}] the same way.
//     A blob is the string of its SQL literal (x'00ff'); an infinite real
//     is "Infinity"; repeated column names get a suffix (a, a:2).
//   - read_query accepts any statement that only reads (WITH, PRAGMA,
//     EXPLAIN, ...), where the official server wants the text to start
//     with SELECT; writes fail in SQLite instead.
//   - Failures are tool errors (isError) with the official texts
//     ("Database error: ...", "Error: ..."), where the official server
//     returns them as ordinary results.
//   - describe_table of a table that does not exist is an error, not [].
//   - Read-only mode (--read-only) is new.
//   - Values of columns declared DATE, DATETIME or TIMESTAMP come back
//     from the driver as times, and are written back as SQLite text
//     ("2024-01-15", "2024-01-15 10:30:00"): a value stored in another
//     form ("2024-01-15T10:30:00Z") is shown in that form, not as stored.
package sqlite
