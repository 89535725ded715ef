// Package app is what every verb of the mcpwire command line shares:
// the App of one run (standard streams, global flags, test seams), the
// server the global flags name and the way to reach it, the session's
// lifetime, exit codes and the wording of errors, output helpers and
// the --verbose log. Each verb package (talk, login, ...) builds its
// cobra commands on it; package cli composes them.
//
// # A verb
//
// A verb that talks to a server is a cobra.Command whose RunE is
// a.RunE(f): the global flags and the server after "--" are checked
// into a.Global, then f parses the verb's own arguments and calls
// a.WithSession, which starts or reaches the server (Connect), agrees
// on a protocol revision, bounds everything by --timeout, closes the
// session, and turns failures into one line with an exit code:
//
//	RunE: a.RunE(func(cmd *cobra.Command, pos []string) error {
//		return a.WithSession(cmd.Context(), func(ctx context.Context, s *client.Session) error {
//			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: pos[0]})
//			if err != nil {
//				return err // worded by WithSession
//			}
//			return app.WriteJSON(a.Stdout, res)
//		})
//	}),
//
// Its errors are ExitErrors: UsageErrorf (2), ConnectErrorf (4),
// &ExitError{Code: ExitToolError} (3), anything else 1 (Failure).
//
// # Files
//
//	app.go     the App, its Options and Target; argument checks; stderr,
//	           which masks secrets
//	root.go    Family, NewRoot, Execute, RunE
//	flags.go   the global flags and their checks; flag values named in the help
//	connect.go Connect (the one function that builds a transport), dial,
//	           WithSession, a server process's exit diagnostics
//	http.go    --url: the Streamable HTTP link, the stored token sent
//	           through auth.Transport, and the words for what goes wrong
//	           (network, TLS, HTTP status, a login needed)
//	tokens.go  where the token store is
//	browser.go opening a page in the browser (login, inspect)
//	servers.go @NAME and --server: a server of the hosts' configuration
//	           files (package config) as the target; its secrets masked
//	           on stderr
//	exit.go    exit codes and the error line
//	args.go    --args: inline JSON, @FILE, or - for stdin
//	render.go  tables, JSON, content blocks
//	log.go     --verbose: the server's stderr on ours, prefixed
//	telemetry.go the Telemetry seam (OpenTelemetry, set by package cli):
//	           instrumented client and server options, a span per command
//
// # Servers over HTTP, and OAuth
//
// With --url the verbs speak Streamable HTTP (falling back to HTTP+SSE
// by themselves) with the --header headers. Every request goes through an
// auth.Transport on the token store, without an Authorizer: the token
// mcpwire login obtained for the server is sent and renewed with its
// refresh token, but no verb other than login ever opens a browser.
// When the server needs the user (no token, a refused renewal, a tool
// that needs more scopes), the verb fails with exit code 4 and the
// mcpwire login command line that would help.
package app
