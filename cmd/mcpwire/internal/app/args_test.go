package app

import (
	"strings"
	"testing"
)

func TestPosition(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\": x\n}")
	for off, want := range map[int64]string{
		1:  "at line 1, column 1",
		2:  "at line 1, column 2",
		3:  "at line 2, column 1",
		20: "at line 3, column 8", // the x
		0:  "at line 1, column 1",
		99: "at line 4, column 1",
	} {
		if got := position(data, off); got != want {
			t.Errorf("position(%d) = %q, want %q", off, got, want)
		}
	}
}

func TestReadArgsTooLarge(t *testing.T) {
	big := strings.NewReader(`{"a":"` + strings.Repeat("x", maxArgsSize) + `"}`)
	_, err := ReadArgs("-", big)
	if got, want := Message(err), "--args - (standard input): more than 16 MiB"; ExitCode(err) != ExitUsage || got != want {
		t.Errorf("exit %d, message %q; want 2, %q", ExitCode(err), got, want)
	}
}

func TestReadStringArgs(t *testing.T) {
	got, err := ReadStringArgs(`{"b": "2", "a": ""}`, nil)
	if err != nil || len(got) != 2 || got["a"] != "" || got["b"] != "2" {
		t.Errorf("got %v, %v", got, err)
	}
	for spec, want := range map[string]string{
		`{"a": null}`:  `--args: prompt arguments are strings, but "a" is null (quote it)`,
		`{"a": true}`:  `--args: prompt arguments are strings, but "a" is a boolean (quote it)`,
		`{"a": ["x"]}`: `--args: prompt arguments are strings, but "a" is an array (quote it)`,
		`"x"`:          `--args: want a JSON object, got a string`,
	} {
		_, err := ReadStringArgs(spec, nil)
		if got := Message(err); got != want || ExitCode(err) != ExitUsage {
			t.Errorf("%s: exit %d, %q; want 2, %q", spec, ExitCode(err), got, want)
		}
	}
}
