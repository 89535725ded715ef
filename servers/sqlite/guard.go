package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The tools share pooled connections: what one call leaves on its
// connection, the next call finds. So a tool's statements run under an
// SQLite authorizer that refuses, before anything runs, whatever would
// outlive the call or reach past the one database file:
//
//   - a transaction or savepoint on a read connection (it would keep the
//     file locked: every writer would get "database is locked"); on the
//     write connection, a BEGIN or COMMIT of the statement's own is a
//     no-op, since each call is one transaction that the tool ends, and a
//     ROLLBACK is refused;
//   - ATTACH and DETACH (a file elsewhere, or a database in memory whose
//     acknowledged rows never reach the file); this also closes VACUUM
//     INTO, which attaches the file it writes;
//   - TEMP tables, views, indexes and triggers: they live on one pooled
//     connection, not in the file; a TEMP trigger would act on every later
//     write, unseen by list_tables or by any other process;
//   - every PRAGMA but those that only read the schema or the file, or
//     change the file itself (user_version): the other ones change the
//     connection for later calls (query_only, locking_mode, synchronous,
//     case_sensitive_like, ...) or the whole process (temp_store_directory,
//     soft_heap_limit, hard_heap_limit). A PRAGMA is refused by name, since
//     the authorizer cannot tell "PRAGMA x" from "PRAGMA x = ''", which
//     sets x.
//
// Writes on the read connections are SQLite's to refuse (mode=ro,
// query_only); create_table has a rule of its own, see createRule.

// A rule decides whether a statement may do the action SQLite is about
// to compile (the arguments of SQLite's authorizer callback) and, when it
// may not, says why.
type rule func(action msqlite.AuthorizerActionCode, arg1, arg2, db string) (msqlite.AuthorizerReturnCode, string)

// A guard is the authorizer of one tool call: it applies its rule and
// keeps the first refusal, to say why in the tool's error.
type guard struct {
	rule    rule
	refused string
}

func (g *guard) authorize(action msqlite.AuthorizerActionCode, arg1, arg2, db, _ string) msqlite.AuthorizerReturnCode {
	rc, why := g.rule(action, arg1, arg2, db)
	if rc == msqlite.AuthorizerDeny && g.refused == "" {
		g.refused = why
	}
	return rc
}

// explain adds to an error of SQLite's authorizer the reason of the
// refusal.
func (g *guard) explain(err error) error {
	if g.refused != "" && sqliteCode(err) == sqlite3.SQLITE_AUTH {
		return fmt.Errorf("%w: %s", err, g.refused)
	}
	return err
}

// install makes g the authorizer of the connection.
func (g *guard) install(conn *sql.Conn) error {
	return conn.Raw(func(dc any) error {
		a, ok := dc.(msqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("the SQLite driver cannot install an authorizer (%T)", dc)
		}
		return a.RegisterAuthorizer(g.authorize)
	})
}

