// Command oauth serves an MCP server that requires OAuth 2.1
// authorization, with a small authorization server of its own
// (authserver.go), so that the whole setup runs on one machine:
//
//	go run ./examples/oauth                                     # http://localhost:3001/mcp
//	go run ./cmd/mcpwire login --url http://localhost:3001/mcp  # your browser comes back at once
//	go run ./cmd/mcpwire call whoami --url http://localhost:3001/mcp
//	go run ./cmd/mcpwire call notes_add --args '{"text":"buy milk"}' --url http://localhost:3001/mcp
//	go run ./cmd/mcpwire login --url http://localhost:3001/mcp --scope notes:write
//	go run ./cmd/mcpwire call notes_add --args '{"text":"buy milk"}' --url http://localhost:3001/mcp
//	go run ./cmd/mcpwire call notes --url http://localhost:3001/mcp
//
// The first notes_add is refused (403, insufficient_scope): writing
// needs the notes:write scope, which a plain login does not ask for. The
// mcpwire command says which login to run; a client built on package
// auth's Transport asks for the scope by itself and retries (step-up).
//
// The MCP server is protected by package auth's resource server: it
// publishes its Protected Resource Metadata (RFC 9728) at
// /.well-known/oauth-protected-resource/mcp, answers 401 with a challenge
// that points there, verifies the JWT access tokens of its authorization
// server (signature from the JWKS, issuer, audience: the token must be
// issued for this very endpoint, expiry), and requires notes:read of every
// request and notes:write of notes_add. The tools know who calls
// (auth.Principal): notes are kept per user, and legacy sessions belong
// to the user who opened them.
//
// The authorization server lives on the same origin: metadata (RFC 8414),
// JWKS, dynamic client registration, the authorization code grant with
// PKCE, and refresh tokens. It grants every request at once to -user
// (default alice), where a real one would log the user in and ask for
// consent. Its keys and grants live in memory: after a restart, log in
// again.
//
// -addr sets the address (127.0.0.1:0 picks a free port); the endpoint is
// printed on stderr. Ctrl-C shuts down gracefully.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// The scopes of the notes server.
const (
	scopeRead  = "notes:read"
	scopeWrite = "notes:write"
)

// notes keeps each user's notes, bounded.
type notes struct {
	mu sync.Mutex
	m  map[string][]string // by principal
}

const (
	maxNotesPerUser = 100
	maxUsers        = 1000
)

// NoteArgs are the arguments of notes_add.
type NoteArgs struct {
	Text string `json:"text" jsonschema:"the note"`
}

func (n *notes) add(ctx context.Context, req *server.Request, in NoteArgs) (string, error) {
	text := strings.TrimSpace(in.Text)
	if text == "" || len(text) > 1000 {
		return "", errors.New("a note is 1 to 1000 characters")
	}
	user, name := caller(ctx)
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, known := n.m[user]; !known && len(n.m) >= maxUsers {
		return "", errors.New("too many users")
	}
	if len(n.m[user]) >= maxNotesPerUser {
		return "", fmt.Errorf("%s has %d notes already", name, maxNotesPerUser)
	}
	n.m[user] = append(n.m[user], text)
	return fmt.Sprintf("noted for %s (%d notes)", name, len(n.m[user])), nil
}

func (n *notes) list(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
	user, name := caller(ctx)
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.m[user]) == 0 {
		return "no notes for " + name, nil
	}
	return "notes for " + name + ":\n- " + strings.Join(n.m[user], "\n- "), nil
}

// caller returns who calls: the principal (the issuer and the subject,
// unique across authorization servers), and the subject, to show.
func caller(ctx context.Context) (principal, name string) {
	if info, ok := auth.TokenInfoFromContext(ctx); ok {
		return auth.Principal(ctx), info.Subject
	}
	return "", "nobody"
}

func whoami(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
	info, ok := auth.TokenInfoFromContext(ctx)
	if !ok {
		return "", errors.New("no token (the middleware is missing)")
	}
	return fmt.Sprintf("%s, through client %s, with scopes %s", info.Subject, info.ClientID, strings.Join(info.Scopes, " ")), nil
}

// newMCPServer returns the notes server; its tools see the caller as
// auth.Principal.
func newMCPServer() (*server.Server, error) {
	srv := server.New(mcp.Implementation{Name: "oauth-example", Version: "1.0.0"}, &server.Options{
		Instructions: "Keeps notes for the user who calls.",
		Principal:    auth.Principal, // binds multi round-trip state and tasks to the user
	})
	n := &notes{m: map[string][]string{}}
	return srv, errors.Join(
		server.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "Says who is calling, and with which scopes"}, whoami),
		server.AddTool(srv, &mcp.Tool{Name: "notes", Description: "Lists the caller's notes"}, n.list),
		server.AddTool(srv, &mcp.Tool{Name: "notes_add", Description: "Adds a note (needs the notes:write scope)"}, n.add),
	)
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("oauth: ")
	addr := flag.String("addr", "localhost:3001", "address to listen on")
	user := flag.String("user", "alice", "the user every authorization is granted to")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, *user); err != nil {
		log.Fatal(err)
	}
}

// run serves the MCP server and its authorization server until ctx ends.
func run(ctx context.Context, addr, user string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "localhost" && port != "0" {
		base = "http://" + addr // the name the user typed, which browsers and the CLI use
	}
	resource := base + "/mcp"

	as, err := newAuthServer(base, resource, user, []string{scopeRead, scopeWrite})
	if err != nil {
		return err
	}
	verifier, err := auth.NewJWTVerifier(&auth.JWTOptions{
		Issuer:     base,
		Audience:   resource,
		JWKSURL:    base + "/jwks",
		TokenTypes: []string{tokenType},
	})
	if err != nil {
		return err
	}
	rs, err := auth.NewResourceServer(&auth.ResourceOptions{
		Resource:             resource,
		AuthorizationServers: []string{base},
		Verifier:             verifier,
		Scopes:               []string{scopeRead},
		ToolScopes:           map[string][]string{"notes_add": {scopeWrite}},
	})
	if err != nil {
		return err
	}
	srv, err := newMCPServer()
	if err != nil {
		return err
	}
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{
		// A legacy session belongs to the user who opened it.
		SessionOwner: func(r *http.Request) string { return auth.Principal(r.Context()) },
	})
	mux := http.NewServeMux()
	if err := rs.Mount(mux, h, true); err != nil {
		return err
	}
	as.mount(mux)

	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Printf("serving MCP at %s (authorization server %s, user %s)", resource, base, user)

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Print("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv.Close()
	h.Shutdown(sctx)
	return hs.Shutdown(sctx)
}
