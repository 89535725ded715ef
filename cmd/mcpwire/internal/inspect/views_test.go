package inspect

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestViewsEverythingServer uses the new views on the project's
// everything-server over stdio and Streamable HTTP, in both eras: a call
// saved as a check and run, a deep link that survives a reload, tasks
// (a call that became one, a task that asks a question), Reconnect and
// its diff, the doctor.
func TestViewsEverythingServer(t *testing.T) {
	bin := everythingServer(t)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, c := range []struct{ transport, protocol string }{{"stdio", "2026-07-28"}, {"stdio", "2025-11-25"}, {"http", "2026-07-28"}, {"http", "2025-11-25"}} {
		protocol := c.protocol
		t.Run(c.transport+"/"+protocol, func(t *testing.T) {
			checks := filepath.Join(t.TempDir(), "checks.json")
			var in *inspection
			over := "stdio"
			if c.transport == "stdio" {
				in = inspect(t, nil, "--protocol", protocol, "--checks", checks, "--", "everything-server", "-stdio")
			} else {
				over = "Streamable HTTP"
				u := serveHTTPCommand(t, func(port int) *exec.Cmd { return exec.Command(bin, "-http", fmt.Sprintf("127.0.0.1:%d", port)) })
				in = inspect(t, nil, "--protocol", protocol, "--checks", checks, "--url", u)
			}
			p := openPage(t, in)

			// A check: saved from the result, written to --checks, run.
			p.open("tools", "tool:greet")
			p.typeIn(`#detail [name="name"]`, "Ada")
			if st, text := p.call(); st != "ok" || !strings.Contains(text, "Hello, Ada!") {
				t.Fatalf("greet: %s %s", st, text)
			}
			p.click(`#detail .history .result .body button.small`)
			p.js(`document.querySelector('#detail [name="check-name"]').value = "greets Ada"; true`, nil)
			p.click(`#detail [name="save-check"]`)
			p.wait(`document.querySelector("#detail .save-check").innerText.includes("Saved.")`)
			data, err := os.ReadFile(checks)
			if err != nil || !strings.Contains(string(data), `"greets Ada"`) || !strings.Contains(string(data), "Hello, Ada!") {
				t.Fatalf("the checks file: %v %s", err, data)
			}
			p.open("checks", "check:greets Ada")
			p.click("#run-checks")
			p.wait(`document.querySelector("#detail").innerText.includes("✓ passed")`)

			// A deep link: the tool stays open across a reload.
			p.open("tools", "tool:greet")
			if h := p.str(`location.hash`); h != "#item=tool%3Agreet" {
				t.Errorf("the hash: %q", h)
			}
			p.do(chromedp.Reload())
			p.wait(`document.querySelector("#detail .head") && document.querySelector("#detail .head").innerText.includes("greet")`)

			// Tasks: a call that becomes one (2026-07-28: the server decides;
			// 2025-11-25: "Call as task"), live in the Tasks pane, linked
			// from the call; a task that asks a question, answered in the
			// page; a deep link to a task, as the fragment changes and
			// across a reload.
			callTask := func() (status, text string) {
				t.Helper()
				if protocol == "2026-07-28" {
					return p.call()
				}
				if p.str(`document.querySelector("#call-task") ? "yes" : ""`) == "" {
					p.fail("no Call as task button in a 2025-11-25 session")
				}
				n := p.results()
				p.click("#call-task")
				p.wait(fmt.Sprintf(`document.querySelectorAll("#detail .history .result").length > %d`, n))
				return p.result()
			}
			p.open("tools", "tool:slow_compute")
			p.js(`document.querySelector('#detail [name="seconds"]').value = "1"; true`, nil)
			if st, text := callTask(); st != "ok" || !strings.Contains(text, "Computed the result in 1 seconds") {
				t.Errorf("slow_compute: %s %s", st, text)
			}
			p.wait(`document.querySelector("#detail .history .result .status .task-link")`)
			id := p.str(`document.querySelector("#detail .history .result .status .task-link").textContent`)
			p.click(`#wire-tabs [data-pane="tasks"]`)
			p.wait(`document.querySelector('#tasks .task.completed[data-task=` + q(id) + `]')`)
			contains(t, "the task", p.str(`document.querySelector('#tasks .task[data-task=`+q(id)+`]').innerText`), "slow_compute")

			p.open("tools", "tool:confirm_delete")
			p.typeIn(`#detail [name="filename"]`, "notes.txt")
			n := p.results()
			if protocol == "2026-07-28" {
				p.click("#call")
			} else {
				p.click("#call-task")
			}
			p.wait(`document.querySelector('#questions:not([hidden]) .question[data-kind="elicit"]')`)
			contains(t, "the task's question", p.str(`document.querySelector("#questions .ask").textContent`), "Delete notes.txt?")
			p.wait(`document.querySelector('#tasks .task.input_required')`)
			p.click(`#questions [name="confirm"]`) // a required boolean: a check box
			p.click(`#questions button[name="accept"]`)
			p.wait(fmt.Sprintf(`document.querySelectorAll("#detail .history .result").length > %d`, n))
			if st, text := p.result(); st != "ok" || !strings.Contains(text, "Deleted notes.txt") {
				t.Errorf("confirm_delete: %s %s", st, text)
			}

			// The deep link: the fragment alone changes, then a reload.
			p.do(chromedp.Navigate(in.URL + "#task=" + id))
			p.wait(`document.querySelector('#tasks .task.open[data-task=` + q(id) + `]') && !document.querySelector("#tasks-pane").hidden`)
			p.do(chromedp.Reload())
			p.wait(`document.querySelector('#tasks .task.open[data-task=` + q(id) + `]') && !document.querySelector("#tasks-pane").hidden`)
			if h := p.str(`location.hash`); !strings.HasSuffix(h, "task="+id) {
				t.Errorf("the hash after opening the task: %q", h)
			}

			// Reconnect: a new process; the lists are the same.
			p.click("#reconnect")
			p.wait(`document.querySelector("#changes") && document.querySelector("#server-name").textContent === "mcpwire everything server"`)
			contains(t, "the changes", p.str(`document.querySelector("#changes").innerText`), "Nothing changed.")
			p.wait(`document.querySelector('#list li[data-key="tool:greet"]')`)
			p.open("tools", "tool:greet")
			p.typeIn(`#detail [name="name"]`, "Bob")
			if st, text := p.call(); st != "ok" || !strings.Contains(text, "Hello, Bob!") {
				t.Errorf("a call after the reconnection: %s %s", st, text)
			}

			// The doctor of the session's server.
			p.click("#doctor")
			p.wait(`document.querySelector("#doctor-steps")`)
			contains(t, "the doctor", p.str(`document.querySelector("#doctor-steps").innerText`), "server/discover, protocol 2026-07-28 over "+over)
			if c.transport == "http" {
				// Every exchange of both sessions has a row.
				p.click(`#wire-tabs [data-pane="network"]`)
				p.wait(`document.querySelectorAll("#network .frame.net").length >= 4`)
			}
		})
	}
}

