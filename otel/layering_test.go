package otel_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The otel module's place in the layering of docs/design.md: it stands on
// the public packages of mcpwire (and the module's JSON scanner), and
// nothing of mcpwire stands on it but the command line and the
// conformance programs (the main module's layering_test.go checks that
// side).
var allowed = map[string][]string{
	"otel":                   {"server", "client", "mcp", "jsonrpc", "transport", "internal/jsonscan"},
	"otel/otlpenv":           {"otel", "otel/internal/otlphttp", "otel/internal/sdk"},
	"otel/otlptest":          {},
	"otel/internal/otlphttp": {"otel/internal/sdk"},
	"otel/internal/sdk":      {},
}

func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const root = "github.com/mcpwire/mcpwire/"
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], root)
		own, ok := allowed[pkg]
		if !ok {
			t.Errorf("package %s is not in the layering table of layering_test.go", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if p, ok := strings.CutPrefix(imp, root); ok && !slices.Contains(own, p) {
				t.Errorf("%s imports %s, which the layering forbids (allowed: %v)", pkg, p, own)
			}
		}
	}
}
