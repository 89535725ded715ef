package mcpwire_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpwire/mcpwire"

// layers says which packages of the module each package may import (a
// trailing "/..." covers a subtree). It is the diagram of docs/design.md.
// A package missing from the table fails the test: add it deliberately.
var layers = map[string][]string{
	"":                          {}, // the module's overview (doc.go)
	"jsonrpc":                   {"internal/jsonscan"},
	"mcp":                       {"jsonrpc", "internal/jsonscan", "internal/frontmatter"},
	"transport":                 {"jsonrpc"},
	"transport/stdio":           {"transport", "mcp", "jsonrpc"},
	"transport/memory":          {"transport", "mcp", "jsonrpc"},
	"transport/command":         {"transport", "mcp", "jsonrpc"},
	"transport/streamable":      {"transport", "transport/internal/sse", "internal/track", "store", "mcp", "jsonrpc", "internal/jsonscan"},
	"transport/sse":             {"transport", "transport/internal/sse", "internal/track", "mcp", "jsonrpc"},
	"transport/internal/sse":    {"transport", "jsonrpc"},
	"transport/internal/memnet": {}, // tests only: the in-memory network of the HTTP transports' tests
	"internal/track":            {},
	"internal/proxytest":        {},      // test support: a reverse proxy passes SSE answers whole (conformance/proxy, tap)
	"internal/bodytest":         {},      // test support: a huge request body, refused early by every HTTP entry point
	"internal/cannedhttp":       {"mcp"}, // test support: an MCP server over HTTP/1.1 with canned answers (the HTTP client's cost tests)
	"transport/observetest":     {},      // tests only: every transport's observer, end to end
	"internal/jsonschema":       {"internal/jsonscan"},
	"internal/jsonscan":         {}, // the one JSON scanner (jsonrpc, mcp, streamable, jsonschema and its full engine)
	"internal/jsonschema/full":  {"internal/jsonschema", "internal/jsonscan"},
	"internal/frontmatter":      {}, // SKILL.md frontmatter (a YAML subset) as JSON, for mcp's skills types
	"internal/peer":             {"mcp", "transport", "jsonrpc"},
	"server":                    {"internal/peer", "internal/jsonschema", "internal/track", "store", "mcp", "transport", "jsonrpc"},
	"server/fullschema":         {"internal/jsonschema/full"},
	"client":                    {"internal/peer", "internal/jsonschema", "mcp", "transport", "jsonrpc"},
	"auth":                      {"mcp", "jsonrpc"},
	"store":                     {"mcp", "jsonrpc"},
	"store/redis":               {"store", "mcp", "jsonrpc"},
	"store/storetest":           {"store", "mcp", "jsonrpc"}, // tests only: what every Store must do
	"store/redis/redistest":     {},                          // tests only: a real redis-server for a test package
	"mcptest":                   {"server", "client", "transport/...", "mcp", "jsonrpc"},
	"servers/sqlite":            {"", "server", "mcp"},
	"servers/git":               {"", "server", "mcp"},
	"servers/internal/argtest":  {"mcp"}, // test support: what every server's tools must do with their arguments
	"cmd/mcpwire":               {"cmd/mcpwire/internal/cli"},

	"servers/filesystem":                {"", "server", "mcp", "jsonrpc", "servers/filesystem/internal/glob", "servers/filesystem/internal/udiff"}, // jsonrpc: the typed error codes of resources/read
	"servers/filesystem/internal/glob":  {},
	"servers/filesystem/internal/udiff": {},
	"servers/filesystem/internal/peers": {}, // test support: finds the official server
}

