// Package clitest holds what the tests of the command line share: the
// test server (in process, or as the "testserver" program over stdio),
// the same server over HTTP with a small OAuth authorization server, and
// environments that run whole command lines against them (Env in
// process over transport/memory, CLIEnv through the real app.Connect).
// Only tests import it.
package clitest
