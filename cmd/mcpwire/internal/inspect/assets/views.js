"use strict";
// The views added to the inspector's page: Network (the HTTP exchanges),
// Tasks, the doctor, Reconnect and its diff, the servers catalog, the
// saved checks, and deep links (the URL's #fragment names the tool, frame
// or task shown; a reload keeps it). Everything the server sent is shown
// as text (el's "text"), never as HTML. app.js calls the hooks: netEvent,
// viewsFrame, frameNetLink, viewDetail, viewItems, saveCheckButton,
// saveHash, startViews.

// ---- Network: netlog's events, by exchange

const exchanges = new Map(); // id → {id, req, resp, events, end, row}
const maxExchanges = 2000, maxEventRows = 200, maxMessages = 1000;
let netDropped = 0;

function netEvent(e) {
  let x = exchanges.get(e.exchange);
  if (e.kind === "request") {
    x = {id: e.exchange, req: e, events: [], sent: e.sent || [], received: []};
    exchanges.set(e.exchange, x);
    if (exchanges.size > maxExchanges) {
      const [first] = exchanges.keys();
      const old = exchanges.get(first);
      if (old.row) old.row.remove();
      exchanges.delete(first);
      netDropped++;
    }
  }
  if (!x) return;
  if (e.kind === "response") x.resp = e;
  if (e.kind === "sse") {
    x.events.push(e);
    x.nEvents = (x.nEvents || 0) + 1;
    if (x.events.length > maxEventRows) x.events.shift(); // the page keeps the newest
  }
  if (e.kind === "end") x.end = e;
  for (const m of e.received || []) if (x.received.length < maxMessages) x.received.push(m);
  netRow(x);
  if (wantExchange !== null && String(x.id) === wantExchange) openExchange(x, true);
  $("#wire-tabs [data-pane=network] .count").textContent = String(exchanges.size);
  $("#net-note").textContent = netDropped ? `the ${netDropped} oldest exchanges were dropped (at most ${maxExchanges} are kept)` : "";
}

function netRow(x) {
  const r = x.req, s = x.resp, end = x.end;
  const status = end && end.error && !s ? "✗ " + end.error : s ? "HTTP " + s.status : "…";
  const row = el("li", {class: `frame net${(s && s.status >= 400) || (end && end.error) ? " bad" : ""}`, "data-exchange": x.id, onclick: () => openExchange(x)},
    el("span", {class: "time", text: fmtTime(r.time)}),
    el("span", {class: "method", text: r.method}),
    el("span", {class: "id", text: "#" + x.id}),
    el("span", {class: s && s.status < 400 ? "lat" : "err", text: status}),
    s && s.contentType ? el("span", {class: "dim", text: s.contentType.split(";")[0]}) : null,
    x.nEvents ? el("span", {class: "badge", text: `${x.nEvents} SSE`}) : null,
    r.lastEventId ? el("span", {class: "badge", text: "resumed from " + r.lastEventId}) : null,
    end ? el("span", {class: "lat", text: fmtMs(end.ms)}) : null,
    el("span", {class: "preview", text: r.url}));
  if (x.row) {
    const open = x.row.classList.contains("open");
    x.row.replaceWith(row);
    if (open) row.classList.add("open");
  } else $("#network").append(row);
  x.row = row;
}

function headerList(e) {
  return el("pre", {class: "text headers", text: (e.headers || []).map(h => h.name + ": " + h.value).join("\n") + (e.headersDropped ? `\n(${e.headersDropped} more not kept)` : "")});
}