// floors places the library's packages in the house, from the ground up:
// a package may import only packages on floors below its own, so no arrow
// of the layering runs back up (TestFloors holds the layers table to it;
// TestLayering holds the code to the table). docs/design.md draws it.
var floors = [][]string{
	{"", "internal/jsonscan", "internal/track", "internal/frontmatter", "servers/filesystem/internal/glob", "servers/filesystem/internal/udiff"}, // 0: the foundations, standard library only (the module's overview and version; the JSON scanner; stream tracking; SKILL.md frontmatter; the filesystem server's glob and diff)
	{"jsonrpc", "internal/jsonschema"},                           // 1: JSON-RPC 2.0; the JSON Schema engine
	{"mcp", "transport", "internal/jsonschema/full"},             // 2: the protocol's types; the message-level seam; the full schema engine
	{"internal/peer", "store", "auth", "transport/internal/sse"}, // 3: what server and client share; what instances share; authorization; the SSE codec
	{"transport/stdio", "transport/memory", "transport/command", "transport/streamable", "transport/sse", "store/redis"}, // 4: the transports; the Redis store
	{"server", "client", "server/fullschema"},                          // 5: the two ends
	{"mcptest", "servers/filesystem", "servers/git", "servers/sqlite"}, // 6: what is built on them
}

// TestFloors: every import the layers table allows a package on a floor
// is of a package on a floor below it; internal/peer, which server and
// client share, sits above mcp, transport and jsonrpc, which it imports.
func TestFloors(t *testing.T) {
	floor := map[string]int{}
	for f, pkgs := range floors {
		for _, p := range pkgs {
			if _, dup := floor[p]; dup {
				t.Errorf("%q is on two floors", p)
			}
			if _, ok := layers[p]; !ok {
				t.Errorf("%q is on floor %d but not in the layers table", p, f)
			}
			floor[p] = f
		}
	}
	for _, p := range append(slices.Clone(stdlibOnly), "server", "client", "store", "auth", "mcptest") {
		if _, ok := floor[p]; !ok && !strings.Contains(p, "memnet") {
			t.Errorf("%q, a package of the library, is on no floor", p)
		}
	}
	for p, f := range floor {
		for _, imp := range layers[p] {
			g, ok := floor[strings.TrimSuffix(imp, "/...")]
			switch {
			case !ok:
				t.Errorf("%q (floor %d) may import %q, which is on no floor", p, f, imp)
			case g >= f:
				t.Errorf("%q (floor %d) may import %q (floor %d): an arrow up or across the house", p, f, imp, g)
			}
		}
	}
}

// cliLayers are the packages of the command line, under
// cmd/mcpwire/internal: each may import the CLI packages its row names,
// and the library packages of cliLibrary. The verb families import app
// only; cli composes them.
var cliLayers = map[string][]string{
	"cmd/mcpwire/internal/cli":     {"cmd/mcpwire/internal/app", "cmd/mcpwire/internal/talk", "cmd/mcpwire/internal/login", "cmd/mcpwire/internal/wire", "cmd/mcpwire/internal/serve", "cmd/mcpwire/internal/catalog", "cmd/mcpwire/internal/bench", "cmd/mcpwire/internal/check", "cmd/mcpwire/internal/inspect", "cmd/mcpwire/internal/bridge", "cmd/mcpwire/internal/doctor", "cmd/mcpwire/internal/diff", "cmd/mcpwire/internal/skills"},
	"cmd/mcpwire/internal/app":     {"cmd/mcpwire/internal/frames", "cmd/mcpwire/internal/config"},
	"cmd/mcpwire/internal/frames":  {},                                                          // the recording format and the live view of frames
	"cmd/mcpwire/internal/wire":    {"cmd/mcpwire/internal/app", "cmd/mcpwire/internal/frames"}, // tap, replay
	"cmd/mcpwire/internal/config":  {},                                                          // the hosts' configuration files; the library it may use, it does not
	"cmd/mcpwire/internal/catalog": {"cmd/mcpwire/internal/app", "cmd/mcpwire/internal/config"}, // servers
	"cmd/mcpwire/internal/talk":    {"cmd/mcpwire/internal/app"},
	"cmd/mcpwire/internal/login":   {"cmd/mcpwire/internal/app"},
	"cmd/mcpwire/internal/clitest": {"cmd/mcpwire/internal/app"}, // test support, imported by tests only
	"cmd/mcpwire/internal/serve":   {"cmd/mcpwire/internal/app"},
	"cmd/mcpwire/internal/bench":   {"cmd/mcpwire/internal/app"},                                                                                                                                                                                       // bench
	"cmd/mcpwire/internal/check":   {"cmd/mcpwire/internal/app", "cmd/mcpwire/internal/frames"},                                                                                                                                                        // check
	"cmd/mcpwire/internal/inspect": {"cmd/mcpwire/internal/app", "cmd/mcpwire/internal/frames", "cmd/mcpwire/internal/config", "cmd/mcpwire/internal/netlog", "cmd/mcpwire/internal/doctor", "cmd/mcpwire/internal/diff", "cmd/mcpwire/internal/wire"}, // the web inspector (its page offers the doctor, the diff of a reconnection, the Network view and the recording as the verbs do)
	"cmd/mcpwire/internal/bridge":  {"cmd/mcpwire/internal/app", "internal/jsonscan"},                                                                                                                                                                  // bridge (which edits members of messages in place)
	"cmd/mcpwire/internal/release": {},                                                                                                                                                                                                                 // scripts/release and the tests of an install from a module proxy
	"cmd/mcpwire/internal/netlog":  {"cmd/mcpwire/internal/config"},                                                                                                                                                                                    // the HTTP exchanges of a client, secrets masked
	"cmd/mcpwire/internal/diff":    {"cmd/mcpwire/internal/app", "cmd/mcpwire/internal/frames"},                                                                                                                                                        // diff
	"cmd/mcpwire/internal/doctor":  {"cmd/mcpwire/internal/app", "cmd/mcpwire/internal/config", "cmd/mcpwire/internal/netlog"},                                                                                                                         // doctor
	"cmd/mcpwire/internal/skills":  {"cmd/mcpwire/internal/app"},                                                                                                                                                                                       // skills (the Skills extension)
}