// TestViewsHTTPNetwork: the Network view of a server over Streamable
// HTTP, in both eras: every exchange, its headers with the
// Authorization masked, linked to its frames and back.
func TestViewsHTTPNetwork(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{})
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			in := inspect(t, nil, "--protocol", protocol, "--url", s.URL, "--header", "Authorization=Bearer SECRET-TOKEN", "--header", "X-Api-Key=SECRET-KEY")
			p := openPage(t, in)
			p.open("tools", "tool:echo")
			p.typeIn(`#detail [name="text"]`, "over http")
			p.call()
			p.click(`#wire-tabs [data-pane="network"]`)
			p.wait(`document.querySelectorAll("#network .frame.net").length >= 2`)
			p.js(`[...document.querySelectorAll("#network .frame.net")].filter(r => r.innerText.includes("POST")).pop().click()`, nil)
			p.wait(`document.querySelector("#network .frame-detail details")`)
			p.js(`document.querySelectorAll("#network .frame-detail details").forEach(d => d.open = true); true`, nil)
			detail := p.str(`document.querySelector("#network .frame-detail").innerText`)
			if strings.Contains(detail, "SECRET") || !strings.Contains(detail, "Authorization: ****") || !strings.Contains(detail, "X-Api-Key: ****") {
				t.Errorf("the exchange's headers: %s", detail)
			}
			if protocol == "2025-11-25" {
				contains(t, "the session", detail, "session ")
			}
			// From the exchange to its frame, and back.
			p.click(`#network .frame-detail .msg-link`)
			p.wait(`!document.querySelector("#frames-pane").hidden && document.querySelector("#frames .frame.open")`)
			p.click(`#frames .frame-detail .net-link`)
			p.wait(`!document.querySelector("#network-pane").hidden && document.querySelector("#network .frame.open")`)
			if body := p.str(`document.body.innerText`); strings.Contains(body, "SECRET") {
				t.Errorf("the page shows a secret")
			}
			// Without a catalog, no Servers tab.
			if d := p.str(`getComputedStyle(document.querySelector('#kinds [data-kind="servers"]')).display`); d != "none" {
				t.Errorf("the Servers tab shows without a catalog (display %s)", d)
			}

			// A reconnection makes a new HTTP client: its exchanges are
			// new rows, never taken for those of the first session.
			p.click("#reconnect")
			p.wait(`document.querySelector("#changes") && S.status === "connected"`)
			p.open("tools", "tool:echo")
			p.typeIn(`#detail [name="text"]`, "again")
			p.call()
			p.click(`#wire-tabs [data-pane="network"]`)
			var ids []string
			p.js(`[...document.querySelectorAll("#network .frame.net")].map(r => r.dataset.exchange)`, &ids)
			seen := map[string]bool{}
			for _, id := range ids {
				if seen[id] {
					t.Errorf("two rows of the Network view are exchange #%s: %v", id, ids)
				}
				seen[id] = true
			}
			if n := p.str(`document.querySelector('#wire-tabs [data-pane="network"] .count').textContent`); n != fmt.Sprint(len(ids)) {
				t.Errorf("the Network tab counts %s exchanges, and shows %d rows", n, len(ids))
			}
		})
	}
}