function openExchange(x, keep) {
  const was = x.row.classList.contains("open");
  if (was && keep) return;
  wantExchange = null;
  for (const d of document.querySelectorAll("#network .frame-detail")) d.remove();
  for (const r of document.querySelectorAll("#network .open")) r.classList.remove("open");
  if (was) return;
  x.row.classList.add("open");
  const r = x.req, s = x.resp || {};
  const msgs = (list, from) => list.map(m => el("a", {href: "#", class: "msg-link", text: (m.method || "response") + (m.id ? " #" + m.id : ""), onclick: ev => {
    ev.preventDefault();
    ev.stopPropagation();
    const f = frameList.find(f => f.rec.from === from && f.id !== undefined && JSON.stringify(f.id) === m.id && (!m.method || f.method === m.method));
    if (f) { showPane("frames"); f.row.hidden = false; openFrame(f); }
  }}));
  const events = x.events.map(e => el("li", {class: "sse"},
    el("span", {class: "time", text: fmtTime(e.time)}), e.eventId ? el("span", {class: "id", text: "id " + e.eventId}) : null,
    e.event ? el("span", {class: "badge", text: e.event}) : null, el("span", {class: "mono", text: e.data + (e.clipped ? " …(clipped)" : "")})));
  const d = el("li", {class: "frame-detail"},
    el("div", {class: "dim", text: [r.method + " " + r.url, s.status ? "HTTP " + s.status : null, r.session || s.session ? "session " + (r.session || s.session) : null,
      r.lastEventId ? "Last-Event-ID " + r.lastEventId : null, x.end ? fmtMs(x.end.ms) + " · " + fmtBytes(x.end.bytes || 0) : null].filter(Boolean).join(" · ")}),
    x.sent.length ? el("div", null, "Sent: ", msgs(x.sent, "client")) : null,
    x.received.length ? el("div", null, "Received: ", msgs(x.received, "server")) : null,
    details("Request headers", headerList(r)),
    s.headers ? details("Response headers", headerList(s)) : null,
    x.nEvents ? details(`SSE events (${x.nEvents}${x.nEvents > x.events.length ? `, the newest ${x.events.length} kept` : ""}${x.end && x.end.dropped ? `; ${x.end.dropped} more not reported` : ""})`, el("ol", {class: "events"}, events)) : null,
    x.end && x.end.error ? el("div", {class: "err", text: x.end.error}) : null);
  x.row.after(d);
  saveHash("exchange=" + x.id);
}

// frameNetLink links a frame to the HTTP exchange that carried it.
function frameNetLink(f) {
  if (f.id === undefined || f.id === null) return null;
  const id = JSON.stringify(f.id);
  for (const x of [...exchanges.values()].reverse()) {
    const list = f.rec.from === "client" ? x.sent : x.received;
    if (list.some(m => m.id === id && (!m.method || m.method === f.method))) {
      return el("a", {href: "#", class: "net-link", text: `HTTP exchange #${x.id}`, onclick: e => { e.preventDefault(); e.stopPropagation(); showPane("network"); openExchange(x, true); }});
    }
  }
  return null;
}

// ---- Tasks: from the frames (both eras), and the calls that became tasks

const tasks = new Map(); // taskId → {id, status, message, tool, updated, result, error, last, n, open, row}
const maxTasks = 500; // the oldest ended tasks go first beyond
let tasksDropped = 0;

function taskOf(v) {
  if (!v || typeof v !== "object") return null;
  if (typeof v.taskId === "string" && typeof v.status === "string") return v;
  if (v.task && typeof v.task.taskId === "string") return v.task;
  return null;
}

function viewsFrame(f) {
  const m = f.rec.message;
  if (!m || typeof m !== "object") return;
  const t = taskOf(f.kind === "notification" ? m.params : m.result);
  if (!t) return;
  let x = tasks.get(t.taskId);
  if (!x) {
    x = {id: t.taskId, n: 0};
    tasks.set(t.taskId, x);
    trimTasks();
  }
  x.last = f.jid;
  x.n++;
  x.status = String(t.status);
  x.message = t.statusMessage || "";
  x.updated = f.rec.time;
  if (t.inputRequests && typeof t.inputRequests === "object") x.input = Object.keys(t.inputRequests).slice(0, 20);
  else if (t.status !== "input_required") x.input = null;
  if ("result" in t) x.result = t.result;
  if ("error" in t) x.error = t.error;
  if (f.partner && f.partner.method === "tools/call" && !x.tool) {
    x.tool = String((f.partner.rec.message.params || {}).name);
    const c = [...calls.values()].reverse().find(c => c.key === "tool:" + x.tool && !c.taskId);
    if (c) c.task(x.id);
  }
  taskRow(x);
  if (wantTask === x.id) openTask(x);
}

