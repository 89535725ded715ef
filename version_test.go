package mcpwire

import (
	"runtime/debug"
	"testing"
)

func TestBuildOf(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "5cb0ec74d70f0205b50375061e06377e74de0312"},
		{Key: "vcs.time", Value: "2026-12-02T02:34:11Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want Build
		str  string
	}{{
		name: "installed with go install …/cmd/mcpwire@v0.99.0",
		bi: debug.BuildInfo{Main: debug.Module{Path: Module + "/cmd/mcpwire", Version: "v0.99.0"},
			Deps: []*debug.Module{{Path: Module, Version: "v0.99.0"}}},
		want: Build{Version: "v0.99.0", Path: Module + "/cmd/mcpwire"},
		str:  "v0.99.0",
	}, {
		name: "built from a checkout",
		bi: debug.BuildInfo{Main: debug.Module{Path: Module + "/cmd/mcpwire", Version: "v0.0.0-20261202023411-5cb0ec74d70f+dirty"},
			Deps: []*debug.Module{{Path: Module, Version: "(devel)"}}, Settings: vcs},
		want: Build{Version: "v0.0.0-20261202023411-5cb0ec74d70f+dirty", Path: Module + "/cmd/mcpwire",
			Commit: "5cb0ec74d70f0205b50375061e06377e74de0312", Time: "2026-12-02T02:34:11Z", Modified: true},
		str: "v0.0.0-20261202023411-5cb0ec74d70f+dirty (commit 5cb0ec74d70f, 2026-12-02T02:34:11Z, modified)",
	}, {
		name: "built in the workspace without VCS stamping (go run)",
		bi: debug.BuildInfo{Main: debug.Module{Path: Module + "/conformance", Version: "(devel)"},
			Deps: []*debug.Module{{Path: Module, Version: "(devel)"}}},
		want: Build{Version: "(devel)", Path: Module},
		str:  "(devel)",
	}, {
		name: "a user's program requiring the library",
		bi: debug.BuildInfo{Main: debug.Module{Path: "example.com/weather", Version: "v1.2.3"},
			Deps: []*debug.Module{{Path: "example.com/other", Version: "v1.0.0"}, {Path: Module, Version: "v0.99.0"}}, Settings: vcs},
		want: Build{Version: "v0.99.0", Path: Module},
		str:  "v0.99.0",
	}, {
		name: "a user's program with the library replaced by a version",
		bi: debug.BuildInfo{Main: debug.Module{Path: "example.com/weather"},
			Deps: []*debug.Module{{Path: Module, Version: "v0.99.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v0.99.1"}}}},
		want: Build{Version: "v0.99.1", Path: Module},
		str:  "v0.99.1",
	}, {
		name: "a user's program with the library replaced by a directory",
		bi: debug.BuildInfo{Main: debug.Module{Path: "example.com/weather"},
			Deps: []*debug.Module{{Path: Module, Version: "v0.99.0", Replace: &debug.Module{Path: "../mcpwire"}}}},
		want: Build{Version: "(devel)", Path: Module},
		str:  "(devel)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tc.bi.GoVersion = "go1.26.8"
			tc.want.GoVersion = "go1.26.8"
			got := buildOf(&tc.bi)
			if got != tc.want {
				t.Errorf("buildOf = %+v\nwant      %+v", got, tc.want)
			}
			if s := got.String(); s != tc.str {
				t.Errorf("String() = %q, want %q", s, tc.str)
			}
		})
	}
}