// TestCatalog: mcpwire inspect without a server lists the servers of the
// configuration file, connects to the one chosen, switches to another;
// the page cannot make it run a command, a name the file lacks, or a
// server of a file other users may write.
func TestCatalog(t *testing.T) {
	bin := everythingServer(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	cfg := filepath.Join(dir, "mcp.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {
  "everything": {"command": "`+bin+`", "args": ["-stdio"]},
  "other": {"command": "`+bin+`", "args": ["-stdio"], "env": {"TOKEN": "SECRET-ENV"}}
}}`), 0o600)
	in := inspect(t, nil, "--config", cfg)
	p := openPage(t, in)
	p.wait(`document.querySelector('#list li[data-key^="srv:everything@"]')`)
	p.click(`#list li[data-key^="srv:everything@"]`)
	p.click("#connect")
	p.wait(`document.querySelector("#server-name").textContent === "mcpwire everything server"`)
	p.click(`#kinds [data-kind="servers"]`)
	p.click(`#list li[data-key^="srv:other@"]`)
	contains(t, "the settings", p.str(`document.querySelector("#detail").innerText`), "TOKEN=****")
	p.click("#connect")
	p.wait(`S.catalog.current === "other" && S.status === "connected"`)

	origin := map[string]string{"Origin": in.Base, "Content-Type": "application/json"}
	tok := "?token=" + in.Token
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"name":"everything","command":"touch ` + marker + `"}`, http.StatusBadRequest},
		{`{"name":"touch ` + marker + `"}`, http.StatusNotFound},
		{`{"name":"nope"}`, http.StatusNotFound},
	} {
		if status, body := send(t, "POST", in.Base+"/api/connect"+tok, c.body, origin); status != c.want {
			t.Errorf("connect %s: %d %s, want %d", c.body, status, body, c.want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a command typed into a request ran")
	}
	// A file other users may write: its servers are refused.
	os.Chmod(cfg, 0o666)
	status, body := send(t, "POST", in.Base+"/api/connect"+tok, `{"name":"everything"}`, origin)
	if status != http.StatusForbidden || !strings.Contains(body, "writable by other users") {
		t.Errorf("a world-writable file: %d %s", status, body)
	}
	if strings.Contains(p.str(`document.body.innerText`), "SECRET") {
		t.Errorf("the page shows a secret")
	}
}

// TestNewEndpointsRefused: the endpoints of the new views refuse what
// the others refuse (no token, another site, not JSON) and reach
// nothing.
func TestNewEndpointsRefused(t *testing.T) {
	srv, calls := probeServer(t)
	in := inspectServer(t, srv)
	tok := "?token=" + in.Token
	origin := map[string]string{"Origin": in.Base, "Content-Type": "application/json"}
	// Every operation of the page, those of the new views and any added
	// later, and the other POST endpoints.
	paths := []string{"answer", "cancel"}
	for name := range operations {
		paths = append(paths, name)
	}
	for _, want := range []string{"reconnect", "connect", "catalog", "doctor", "checks/save", "checks/delete", "checks/run", "task/call", "task/get", "task/result", "task/cancel"} {
		if !slices.Contains(paths, want) {
			t.Errorf("no operation %q", want)
		}
	}
	for _, path := range paths {
		for _, c := range []struct {
			name string
			url  string
			h    map[string]string
			want int
		}{
			{"no token", in.Base + "/api/" + path, origin, http.StatusUnauthorized},
			{"another site", in.Base + "/api/" + path + tok, map[string]string{"Origin": "http://attacker.example", "Content-Type": "application/json"}, http.StatusForbidden},
			{"no origin", in.Base + "/api/" + path + tok, map[string]string{"Content-Type": "application/json"}, http.StatusForbidden},
			{"a form", in.Base + "/api/" + path + tok, map[string]string{"Origin": in.Base, "Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
			{"a rebound name", in.Base + "/api/" + path + tok, map[string]string{"Origin": in.Base, "Content-Type": "application/json", "Host": "attacker.example"}, http.StatusForbidden},
		} {
			if status, body := send(t, "POST", c.url, `{"name":"probe","arguments":{}}`, c.h); status != c.want {
				t.Errorf("%s, %s: %d %s, want %d", path, c.name, status, body, c.want)
			}
		}
	}
	if status, _ := send(t, "GET", in.Base+"/checks", "", nil); status != http.StatusUnauthorized {
		t.Errorf("GET /checks without token: %d", status)
	}
	if status, _ := send(t, "GET", in.Base+"/checks"+tok, "", map[string]string{"Sec-Fetch-Site": "cross-site"}); status != http.StatusForbidden {
		t.Errorf("GET /checks from another site: %d", status)
	}
	if status, _ := send(t, "GET", in.Base+"/checks"+tok, "", map[string]string{"Host": "attacker.example"}); status != http.StatusForbidden {
		t.Errorf("GET /checks with a rebound name: %d", status)
	}
	if status, body := send(t, "POST", in.Base+"/api/connect"+tok, `{"name":"x"}`, origin); status == http.StatusOK {
		t.Errorf("connect without a catalog: %d %s", status, body)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("refused requests called the tool %d times", n)
	}
}
