package inspect

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// referencePeers returns Node 22 and the official reference server
// (@modelcontextprotocol/server-everything), or skips the test.
func referencePeers(t *testing.T) (node, everything string) {
	t.Helper()
	node, everything = os.Getenv("NODE22"), os.Getenv("SERVER_EVERYTHING")
	if node == "" || everything == "" {
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatal("NODE22 and SERVER_EVERYTHING are not set: run eval \"$(scripts/install-peers.sh)\"")
		}
		t.Skip("NODE22 and SERVER_EVERYTHING are not set; run eval \"$(scripts/install-peers.sh)\" to test against the reference server")
	}
	return node, everything
}

// referenceHTTP starts the reference server over Streamable HTTP on a
// free port of 127.0.0.1 until the end of the test, and returns its
// endpoint.
func referenceHTTP(t *testing.T, node, everything string) string {
	t.Helper()
	return serveHTTPCommand(t, func(port int) *exec.Cmd {
		cmd := exec.Command(node, everything, "streamableHttp")
		cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port), "HOST=127.0.0.1")
		return cmd
	})
}

// serveHTTPCommand starts the HTTP server that newCmd makes for a free
// port of 127.0.0.1, until the end of the test, and returns its /mcp
// endpoint once it accepts connections.
func serveHTTPCommand(t *testing.T, newCmd func(port int) *exec.Cmd) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := newCmd(port)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server does not listen on %s within 30s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReferenceServerViews uses the new views on the official reference
// server (2025-11-25, stateful), over stdio and Streamable HTTP: a task
// started with "Call as task" that asks a question (answered in the
// page) and whose status the Tasks view follows live (the server sends
// no notifications/tasks/status: the inspector polls tasks/get), a deep
// link to the task across a reload, a call saved as a check and run,
// Reconnect and what changed, the doctor, and over HTTP the Network
// view (the session, the SSE stream, the frames each exchange carried).
func TestReferenceServerViews(t *testing.T) {
	node, everything := referencePeers(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			checks := filepath.Join(t.TempDir(), "checks.json")
			var in *inspection
			if transport == "stdio" {
				in = inspect(t, nil, "--checks", checks, "--", node, everything, "stdio")
			} else {
				in = inspect(t, nil, "--checks", checks, "--url", referenceHTTP(t, node, everything))
			}
			p := openPage(t, in)
			p.wait(`document.querySelector('#list li[data-key="tool:simulate-research-query"]')`)

			// A task: required by the tool, so "Call as task" is its only
			// button; ambiguous, so it asks.
			p.open("tools", "tool:simulate-research-query")
			if p.str(`document.querySelector("#detail #call") ? "call" : ""`) != "" {
				t.Errorf("a tool that requires a task has a plain Call button")
			}
			p.typeIn(`#detail [name="topic"]`, "python")
			p.click(`#detail [name="ambiguous"]`) // a boolean with a default: a check box
			n := p.results()
			p.click("#call-task")
			p.wait(`document.querySelector("#detail .history .result .status .task-link")`)
			id := p.str(`document.querySelector("#detail .history .result .status .task-link").textContent`)
			row := `document.querySelector('#tasks .task[data-task=` + q(id) + `]')`
			p.click(`#wire-tabs [data-pane="tasks"]`)
			p.wait(row + ` && ` + row + `.innerText.includes("Analyzing content")`) // live: the status message of the second stage
			p.wait(`document.querySelector('#questions:not([hidden]) .question[data-kind="elicit"]')`)
			p.wait(row + `.classList.contains("input_required")`)
			p.choose(`#questions select[name="interpretation"]`, "Python snake species")
			p.click(`#questions button[name="accept"]`)
			p.wait(fmt.Sprintf(`document.querySelectorAll("#detail .history .result").length > %d && !document.querySelector("#detail .history .result .status.running")`, n))
			if st, text := p.result(); st != "ok" || !strings.Contains(text, "Research Report: python (snake)") {
				t.Errorf("the task's result: %s %.300s", st, text)
			}
			p.wait(row + `.classList.contains("completed")`)
			if transport == "stdio" {
				p.js(row+`.click(); true`, nil) // open: its status messages and its result
				p.screenshot("inspect-tasks.png")
			}

			// The deep link to the task, across a reload.
			p.do(chromedp.Navigate(in.URL + "#task=" + id))
			p.wait(row + ` && ` + row + `.classList.contains("open")`)
			p.do(chromedp.Reload())
			p.wait(row + ` && ` + row + `.classList.contains("open") && !document.querySelector("#tasks-pane").hidden`)

			// A check, saved and run.
			p.open("tools", "tool:echo")
			p.typeIn(`#detail [name="message"]`, "checked")
			if st, text := p.call(); st != "ok" || !strings.Contains(text, "Echo: checked") {
				t.Fatalf("echo: %s %s", st, text)
			}
			p.click(`#detail .history .result .body button.small`)
			p.js(`document.querySelector('#detail [name="check-name"]').value = "echo checked"; true`, nil)
			p.click(`#detail [name="save-check"]`)
			p.wait(`document.querySelector("#detail .save-check").innerText.includes("Saved.")`)
			p.open("checks", "check:echo checked")
			p.click("#run-checks")
			p.wait(`document.querySelector("#detail").innerText.includes("✓ passed")`)

			if transport == "http" {
				// The Network view: the session, the POSTs and the GET
				// stream, each exchange linked to its frames and back.
				p.click(`#wire-tabs [data-pane="network"]`)
				p.wait(`[...document.querySelectorAll("#network .frame.net")].some(r => r.innerText.includes("GET"))`)
				p.js(`[...document.querySelectorAll("#network .frame.net")].filter(r => r.innerText.includes("POST") && r.innerText.includes("SSE")).pop().click()`, nil)
				p.js(`document.querySelectorAll("#network .frame-detail details").forEach(d => d.open = true); true`, nil)
				detail := p.str(`document.querySelector("#network .frame-detail").innerText`)
				for _, want := range []string{"session ", "Mcp-Session-Id", "text/event-stream", "Received: "} {
					contains(t, "the exchange", detail, want)
				}
				p.screenshot("inspect-network.png")
				p.click(`#network .frame-detail .msg-link`)
				p.wait(`!document.querySelector("#frames-pane").hidden && document.querySelector("#frames .frame.open")`)
				p.click(`#frames .frame-detail .net-link`)
				p.wait(`!document.querySelector("#network-pane").hidden && document.querySelector("#network .frame.open")`)
			}

			// Reconnect: a new session (a new process over stdio); the
			// lists are the same.
			p.click("#reconnect")
			p.wait(`document.querySelector("#changes") && S.status === "connected" && !S.connecting`)
			contains(t, "the changes", p.str(`document.querySelector("#changes").innerText`), "Nothing changed.")
			p.click(`#kinds [data-kind="tools"]`)
			p.wait(`document.querySelector('#list li[data-key="tool:echo"]')`)
			p.screenshot("inspect-reconnect-" + transport + ".png")
			p.open("tools", "tool:echo")
			p.typeIn(`#detail [name="message"]`, "again")
			if st, text := p.call(); st != "ok" || !strings.Contains(text, "Echo: again") {
				t.Errorf("a call after the reconnection: %s %s", st, text)
			}

			// The doctor: 2025-11-25 answers, 2026-07-28 does not.
			p.click("#doctor")
			p.wait(`document.querySelector("#doctor-steps")`)
			steps := p.str(`document.querySelector("#doctor-steps").innerText`)
			contains(t, "the doctor", steps, "initialize, protocol 2025-11-25 over")
			contains(t, "the doctor", steps, "does not speak 2026-07-28")
			if transport == "stdio" {
				p.screenshot("inspect-doctor.png")
			}
		})
	}
}
