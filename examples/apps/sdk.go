package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// The App runs in a sandbox that lets it load nothing from elsewhere
// (the host's default Content-Security-Policy), so its HTML carries
// everything inline, the App SDK included. The SDK is the bundle that
// the npm package @modelcontextprotocol/ext-apps ships as
// dist/src/app-with-deps.js: an ES module, everything bundled, that ends
// with one export statement. Inlined in a <script type="module">, nothing
// could import from it, so the server turns that statement into an
// assignment to globalThis.ExtApps, which the App's own module reads.
// The bundle is read from the disk of whoever runs the example (npm
// install @modelcontextprotocol/ext-apps@2.0.4); mcpwire does not ship it.

// maxSDK bounds the bundle read (2.0.4's is 0.5 MiB).
const maxSDK = 4 << 20

// exportClause matches the bundle's closing export statement.
var exportClause = regexp.MustCompile(`export\s*\{([^}]*)\}\s*;?\s*$`)

// exportName matches one export: "local as Name", or "Name".
var exportName = regexp.MustCompile(`^\s*([\w$]+)(?:\s+as\s+([\w$]+))?\s*$`)

// sdkModule returns the bundle js with its closing export statement
// turned into globalThis.ExtApps = {Name: local, ...}.
func sdkModule(js string) (string, error) {
	loc := exportClause.FindStringSubmatchIndex(js)
	if loc == nil {
		return "", errors.New("the App SDK does not end with an export statement: is it app-with-deps.js?")
	}
	var fields []string
	for _, part := range strings.Split(js[loc[2]:loc[3]], ",") {
		m := exportName.FindStringSubmatch(part)
		if m == nil {
			return "", fmt.Errorf("the App SDK exports %q, which this example does not understand", part)
		}
		name := m[1]
		if m[2] != "" {
			name = m[2]
		}
		fields = append(fields, name+":"+m[1])
	}
	if strings.Contains(js[:loc[0]], "</script") {
		return "", errors.New("the App SDK holds </script>, which would end the element early")
	}
	return js[:loc[0]] + "\nglobalThis.ExtApps = Object.freeze({" + strings.Join(fields, ",") + "});\n", nil
}

// readSDK reads the bundle at path and prepares it for inlining.
func readSDK(path string) (string, error) {
	if path == "" {
		return "", errors.New("no App SDK: give -sdk PATH or set EXT_APPS to the path of app-with-deps.js of @modelcontextprotocol/ext-apps 2.0.x")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSDK+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxSDK {
		return "", fmt.Errorf("%s is larger than %d bytes", path, maxSDK)
	}
	return sdkModule(string(b))
}
