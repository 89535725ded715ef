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
// write_query and create_table are not offered.
//
// # A call leaves nothing behind
//
// The connections are pooled (four read-only ones, one read-write), so
// what one call left on its connection, the next call would find. Every
// tool's statements run under an SQLite authorizer (see guard.go) that
// refuses, before anything runs and whatever the text:
//
//   - on the read connections, BEGIN and SAVEPOINT: a transaction left
//     open would keep the file locked, and every writer, the server's own
//     and any other process, would get "database is locked";
//   - ATTACH and DETACH, which would reach a file elsewhere or leave a
//     database attached to the connection; this also refuses VACUUM INTO,
//     which attaches the file it writes (even from a read-only connection);
//   - TEMP tables, views, indexes and triggers (CREATE TEMP ..., CREATE
//     TABLE temp.t): they live on one connection, not in the file, and a
//     TEMP trigger would act, unseen, on every later write;
//   - every PRAGMA but those that read the schema or the file
//     (table_info, index_list, foreign_key_check, integrity_check,
//     user_version, ...) and, in write_query, those that change the file
//     within the call (user_version = N, defer_foreign_keys,
//     incremental_vacuum, optimize). The others would change the
//     connection for the calls after this one (query_only, locking_mode,
//     synchronous, journal_mode, foreign_keys, case_sensitive_like, ...)
//     or SQLite for the whole process (temp_store_directory,
//     soft_heap_limit, hard_heap_limit), in either mode. A PRAGMA is
//     judged by its name: the authorizer shows "PRAGMA query_only" and
//     query_only set to an empty string (which turns it off) alike.
//
// write_query and create_table run each call as one transaction that the
// tool begins and ends: committed when every statement succeeds, rolled
// back otherwise, with an error that says "the call was rolled back:
// nothing was changed". A BEGIN, COMMIT or END in the query is accepted
// and does nothing of its own (the call's transaction goes on); a
// ROLLBACK is refused; SAVEPOINT, RELEASE and ROLLBACK TO work within the
// call. So the read-write connection is in autocommit after every call,
// and what a call acknowledged is in the file. Statements that cannot run
// in a transaction (VACUUM, PRAGMA journal_mode = WAL) fail.
// create_table's authorizer allows creating tables and nothing else, so
// "CREATE TABLE a(x); DROP TABLE b" changes nothing through a tool that
// says it is not destructive. describe_table passes the table name as a
// bound parameter (pragma_table_info(?)), where the official server
// formats it into the SQL.
//
// # Bounds
//
// A result holds at most Options.MaxRows rows (DefaultMaxRows) and
// Options.MaxBytes bytes of JSON (DefaultMaxBytes): past either, the
// statement is stopped, the rows so far are returned with "truncated":
// true, and a second text block says what was cut and why. No value (a
// string or blob) that the read tools' statements make or read may be
// longer than Options.MaxValueBytes (by default MaxBytes, since a longer
// one cannot be in an answer): it is SQLite's SQLITE_LIMIT_LENGTH on the
// read connections, so SQLite refuses such a value before making it
// ("string or blob too big"; SELECT zeroblob(200000000) allocates
// nothing), and a row holding one cuts the result there. A value that is
// read is copied once, by the driver, and written as JSON only as far as
// the answer has room. A write call (write_query, create_table) is
// bounded as well: no value or row its statements make or read may be
// longer than Options.MaxWriteValueBytes (DefaultMaxWriteValueBytes,
// 16 MiB; SQLITE_LIMIT_LENGTH on the write connection, so that
// randomblob(500000000) is refused before a byte of it is made), and
// the call may grow the file by Options.MaxGrowthBytes at most
// (DefaultMaxGrowthBytes, 256 MiB; SQLite's max_page_count, set for each
// call from the file's size). Past either, the call is an error result
// and is rolled back. A call's statements are interrupted when the
// request is cancelled (notifications/cancelled) or after Options.Timeout
// (DefaultTimeout), wherever they are: before the first row, between two
// rows (the driver interrupts only the step to the first one, so the
// server arms sqlite3_interrupt of its own for the whole call), or in a
// write, which is then rolled back; the call is an error result and its
// connection serves the next call. The memo holds at most
// Options.MaxInsights insights of Options.MaxInsightBytes each.
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
//   - write_query runs several statements as one transaction (the
//     official server runs one statement per call, and commits it);
//     PRAGMAs that change a connection or the process, ATTACH, and TEMP
//     objects are refused, as is VACUUM, which cannot run in a
//     transaction.
//   - Read-only mode (--read-only) is new.
//   - Values of columns declared DATE, DATETIME or TIMESTAMP come back
//     from the driver as times, and are written back as SQLite text
//     ("2024-01-15", "2024-01-15 10:30:00"): a value stored in another
//     form ("2024-01-15T10:30:00Z") is shown in that form, not as stored.
package sqlite