// cliLibrary is what the packages of the command line may import of the
// library.
var cliLibrary = []string{"", "server", "client", "transport/...", "auth", "mcp", "jsonrpc", "internal/jsonschema", "servers/...",
	"otel/..."} // the otel module (its own go.mod): OpenTelemetry for the command line only, never the library

func init() {
	for pkg, own := range cliLayers {
		layers[pkg] = slices.Concat(own, cliLibrary)
	}
}

// public packages, which examples and conformance programs may use.
var public = []string{"", "jsonrpc", "mcp", "transport/...", "server", "server/fullschema", "client", "auth", "store/...", "mcptest", "servers/...", "otel/..."}

// stdlibOnly lists packages that may import nothing outside the standard
// library and the module: the core every user links.
var stdlibOnly = []string{"internal/jsonscan", "internal/frontmatter", "jsonrpc", "mcp", "transport", "transport/internal/sse", "transport/internal/memnet", "internal/track", "transport/stdio", "transport/memory", "transport/command", "transport/streamable", "transport/sse", "internal/peer"}

func matches(pkg string, patterns []string) bool {
	for _, p := range patterns {
		if p == pkg || strings.HasSuffix(p, "/...") && (pkg == strings.TrimSuffix(p, "/...") || strings.HasPrefix(pkg, strings.TrimSuffix(p, "...")) || p == "transport/..." && pkg == "transport") {
			return true
		}
	}
	return false
}

// workspace are the modules of the repository that hold the library and
// the command line, as go.work lists them (the otel and bench modules
// check their own layering).
var workspace = []string{"./...", "./cmd/mcpwire/...", "./conformance/...", "./servers/sqlite/...", "./store/redis/..."}