// trimTasks keeps at most maxTasks tasks: the oldest ended ones go first.
function trimTasks() {
  while (tasks.size > maxTasks) {
    const drop = [...tasks.values()].find(x => !live(x)) || tasks.values().next().value;
    if (drop.row) drop.row.remove();
    tasks.delete(drop.id);
    tasksDropped++;
  }
  $("#tasks-note").textContent = tasksDropped ? `the ${tasksDropped} oldest tasks were dropped (at most ${maxTasks} are kept)` : "";
}

function live(x) {
  return !["completed", "failed", "cancelled"].includes(x.status);
}

function taskRow(x) {
  const legacy = S.server && S.server.era === "stateful";
  const on = live(x);
  const row = el("li", {class: "task status " + x.status + (x.open ? " open" : ""), "data-task": x.id},
    el("span", {class: "badge status-" + x.status, text: x.status}),
    el("a", {href: "#", class: "mono task-id", text: " " + x.id, onclick: e => { e.preventDefault(); x.open ? closeTask(x) : openTask(x); }}),
    x.tool ? el("span", {class: "dim", text: " · " + x.tool}) : null,
    el("span", {class: "dim", text: " · " + fmtTime(x.updated)}),
    x.message ? el("div", {class: "dim", text: x.message}) : null,
    x.input ? el("div", {class: "note", text: "input required: " + x.input.join(", ") + " (answer in the question shown)"}) : null,
    el("div", {class: "buttons"},
      on ? el("button", {class: "small", name: "cancel-task", text: "Cancel", onclick: () => cancelTask(x, legacy)}) : null,
      legacy ? el("button", {class: "small", text: on ? "Wait for the result" : "Result", onclick: async () => showTaskOut(x, await api("task/result", {taskId: x.id}))}) : null,
      el("button", {class: "small", text: `Frames (${x.n})`, onclick: () => { showPane("frames"); $("#frame-filter").value = ""; filterFrames(); const f = frameList.find(f => f.jid === x.last); if (f && f.row) openFrame(f); }})),
    x.out || null,
    x.result !== undefined ? details("Result", jsonView(x.result)) : null,
    x.error ? errorBox(x.error) : null);
  if (x.open) for (const d of row.querySelectorAll("details")) d.open = true;
  if (x.row) x.row.replaceWith(row);
  else $("#tasks").prepend(row);
  x.row = row;
  $("#wire-tabs [data-pane=tasks] .count").textContent = String(tasks.size);
}

// openTask shows a task: the Tasks pane, the task open and in view, its
// deep link in the URL.
function openTask(x) {
  wantTask = null;
  for (const y of tasks.values()) if (y.open && y !== x) { y.open = false; taskRow(y); }
  x.open = true;
  taskRow(x);
  showPane("tasks");
  x.row.scrollIntoView({block: "nearest"});
  saveHash("task=" + encodeURIComponent(x.id));
}

function closeTask(x) {
  x.open = false;
  taskRow(x);
  saveHash();
}

// taskLink links to a task of the Tasks pane.
function taskLink(id) {
  return el("a", {href: "#", class: "task-link mono", text: id, onclick: e => {
    e.preventDefault();
    e.stopPropagation();
    const x = tasks.get(id);
    if (x) openTask(x);
  }});
}

function showTaskOut(x, out) {
  x.out = el("div", {class: "task-out"}, out.error ? errorBox(out.error) : jsonView(out.result));
  taskRow(x);
}

async function cancelTask(x, legacy) {
  if (legacy) return showTaskOut(x, await api("task/cancel", {taskId: x.id}));
  // The 2026-07-28 era: the call follows its task; cancelling the call
  // cancels the task (tasks/cancel).
  for (const [id, c] of calls) if (c.taskId === x.id) return api("cancel", {id});
}

