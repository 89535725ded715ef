package jsonschema_test

// The tests of this directory, internal (package jsonschema) and external,
// form one test binary. This import links the full engine into it, as
// server/fullschema links it into a program: tests that compare the two
// engines find it registered (engines_test.go), and tests of the built-in
// checks set it aside for their duration (withoutFullEngine).
import _ "github.com/mcpwire/mcpwire/internal/jsonschema/full"