// sqliteCode is the primary result code of an SQLite error, 0 for any
// other error.
func sqliteCode(err error) int {
	var se *msqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// readRule is the rule of read_query, list_tables and describe_table.
func readRule(action msqlite.AuthorizerActionCode, arg1, arg2, db string) (msqlite.AuthorizerReturnCode, string) {
	switch action {
	case msqlite.AuthTransaction, msqlite.AuthSavepoint:
		return msqlite.AuthorizerDeny, statement(action, arg1, arg2) + " is refused: a read runs each statement on its own, and a transaction left open would keep the file locked after the call"
	case msqlite.AuthPragma:
		return pragmaRule(readPragmas, arg1)
	}
	return sharedRule(action, arg1, arg2, db)
}

// writeRule is the rule of write_query: anything that changes the main
// database, as one transaction that the tool begins and ends.
func writeRule(action msqlite.AuthorizerActionCode, arg1, arg2, db string) (msqlite.AuthorizerReturnCode, string) {
	switch action {
	case msqlite.AuthTransaction:
		if arg1 == "ROLLBACK" {
			return msqlite.AuthorizerDeny, "ROLLBACK is refused: write_query runs each call as one transaction and ends it itself, committed when every statement succeeds and rolled back otherwise"
		}
		return msqlite.AuthorizerIgnore, "" // BEGIN, COMMIT, END: the call's own transaction goes on
	case msqlite.AuthPragma:
		return pragmaRule(writePragmas, arg1)
	}
	return sharedRule(action, arg1, arg2, db)
}

// ownRule is the rule of the write connection between calls, when only
// the tools' own statements run on it: BEGIN, COMMIT and ROLLBACK, and
// the PRAGMAs that set a call's bound on the file's growth (see bound),
// which the call's statements may not lift.
func ownRule(action msqlite.AuthorizerActionCode, arg1, arg2, db string) (msqlite.AuthorizerReturnCode, string) {
	switch {
	case action == msqlite.AuthTransaction:
		return msqlite.AuthorizerOK, ""
	case action == msqlite.AuthPragma && ownPragmas[strings.ToLower(arg1)]:
		return msqlite.AuthorizerOK, ""
	}
	return writeRule(action, arg1, arg2, db)
}

// ownPragmas are the PRAGMAs of the write tools themselves.
var ownPragmas = set("max_page_count", "page_size")

// createRule is the rule of create_table: create tables and nothing else
// (the schema rows CREATE TABLE writes, the reads of CREATE TABLE ... AS
// SELECT, the indexes of PRIMARY KEY and UNIQUE constraints), so that
// "CREATE TABLE a(x); DROP TABLE b" cannot drop anything through a tool
// that says it is not destructive.
func createRule(action msqlite.AuthorizerActionCode, arg1, arg2, db string) (msqlite.AuthorizerReturnCode, string) {
	if rc, why := sharedRule(action, arg1, arg2, db); rc != msqlite.AuthorizerOK {
		return rc, why
	}
	switch action {
	case msqlite.AuthCreateTable, msqlite.AuthRead, msqlite.AuthSelect, msqlite.AuthFunction, msqlite.AuthRecursive:
		return msqlite.AuthorizerOK, ""
	case msqlite.AuthInsert, msqlite.AuthUpdate:
		if isSchemaTable(arg1) {
			return msqlite.AuthorizerOK, ""
		}
	case msqlite.AuthCreateIndex:
		if strings.HasPrefix(arg1, "sqlite_autoindex_") {
			return msqlite.AuthorizerOK, ""
		}
	}
	return msqlite.AuthorizerDeny, statement(action, arg1, arg2) + " is refused: create_table creates tables and does nothing else"
}

// sharedRule refuses, to every tool, what reaches past the one database
// file or stays on the connection.
func sharedRule(action msqlite.AuthorizerActionCode, arg1, arg2, db string) (msqlite.AuthorizerReturnCode, string) {
	switch action {
	case msqlite.AuthAttach, msqlite.AuthDetach:
		return msqlite.AuthorizerDeny, statement(action, arg1, arg2) + " is refused: the tools work on the one database file, and an attached database would stay on the connection after the call"
	case msqlite.AuthCreateTempTable, msqlite.AuthCreateTempIndex, msqlite.AuthCreateTempTrigger, msqlite.AuthCreateTempView:
		return msqlite.AuthorizerDeny, statement(action, arg1, arg2) + " is refused: a TEMP object lives on one connection of the server, not in the file, and would stay there after the call"
	case msqlite.AuthCreateTable, msqlite.AuthCreateIndex, msqlite.AuthCreateTrigger, msqlite.AuthCreateView, msqlite.AuthCreateVTable:
		if strings.EqualFold(db, "temp") { // CREATE TABLE temp.t, without the TEMP keyword
			return msqlite.AuthorizerDeny, statement(action, arg1, arg2) + " in temp is refused: a TEMP object lives on one connection of the server, not in the file, and would stay there after the call"
		}
	}
	return msqlite.AuthorizerOK, ""
}

// readPragmas are the PRAGMAs that read the schema or the file and set
// nothing on the connection: a read connection allows them, with or
// without an argument. user_version and application_id change the file
// when given a value, which the read connections refuse.
var readPragmas = set(
	"application_id", "collation_list", "compile_options", "data_version",
	"database_list", "foreign_key_check", "foreign_key_list", "freelist_count",
	"function_list", "index_info", "index_list", "index_xinfo",
	"integrity_check", "module_list", "page_count", "pragma_list",
	"quick_check", "table_info", "table_list", "table_xinfo", "user_version",
)

// writePragmas are readPragmas and those that change the file within the
// call's transaction, or last only until it ends (defer_foreign_keys is
// switched off at every COMMIT and ROLLBACK).
var writePragmas = set(append(keys(readPragmas), "defer_foreign_keys", "incremental_vacuum", "optimize")...)

// processPragmas change SQLite for the whole process: every connection of
// every database in it.
var processPragmas = set("data_store_directory", "hard_heap_limit", "soft_heap_limit", "temp_store_directory")

func pragmaRule(allowed map[string]bool, name string) (msqlite.AuthorizerReturnCode, string) {
	name = strings.ToLower(name)
	switch {
	case allowed[name]:
		return msqlite.AuthorizerOK, ""
	case processPragmas[name]:
		return msqlite.AuthorizerDeny, "PRAGMA " + name + " is refused: it changes SQLite for the whole process, every connection to every database, beyond this call"
	}
	return msqlite.AuthorizerDeny, "PRAGMA " + name + " is refused: it would change the server's connection for the calls after this one; the PRAGMAs allowed here are " + strings.Join(sortedKeys(allowed), ", ")
}

// statement names the statement of an authorizer action, for a message.
func statement(action msqlite.AuthorizerActionCode, arg1, arg2 string) string {
	switch action {
	case msqlite.AuthTransaction:
		return arg1 // BEGIN, COMMIT, ROLLBACK
	case msqlite.AuthSavepoint:
		switch arg1 {
		case "BEGIN":
			return "SAVEPOINT " + arg2
		case "ROLLBACK":
			return "ROLLBACK TO " + arg2
		}
		return arg1 + " " + arg2
	case msqlite.AuthAttach:
		return "ATTACH (or VACUUM INTO, which attaches the file it writes)"
	case msqlite.AuthDetach:
		return "DETACH"
	case msqlite.AuthCreateTempTable, msqlite.AuthCreateTempIndex, msqlite.AuthCreateTempTrigger, msqlite.AuthCreateTempView:
		return "CREATE TEMP " + kind(action) + " " + arg1
	}
	if k := kind(action); k != "" {
		return k + " " + arg1
	}
	return fmt.Sprintf("this statement (SQLite authorizer action %d)", action)
}

// kind words the object or operation of an authorizer action.
func kind(action msqlite.AuthorizerActionCode) string {
	switch action {
	case msqlite.AuthCreateTempTable:
		return "TABLE"
	case msqlite.AuthCreateTempIndex:
		return "INDEX"
	case msqlite.AuthCreateTempTrigger:
		return "TRIGGER"
	case msqlite.AuthCreateTempView:
		return "VIEW"
	case msqlite.AuthCreateTable:
		return "CREATE TABLE"
	case msqlite.AuthCreateIndex:
		return "CREATE INDEX"
	case msqlite.AuthCreateTrigger:
		return "CREATE TRIGGER"
	case msqlite.AuthCreateView:
		return "CREATE VIEW"
	case msqlite.AuthCreateVTable:
		return "CREATE VIRTUAL TABLE"
	case msqlite.AuthDelete:
		return "DELETE FROM"
	case msqlite.AuthInsert:
		return "INSERT INTO"
	case msqlite.AuthUpdate:
		return "UPDATE"
	case msqlite.AuthDropTable, msqlite.AuthDropTempTable:
		return "DROP TABLE"
	case msqlite.AuthDropIndex, msqlite.AuthDropTempIndex:
		return "DROP INDEX"
	case msqlite.AuthDropTrigger, msqlite.AuthDropTempTrigger:
		return "DROP TRIGGER"
	case msqlite.AuthDropView, msqlite.AuthDropTempView:
		return "DROP VIEW"
	case msqlite.AuthDropVTable:
		return "DROP VIRTUAL TABLE"
	case msqlite.AuthAlterTable:
		return "ALTER TABLE"
	case msqlite.AuthPragma:
		return "PRAGMA"
	case msqlite.AuthReindex:
		return "REINDEX"
	case msqlite.AuthAnalyze:
		return "ANALYZE"
	}
	return ""
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func keys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func sortedKeys(m map[string]bool) []string {
	ks := keys(m)
	slices.Sort(ks)
	return ks
}

func isSchemaTable(name string) bool {
	switch name {
	case "sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema":
		return true
	}
	return false
}