// callAsTask calls a tool as a task (2025-11-25: the client asks for
// one), then waits for its result (tasks/result); the task shows in the
// Tasks pane, live from the server's notifications.
async function callAsTask(t, args) {
  const id = newID();
  const card = resultCard("tool:" + t.name, "tools/call as a task", t.name, id, args);
  const out = await api("task/call", {name: t.name, arguments: args});
  if (out.error || !out.result) return card.done(out, r => toolResult(r, t));
  card.task(out.result.taskId);
  const res = await api("task/result", {taskId: out.result.taskId});
  card.done(res, r => toolResult(r, t));
  const x = tasks.get(out.result.taskId);
  if (x && res.result !== undefined) { x.result = res.result; taskRow(x); }
}

// ---- The doctor, Reconnect and its diff, the catalog, the checks: shown
// in the middle as views of their own (view.key "view:NAME").

function viewItems(kind) {
  if (kind === "servers") return ((S.catalog && S.catalog.servers) || []).map(s => ({key: "srv:" + s.name + "@" + s.file, name: s.name + (s.shadowed ? " (shadowed)" : ""), sub: s.target || s.error, desc: s.host + (s.project ? " · project" : "") + (s.refused ? " · refused" : ""), kind: "server", obj: s}));
  if (kind === "checks") return (S.checks || []).map(c => ({key: "check:" + c.name, name: c.name, sub: c.method + " " + (c.params.name || c.params.uri || ""), desc: c.last ? (c.last.pass ? "✓ passed" : "✗ " + c.last.why) : "", kind: "check", obj: c}));
  return [];
}

function viewDetail(i) {
  if (i.kind === "server") return catalogDetail(i.obj);
  if (i.kind === "check") return checkDetail(i.obj);
  if (view.key === "view:doctor") return doctorView();
  if (view.key === "view:changes") return changesView();
  return null;
}

function catalogDetail(s) {
  const out = el("div");
  // A project's server starts only once the person trusts its entry.
  const ask = s.project && !s.trusted && s.trust;
  const trust = ask ? el("input", {type: "checkbox", id: "trust", onchange: () => { $("#connect").disabled = !trust.checked; }}) : null;
  const sent = () => (trust && trust.checked ? {name: s.name, trust: s.trust} : {name: s.name});
  return [head(s.name, "", s.target || s.error, [el("span", {class: "badge", text: s.kind || "invalid"}), s.project ? el("span", {class: "badge warn", text: "project file"}) : null].filter(Boolean)),
    el("div", {class: "card"},
      el("p", {class: "dim mono", text: s.file + " (" + s.host + ")"}),
      (s.settings || []).length ? el("pre", {class: "text", text: s.settings.join("\n")}) : null,
      ask ? el("div", {class: "card next"},
        el("p", {text: "This server comes from a project's file, which a repository you cloned may have written: it may name any command. mcpwire inspect starts it only if you trust it as shown:"}),
        el("pre", {class: "text", text: s.target || ""}),
        el("label", {class: "check"}, trust, " I trust this entry (until it changes)")) : null,
      s.refused ? el("p", {class: "err", text: "mcpwire inspect will not start it: " + s.refused}) : null,
      s.shadowed ? el("p", {class: "dim", text: "An earlier file has a server of this name: connecting starts that one."}) : null,
      el("div", {class: "buttons"},
        el("button", {class: "primary", id: "connect", text: S.catalog && S.catalog.current === s.name && S.status === "connected" ? "Connected" : "Connect", disabled: !!s.error || !!s.refused || !!ask, onclick: async () => {
          fill(out, el("p", {class: "dim", text: "connecting…"}));
          const r = await api("connect", sent());
          fill(out, r.error ? [errorBox(r.error), el("button", {class: "small", text: "Run the doctor", onclick: () => runDoctor(sent())}) ] : el("p", {text: "Connected."}));
        }}),
        el("button", {text: "Doctor", disabled: !!s.error || !!s.refused, onclick: () => runDoctor(sent())})),
      out)];
}

let doctorReport = null;

