// Package login holds the verbs that manage mcpwire's authorization with
// servers that require OAuth: login (and login --status) and logout.
//
//	login.go   mcpwire login    authorize mcpwire, keep the token
//	status.go  mcpwire login --status: the stored tokens (never the tokens themselves)
//	logout.go  mcpwire logout   forget a server's tokens
//	tokens.go  the contents of the token store: which tokens go to which server
//	family.go  the Family of the root command
//
// login runs the authorization code grant through
// auth.NewLoopbackAuthorizer: the URL on stderr, the browser
// (MCPWIRE_BROWSER, else the system's), the redirect back to 127.0.0.1.
// Pre-registered and Client ID Metadata Document clients are written to
// the token store after login, where the other verbs (through the HTTP
// link of package app) find them to renew tokens.
package login