func TestLayering(t *testing.T) {
	out, err := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, workspace...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v%s", err, stderr(err))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	n := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		n++
		allowed, known := layers[pkg]
		top, _, _ := strings.Cut(pkg, "/")
		programs := top == "examples" || top == "conformance"
		if !known && !programs {
			t.Errorf("package %s is not in the layering table of layering_test.go", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if own, ok := strings.CutPrefix(imp+"/", module+"/"); ok {
				own = strings.TrimSuffix(own, "/") // "" is the root package
				switch {
				case programs && !matches(own, public):
					t.Errorf("%s imports %s: examples and conformance programs use public packages only", pkg, own)
				case !programs && !matches(own, allowed):
					t.Errorf("%s imports %s, which the layering forbids (allowed: %v)", pkg, own, allowed)
				}
				continue
			}
			first, _, _ := strings.Cut(imp, "/")
			if strings.Contains(first, ".") && slices.Contains(stdlibOnly, pkg) {
				t.Errorf("%s imports %s: the core imports only the standard library", pkg, imp)
			}
			if strings.Contains(first, ".") && !strings.HasPrefix(pkg, "auth") && !programs && !strings.HasPrefix(pkg, "cmd/mcpwire") &&
				(strings.Contains(imp, "oauth2") || strings.Contains(imp, "jwt") || strings.Contains(imp, "go-jose") || strings.Contains(path.Dir(imp), "opentelemetry")) {
				t.Errorf("%s imports %s: authorization and telemetry libraries stay out of the core", pkg, imp)
			}
			if strings.HasPrefix(imp, "github.com/santhosh-tekuri/") && pkg != "internal/jsonschema/full" {
				t.Errorf("%s imports %s: the full JSON Schema engine is linked only by importing server/fullschema", pkg, imp)
			}
		}
	}
	if n == 0 {
		t.Fatal("go list listed no packages")
	}
}

// modulePaths says which module each package is in, beyond the library
// module: a package whose dependencies a library user must not download
// is in a module of its own.
var modulePaths = map[string]string{
	"cmd/mcpwire":    "cmd/mcpwire",    // cobra, the inspector's browser tests, OpenTelemetry's exporters
	"conformance":    "conformance",    // the programs of the conformance suites: OpenTelemetry, Redis
	"servers/sqlite": "servers/sqlite", // modernc.org/sqlite
	"store/redis":    "store/redis",    // github.com/redis/go-redis
	"otel":           "otel",           // OpenTelemetry
	"bench":          "bench",          // the peers' SDKs, for measurement only
}

// heavy are the modules that the library module must never require: a
// user who imports server, client and a transport downloads none of them
// (TestInstallFromProxy checks a real user's go.sum).
var heavy = []string{"github.com/chromedp/", "github.com/spf13/cobra", "go.opentelemetry.io/", "google.golang.org/grpc", "google.golang.org/protobuf", "github.com/redis/go-redis/", "modernc.org/", "github.com/rogpeppe/go-internal"}

// TestModules: each package is in the module the table says, and the
// library module requires none of the heavy modules.
func TestModules(t *testing.T) {
	out, err := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{.Module.Path}}"}, workspace...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v%s", err, stderr(err))
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, mod, _ := strings.Cut(line, " ")
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		want := module
		for dir, m := range modulePaths {
			if rel == dir || strings.HasPrefix(rel, dir+"/") {
				want = module + "/" + m
			}
		}
		if mod != want {
			t.Errorf("package %s is in module %s, want %s", pkg, mod, want)
		}
	}
	gomod, err := exec.Command("go", "list", "-m", "-f", "{{.GoMod}}", module).Output()
	if err != nil {
		t.Fatalf("go list -m: %v%s", err, stderr(err))
	}
	data, err := os.ReadFile(strings.TrimSpace(string(gomod)))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) == 0 {
			continue
		}
		for _, h := range heavy {
			if strings.HasPrefix(f[0], h) {
				t.Errorf("the library's go.mod requires %s: move what needs it into the module of its user", f[0])
			}
		}
		if f[0] == "replace" {
			t.Errorf("the library's go.mod has a replace directive: go install refuses it (go.work points versions at the tree)")
		}
	}
}

func stderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return "\n" + string(ee.Stderr)
	}
	return ""
}

func TestLayeringPatterns(t *testing.T) {
	for _, tc := range []struct {
		pkg      string
		patterns []string
		want     bool
	}{
		{"mcp", []string{"mcp"}, true},
		{"mcpx", []string{"mcp"}, false},
		{"transport/stdio", []string{"transport/..."}, true},
		{"transport", []string{"transport/..."}, true},
		{"transportx", []string{"transport/..."}, false},
		{"server", []string{"client", "mcp"}, false},
	} {
		if got := matches(tc.pkg, tc.patterns); got != tc.want {
			t.Errorf("matches(%q, %v) = %v", tc.pkg, tc.patterns, got)
		}
	}
}
