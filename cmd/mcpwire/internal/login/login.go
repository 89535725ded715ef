package login

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// loginTimeout bounds mcpwire login, the user's visit to the browser
// included, unless --timeout says otherwise.
const loginTimeout = 5 * time.Minute

// loginOptions are the options of mcpwire login.
type loginOptions struct {
	URL               string        // --url: the MCP server
	Scopes            []string      // --scope, in order, without duplicates
	ClientID          string        // --client-id: a pre-registered client
	ClientSecret      string        // --client-secret: its secret, if confidential
	ClientMetadataURL string        // --client-metadata-url: a Client ID Metadata Document
	NoBrowser         bool          // --no-browser: only print the URL
	Port              int           // --port: the loopback port of the redirect URI; 0 for any
	Status            bool          // --status: list the stored tokens instead
	Store             string        // the token store
	Timeout           time.Duration // the bound of the whole login; 0 for none
}

const loginLong = `Log in to an MCP server that requires OAuth authorization, and keep the
token for the commands that follow: they send it to that server (and to no
other), and renew it with its refresh token when it expires.

mcpwire finds the server's authorization server (Protected Resource
Metadata, then the authorization server's metadata), registers with it if
needed, and opens the authorization page in your browser; it waits on
127.0.0.1 for the browser to come back, up to --timeout (5m by default
for login). Set --no-browser to only print the URL, or MCPWIRE_BROWSER
to a program that opens it (run directly, the URL as its last argument).

The client is identified, in this order, by --client-id (credentials
registered with the authorization server beforehand, with --client-secret
for a confidential client), by --client-metadata-url (the https URL of a
Client ID Metadata Document, when the server accepts those), by an earlier
registration, or by registering now (dynamic client registration).

Scopes are those of --scope plus those of the token kept for the server,
if any; without any, those the server advertises. Log out first to start
afresh.

Tokens are kept per server in the token store, a file only you can read
(mode 0600): $MCPWIRE_TOKENS, else $XDG_CONFIG_HOME/mcpwire/tokens.json,
else ~/.config/mcpwire/tokens.json. --status lists them (never the tokens
themselves).`

const loginExample = `  mcpwire login --url https://mcp.example.com/mcp
  mcpwire login --url https://mcp.example.com/mcp --scope files:write
  mcpwire login --url https://mcp.example.com/mcp --client-id my-app --client-secret @secret.txt
  mcpwire login --status`

func newLoginCmd(a *app.App, runF func(context.Context, *loginOptions) error) *cobra.Command {
	var scopes []string
	o := &loginOptions{}
	cmd := &cobra.Command{
		Use:     "login (--url URL | @NAME) [flags]",
		Short:   "Log in to a server that requires OAuth authorization",
		Long:    loginLong,
		Example: loginExample,
		GroupID: groupAuth,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.ParseServerless(cmd, args, !o.Status); err != nil {
				return err
			}
			if err := o.check(a, cmd, scopes); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return app.Failure(runLogin(cmd.Context(), a, o))
		},
	}
	fs := cmd.Flags()
	fs.Var(app.NamedStrings(&scopes, "SCOPE"), "scope", "ask for this scope (repeatable)")
	fs.Var(app.NamedString(&o.ClientID, "ID"), "client-id", "the client id registered with the authorization server beforehand")
	fs.Var(app.NamedString(&o.ClientSecret, "SECRET"), "client-secret", "the secret of --client-id: inline, @FILE to read a file, or - to read standard input")
	fs.Var(app.NamedString(&o.ClientMetadataURL, "URL"), "client-metadata-url", "identify the client by this Client ID Metadata Document (an https URL)")
	fs.BoolVar(&o.NoBrowser, "no-browser", false, "print the authorization URL without opening a browser")
	fs.IntVar(&o.Port, "port", 0, "listen for the browser on this port of 127.0.0.1 (default: any free port)")
	fs.BoolVar(&o.Status, "status", false, "list the servers you are logged in to (all, or the one of --url)")
	return cmd
}

// noArgs refuses positional arguments: login and logout name the server
// with --url, or a configured one with @NAME.
func noArgs(cmd *cobra.Command, args []string) error {
	_, rest, err := app.ServerAlias(args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return app.UsageErrorf("%s takes no arguments; name the server with --url (usage: %s)", cmd.CommandPath(), cmd.UseLine())
	}
	return nil
}

// check completes and checks the options, after the global flags.
func (o *loginOptions) check(a *app.App, cmd *cobra.Command, scopes []string) error {
	o.URL = a.Global.Target.URL
	o.Store = a.Global.Target.TokenStore
	o.Timeout = a.Global.Timeout
	if !cmd.Flags().Changed("timeout") {
		o.Timeout = loginTimeout
	}
	for _, s := range scopes {
		for _, f := range strings.Fields(s) {
			if !slices.Contains(o.Scopes, f) {
				o.Scopes = append(o.Scopes, f)
			}
		}
	}
	if o.Status {
		for _, name := range []string{"scope", "client-id", "client-secret", "client-metadata-url", "no-browser", "port"} {
			if cmd.Flags().Changed(name) {
				return app.UsageErrorf("--status lists the stored tokens: it takes no --%s", name)
			}
		}
		return nil
	}
	switch {
	case o.ClientSecret != "" && o.ClientID == "":
		return app.UsageErrorf("--client-secret needs --client-id")
	case o.Port < 0 || o.Port > 65535:
		return app.UsageErrorf("--port %d: want a port number, 1 to 65535 (or 0 for any)", o.Port)
	}
	if o.ClientMetadataURL != "" {
		u, err := url.Parse(o.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			return app.UsageErrorf("--client-metadata-url %q: want an https URL with a path, such as https://example.com/mcpwire.json", o.ClientMetadataURL)
		}
	}
	if strings.HasPrefix(o.ClientSecret, "@") || o.ClientSecret == "-" {
		s, err := readSecret(o.ClientSecret, a.Stdin)
		if err != nil {
			return err
		}
		o.ClientSecret = s
	}
	return nil
}