async function runDoctor(args) {
  doctorReport = {running: true};
  view.key = "view:doctor";
  renderDetail(true);
  doctorReport = await api("doctor", args);
  renderDetail(true);
}

function doctorView() {
  const r = doctorReport || {};
  if (r.running) return [head("Connection doctor"), el("p", {class: "dim", text: "trying each step…"})];
  if (r.error) return [head("Connection doctor"), errorBox(r.error)];
  const rep = r.result || {steps: []};
  return [head("Connection doctor", rep.server, rep.ok ? "The server answers: " + rep.speaks.join("; ") : "No connection could be made."),
    rep.next ? el("div", {class: "card next", id: "doctor-next"}, el("strong", {text: "Next step: "}), el("span", {text: rep.next})) : null,
    el("ol", {class: "checklist", id: "doctor-steps"}, rep.steps.map(s => el("li", {class: "step " + s.status, "data-step": s.id},
      el("span", {class: "badge status-" + s.status, text: s.status}), el("strong", {text: " " + s.title}),
      s.status !== "skip" ? el("span", {class: "dim", text: " " + fmtMs(s.ms)}) : null,
      s.detail ? el("div", {class: "mono", text: s.detail}) : null,
      (s.http || []).length ? el("pre", {class: "text", text: s.http.map(x => `${x.method} ${x.url} → ${x.error || "HTTP " + x.status + " " + (x.contentType || "")}` + (x.headers ? "\n  " + x.headers.join("\n  ") : "")).join("\n")}) : null,
      (s.stderr || []).length ? el("pre", {class: "text", text: s.stderr.join("\n")}) : null)))];
}

function changesView() {
  const c = S.changes;
  if (!c) return [head("Reconnect"), el("p", {class: "dim", text: "Reconnecting…"})];
  return [head("What changed at the reconnection", "", fmtTime(c.time)),
    el("ul", {class: "changes", id: "changes"}, c.changes.length ? c.changes.map(x => el("li", {class: "change " + x.op},
      el("span", {class: "badge", text: x.op}), " ", el("strong", {text: x.what}), x.name ? el("span", {class: "mono", text: " " + x.name}) : null,
      x.fields ? el("span", {class: "dim", text: ": " + x.fields.join(", ")}) : null,
      x.before !== undefined || x.after !== undefined ? el("span", {class: "dim", text: ` ${x.before || "(none)"} → ${x.after || "(none)"}`}) : null)) : el("li", {class: "empty", text: "Nothing changed."}),
      c.more ? el("li", {class: "dim", text: `and ${c.more} more changes, not kept`}) : null)];
}

function checkDetail(c) {
  return [head(c.name, "", c.method, []),
    el("div", {class: "card"},
      details("Params", jsonView(c.params)),
      c.expect.result ? details("Expected result", jsonView(c.expect.result)) : null,
      c.expect.ignore ? el("p", {class: "dim", text: "Ignored: " + c.expect.ignore.join(", ")}) : null,
      c.expect.schema ? details("Schema the result must meet", jsonView(c.expect.schema)) : null,
      c.last ? el("p", {class: c.last.pass ? "ok" : "err", text: c.last.pass ? "✓ passed" : "✗ " + c.last.why}) : null,
      el("div", {class: "buttons"},
        el("button", {class: "primary", id: "run-checks", text: "Run all checks", onclick: () => api("checks/run")}),
        el("a", {class: "button", href: withToken("/checks"), download: "checks.json", text: "Download"}),
        el("button", {text: "Delete", onclick: () => { view.key = null; api("checks/delete", {name: c.name}); }})))];
}

