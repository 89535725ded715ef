package mcpwire

import (
	"runtime/debug"
	"strings"
	"sync"
)

// Module is the path of the library module.
const Module = "github.com/mcpwire/mcpwire"

// Build describes the mcpwire code linked into the running program, read
// from the build information the Go toolchain records in every binary
// (runtime/debug.ReadBuildInfo), so that no -ldflags are needed.
type Build struct {
	// Version is the module version: the release tag of an install with
	// `go install …@v0.99.0` or of a program that requires mcpwire at
	// that version; the pseudo-version the toolchain derives from the
	// commit when a command of this repository is built from a checkout
	// (v0.0.0-20261202023411-5cb0ec74d70f, with +dirty when the work tree
	// had changes); "(devel)" when neither is known (go run, or a build
	// with -buildvcs=false).
	Version string `json:"version"`
	// Path is the module the version is of: the main module when it is
	// one of this repository's (the command line, the conformance
	// programs), else the library module as a dependency.
	Path string `json:"module"`
	// Commit and Time are the commit the binary was built from and its
	// date (RFC 3339), when built from a checkout; Modified reports
	// uncommitted changes in it.
	Commit   string `json:"commit,omitempty"`
	Time     string `json:"commitTime,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"goVersion,omitempty"`
}

// ReadBuild returns what the running program's build information says of
// mcpwire.
func ReadBuild() Build { return readBuild() }

// Version returns ReadBuild().Version: what a server built on mcpwire
// can put in its serverInfo.
func Version() string { return ReadBuild().Version }

// readBuild reads the build information once: the servers of this
// repository name their version at init.
var readBuild = sync.OnceValue(func() Build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Build{Version: "(devel)", Path: Module}
	}
	return buildOf(bi)
})

// String is the version with the commit and its date when they are
// known and the version does not already name them: "v0.99.0",
// "v0.0.0-20261202023411-5cb0ec74d70f (commit 5cb0ec74d70f,
// 2026-12-02T02:34:11Z)".
func (b Build) String() string {
	s := b.Version
	if b.Commit == "" {
		return s
	}
	short := b.Commit
	if len(short) > 12 {
		short = short[:12]
	}
	s += " (commit " + short
	if b.Time != "" {
		s += ", " + b.Time
	}
	if b.Modified {
		s += ", modified"
	}
	return s + ")"
}

func buildOf(bi *debug.BuildInfo) Build {
	b := Build{Version: "(devel)", Path: Module, GoVersion: bi.GoVersion}
	if bi.Main.Path == Module || strings.HasPrefix(bi.Main.Path, Module+"/") {
		// A program of this repository: its own module's version, and
		// the commit when built from a checkout.
		b.Path = bi.Main.Path
		if v := bi.Main.Version; v != "" {
			b.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
		if b.Version != "(devel)" || b.Commit != "" {
			return b
		}
	}
	for _, d := range bi.Deps {
		if d.Path != Module {
			continue
		}
		if d.Replace != nil && d.Replace.Version == "" {
			// Replaced by a directory: what it holds has no version.
			return b
		}
		b.Path = Module
		b.Version = d.Version
		if d.Replace != nil {
			b.Version = d.Replace.Version
		}
		return b
	}
	return b
}