// readSecret resolves "@FILE" or "-" (standard input) into the secret
// they hold, without the final line break.
func readSecret(spec string, stdin io.Reader) (string, error) {
	where := "standard input"
	r := stdin
	if spec != "-" {
		where = spec[1:]
		f, err := os.Open(where)
		if err != nil {
			return "", app.UsageErrorf("--client-secret: %v", app.UnwrapPathError(err))
		}
		defer f.Close()
		r = f
	}
	b, err := app.ReadBounded(r)
	if err != nil {
		return "", app.UsageErrorf("--client-secret: %s: %v", where, err)
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", app.UsageErrorf("--client-secret: %s is empty", where)
	}
	return s, nil
}

// runLogin authorizes mcpwire for the server and keeps the token.
func runLogin(ctx context.Context, a *app.App, o *loginOptions) error {
	if o.Status {
		return runLoginStatus(a, o)
	}
	if o.Store == "" {
		_, err := app.TokenStorePath(a.Getenv)
		return err
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	stored, err := readTokens(o.Store)
	if err != nil {
		return err
	}
	scopes := requestedScopes(tokensFor(stored, o.URL))
	for _, s := range o.Scopes {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	la, err := auth.NewLoopbackAuthorizer(&auth.LoopbackOptions{
		Port:        o.Port,
		Output:      a.Stderr,
		NoBrowser:   o.NoBrowser,
		OpenBrowser: a.Browser(),
		Timeout:     o.Timeout,
	})
	if err != nil {
		return fmt.Errorf("cannot wait for the browser: %s", strings.TrimPrefix(err.Error(), "auth: "))
	}
	defer la.Close()
	rec := &clientIDRecorder{Authorizer: la}
	store := auth.NewFileTokenStore(o.Store)
	u, _ := url.Parse(o.URL)
	opts := &auth.ClientOptions{
		Authorizer:        rec,
		Store:             store,
		ClientMetadataURL: o.ClientMetadataURL,
		OfflineAccess:     true, // a refresh token, when the server offers them
		AllowLoopbackHTTP: app.IsLoopback(u),
		Logger:            a.Logger(),
	}
	if o.ClientID != "" {
		opts.Clients = []auth.ClientCredentials{{ClientID: o.ClientID, ClientSecret: o.ClientSecret}}
	}
	tr, err := auth.NewTransport(nil, opts)
	if err != nil {
		return app.UsageErrorf("%s", strings.TrimPrefix(err.Error(), "auth: "))
	}
	defer tr.CloseIdleConnections()
	tok, err := tr.Login(ctx, o.URL, scopes...)
	if err != nil {
		return loginError(ctx, err, o)
	}
	// Later commands renew the token without these options: keep the
	// client that obtained it where they look for it.
	var keep *auth.ClientCredentials
	switch rec.id() {
	case "":
	case o.ClientID:
		keep = &auth.ClientCredentials{Issuer: tok.Issuer, ClientID: o.ClientID, ClientSecret: o.ClientSecret}
	case o.ClientMetadataURL:
		keep = &auth.ClientCredentials{Issuer: tok.Issuer, ClientID: o.ClientMetadataURL, AuthMethod: auth.AuthMethodNone}
	}
	if keep != nil {
		if err := store.SetClient(ctx, tok.Issuer, keep); err != nil {
			return fmt.Errorf("token store: %v", err)
		}
	}
	st := []storedToken{{Resource: tok.Resource, Issuer: tok.Issuer, Token: *tok}}
	if a.Global.JSON {
		return app.WriteJSON(a.Stdout, statusJSON(o.Store, st, a.Now()))
	}
	return writeStatus(a.Stdout, "Logged in to "+o.URL+".\n\n", o.Store, st, a.Now())
}

// loginError words the failure of a login whose context is ctx. Once
// ctx's deadline has passed, the login timed out, whatever err says: the
// loopback authorizer's own timer, as long as --timeout, may fire first.
func loginError(ctx context.Context, err error, o *loginOptions) error {
	deadline, ok := ctx.Deadline()
	if (ok && !time.Now().Before(deadline)) || errors.Is(err, context.DeadlineExceeded) {
		if o.Timeout > 0 {
			return fmt.Errorf("login timed out after %s (see --timeout)", o.Timeout)
		}
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return errors.New("login interrupted")
	}
	if d := app.DescribeNetError(err, o.URL); d != nil {
		return app.WithCode(d, app.ExitConnect)
	}
	return fmt.Errorf("login to %s failed: %s", o.URL, strings.TrimPrefix(app.OneLine(err.Error()), "auth: "))
}

// clientIDRecorder is the Authorizer of mcpwire login: the loopback
// authorizer, noting the client_id of the authorization request, which
// tells how the client was identified.
type clientIDRecorder struct {
	auth.Authorizer
	mu       sync.Mutex
	clientID string
}

// Authorize notes the client_id and hands the URL on.
func (r *clientIDRecorder) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	if u, err := url.Parse(authURL); err == nil {
		r.mu.Lock()
		r.clientID = u.Query().Get("client_id")
		r.mu.Unlock()
	}
	return r.Authorizer.Authorize(ctx, authURL)
}

func (r *clientIDRecorder) id() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clientID
}