// saveCheckButton offers to save a call and its result as a check.
function saveCheckButton(method, params, out, tool) {
  if (out.error || out.result === undefined) return null;
  const box = el("div", {class: "save-check", hidden: true});
  const name = el("input", {name: "check-name", placeholder: "Name of the check", value: `${params.name || params.uri} ${new Date().toISOString().slice(11, 19)}`});
  const ignore = el("input", {name: "check-ignore", placeholder: "Paths to ignore, such as content[*].text"});
  const mode = el("select", {name: "check-mode"}, el("option", {value: "exact", text: "the exact result"}),
    tool && tool.outputSchema ? el("option", {value: "schema", text: "the tool's output schema"}) : null);
  const said = el("span", {class: "dim"});
  box.append(name, mode, ignore, el("button", {class: "small", name: "save-check", text: "Save", onclick: async () => {
    const expect = mode.value === "schema" ? {schema: tool.outputSchema} : {result: out.result};
    const paths = ignore.value.split(",").map(s => s.trim()).filter(Boolean);
    if (paths.length && mode.value === "exact") expect.ignore = paths;
    const r = await api("checks/save", {name: name.value, method, params, expect});
    said.textContent = r.error ? r.error.message : "Saved.";
  }}), said);
  return el("div", null, el("button", {class: "small", text: "Save as a check", onclick: () => { box.hidden = !box.hidden; }}), box);
}

// ---- Deep links and the page's state across a reload
//
// The URL's #fragment names what the page shows: item=KEY (a tool, a
// resource, a prompt, a server of the catalog, a check), and frame=ID,
// task=ID or exchange=ID (ID: the frame's entry in the journal, the
// task's id, the exchange's id). A link works when the page loads, and
// when only the fragment changes; what it names may come later (the
// journal is read after the page shows): it opens when it comes.

function saveHash(extra) {
  const parts = [];
  if (view.key) parts.push("item=" + encodeURIComponent(view.key));
  if (extra) parts.push(extra);
  history.replaceState(null, "", "#" + parts.join("&"));
  try {
    sessionStorage.setItem("mcpwire:ui", JSON.stringify({kind: view.kind, pane: currentPane, filter: $("#frame-filter").value, dir: $("#frame-dir").value}));
  } catch { /* storage refused */ }
}

let currentPane = "frames";
let wantFrame = null, wantTask = null, wantExchange = null;

function restore() {
  try {
    const ui = JSON.parse(sessionStorage.getItem("mcpwire:ui") || "{}");
    if (ui.kind && kinds[ui.kind]) view.kind = ui.kind;
    if (ui.pane) showPane(ui.pane);
    if (ui.filter) $("#frame-filter").value = ui.filter;
    if (ui.dir) $("#frame-dir").value = ui.dir;
  } catch { /* nothing kept */ }
  applyHash();
}

// applyHash shows what the URL's fragment names.
function applyHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  const item = h.get("item");
  if (item) {
    view.key = item;
    view.kind = {tool: "tools", res: "resources", tpl: "resources", prompt: "prompts", srv: "servers", check: "checks"}[item.split(":")[0]] || view.kind;
  }
  wantFrame = h.get("frame");
  wantTask = h.get("task");
  wantExchange = h.get("exchange");
  if (wantFrame !== null) { showPane("frames"); deepFrame(); }
  if (wantTask !== null) { showPane("tasks"); if (tasks.has(wantTask)) openTask(tasks.get(wantTask)); }
  if (wantExchange !== null) { showPane("network"); const x = exchanges.get(+wantExchange); if (x) openExchange(x, true); }
}

// deepFrame opens the frame the link names, once it has come.
function deepFrame() {
  if (wantFrame === null) return;
  const f = frameList.find(f => String(f.jid) === wantFrame);
  if (!f) return;
  wantFrame = null;
  f.row.hidden = false;
  openFrame(f);
}

function startViews() {
  $("#reconnect").addEventListener("click", async () => {
    view.key = "view:changes";
    S.changes = null;
    renderDetail(true);
    const r = await api("reconnect");
    if (r.error) addMessage("note", new Date().toISOString(), "mcpwire", el("span", {class: "err", text: "reconnect: " + r.error.message}));
    renderDetail(true);
  });
  $("#doctor").addEventListener("click", () => runDoctor({}));
  window.addEventListener("hashchange", () => {
    applyHash();
    renderSide();
    renderDetail();
  });
  for (const id of ["#frame-filter", "#frame-dir"]) $(id).addEventListener("input", () => saveHash());
}
