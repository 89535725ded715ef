"use strict";
// The inspector's page. It starts from the state inline in the page (the
// server and its lists), then reads the event stream of the inspector:
// "state" (the state again, whenever it changes), "frame" (a frame on the
// wire, as a record of the tap recording format), "log", "stderr",
// "note", "progress", "updated" (a subscribed resource), "question" and
// "answered" (the server's questions to the person), "lost" (entries
// dropped before this page read them).

let S = boot.state;
const view = {kind: "tools", key: null, filter: ""};
const histories = new Map(); // the results of each item, by its key
const calls = new Map(); // the running requests of this page, by id
const ERA_HINT = "The stateless era sends log messages only for requests that ask for them: choose a level.";

// ---- The server, in the header

// transportNames are the transports as people know them.
const transportNames = {command: "stdio", stdio: "stdio", streamable: "Streamable HTTP", sse: "HTTP+SSE", memory: "in memory"};

function renderHeader() {
  const s = S.server || {};
  const info = s.info || {};
  $("#status").className = "dot " + S.status;
  $("#status").title = S.status;
  $("#server-name").textContent = info.title || info.name || (S.status === "catalog" ? "Choose a server" : "(connecting)");
  $("#reconnect").disabled = S.status === "catalog" || S.status === "connecting" || !!S.connecting;
  $("#connecting").textContent = S.connecting ? `connecting to ${S.connecting}…` : "";
  $('#kinds [data-kind="servers"]').hidden = !S.catalog;
  $("#server-version").textContent = info.version || "";
  $("#server-protocol").textContent = s.protocol || "";
  $("#server-era").textContent = s.era || "";
  $("#server-transport").textContent = transportNames[s.transport] || s.transport || "";
  $("#server-target").textContent = s.target || "";
  $("#server-target").title = s.target || "";
  const ended = $("#ended");
  ended.hidden = S.status !== "ended";
  ended.textContent = S.status === "ended" ? `The session has ended: ${S.ended || "closed"}. What happened stays here to look at.` : "";
  $("#log-hint").textContent = s.era === "stateless" && !S.logLevel ? ERA_HINT : "";
  $("#log-level").value = S.logLevel || "";
}

// ---- The lists, at the side

const kinds = {
  tools: {label: "Tools", cap: "tools"},
  resources: {label: "Resources", cap: "resources"},
  prompts: {label: "Prompts", cap: "prompts"},
  server: {label: "Server"},
  checks: {label: "Checks"},
  servers: {label: "Servers"},
};

// items returns the items of a kind: {key, name, sub, desc, kind, obj}.
function items(kind) {
  switch (kind) {
    case "tools": return (S.tools || []).map(t => ({key: "tool:" + t.name, name: t.title || t.annotations?.title || t.name, sub: t.title ? t.name : "", desc: t.description, kind: "tool", obj: t}));
    case "resources": return [
      ...(S.resources || []).map(r => ({key: "res:" + r.uri, name: r.title || r.name || r.uri, sub: r.uri, desc: r.description, kind: "resource", obj: r})),
      ...(S.templates || []).map(t => ({key: "tpl:" + t.uriTemplate, name: t.title || t.name || t.uriTemplate, sub: t.uriTemplate, desc: t.description, kind: "template", obj: t})),
    ];
    case "prompts": return (S.prompts || []).map(p => ({key: "prompt:" + p.name, name: p.title || p.name, sub: p.title ? p.name : "", desc: p.description, kind: "prompt", obj: p}));
  }
  return viewItems(kind);
}

let shownSide = ""; // what the side shows, to redraw it only when it changes

function renderSide() {
  const caps = (S.server && S.server.capabilities) || {};
  const sig = JSON.stringify([view.kind, view.key, view.filter, caps, S.tools, S.resources, S.templates, S.prompts, S.listErrors, S.catalog, S.checks]);
  if (sig === shownSide) return;
  shownSide = sig;
  for (const b of document.querySelectorAll("#kinds button")) {
    const k = b.dataset.kind;
    b.classList.toggle("on", k === view.kind);
    const c = $(".count", b);
    if (c) c.textContent = kinds[k].cap && !caps[kinds[k].cap] ? "–" : String(items(k).length);
    b.title = kinds[k].cap && !caps[kinds[k].cap] ? "The server does not offer " + k : "";
  }
  const list = $("#list");
  $("#filter").hidden = view.kind === "server";
  if (view.kind === "server") return fill(list);
  const f = view.filter.toLowerCase();
  const all = items(view.kind);
  const shown = all.filter(i => !f || (i.name + " " + i.sub + " " + (i.desc || "")).toLowerCase().includes(f));
  const err = S.listErrors && (S.listErrors[view.kind] || (view.kind === "resources" && S.listErrors.templates));
  let lastKind = null;
  fill(list,
    err ? el("li", {class: "list-error", text: err}) : null,
    shown.map(i => {
      const head = i.kind === "template" && lastKind !== "template" ? el("li", {class: "sep", text: "Templates"}) : null;
      lastKind = i.kind;
      return [head, el("li", {class: i.key === view.key ? "on" : "", "data-key": i.key, onclick: () => select(i.key)},
        el("div", {class: "item-name", text: i.name}),
        i.sub ? el("div", {class: "item-sub mono", text: i.sub}) : null,
        i.desc ? el("div", {class: "item-desc", text: i.desc.split("\n")[0]}) : null)];
    }),
    all.length === 0 && !err ? el("li", {class: "empty", text: !kinds[view.kind].cap || caps[kinds[view.kind].cap] ? `No ${view.kind}.` : `The server does not offer ${view.kind}.`}) : null);
}

function select(key) {
  view.key = key;
  renderSide();
  renderDetail();
  saveHash();
}

function find(key) {
  for (const k of ["tools", "resources", "prompts", "servers", "checks"]) {
    const i = items(k).find(x => x.key === key);
    if (i) return i;
  }
  if (key && key.startsWith("res:")) return {key, kind: "resource", name: key.slice(4), obj: {uri: key.slice(4)}};
  return null;
}

// ---- The item open in the middle

let shownDetail = ""; // the JSON of the item shown, to redraw it only when it changes

function renderDetail(force) {
  const i = view.key && find(view.key);
  const sig = i ? JSON.stringify([i.obj, S.catalog && S.catalog.current, S.status]) : view.key ? "gone:" + view.key : "server:" + JSON.stringify(S.server);
  if (!force && sig === shownDetail) return;
  shownDetail = sig;
  const d = $("#detail");
  if (view.key && view.key.startsWith("view:")) return fill(d, viewDetail({}));
  if (!i) {
    return fill(d, view.key ? el("p", {class: "empty", text: "The server no longer offers this item."}) : null, serverOverview());
  }
  switch (i.kind) {
    case "tool": return fill(d, toolDetail(i.obj));
    case "resource": return fill(d, resourceDetail(i.obj));
    case "template": return fill(d, templateDetail(i.obj));
    case "prompt": return fill(d, promptDetail(i.obj));
    case "server": case "check": return fill(d, viewDetail(i));
  }
}

function head(title, name, desc, badges) {
  return el("div", {class: "head"},
    el("h2", null, title, name && name !== title ? el("span", {class: "mono dim", text: " " + name}) : null),
    badges && badges.length ? el("div", {class: "badges"}, badges) : null,
    desc ? el("p", {class: "desc", text: desc}) : null);
}

function details(summary, ...body) {
  return el("details", null, el("summary", {text: summary}), body);
}

// history returns the element that keeps the results of an item.
function historyOf(key) {
  if (!histories.has(key)) histories.set(key, el("div", {class: "history"}));
  return histories.get(key);
}

function toolDetail(t) {
  const key = "tool:" + t.name;
  const a = t.annotations || {};
  const badges = [
    a.readOnlyHint ? el("span", {class: "badge", text: "read-only"}) : null,
    a.destructiveHint && !a.readOnlyHint ? el("span", {class: "badge warn", text: "destructive"}) : null,
    a.idempotentHint ? el("span", {class: "badge", text: "idempotent"}) : null,
    a.openWorldHint ? el("span", {class: "badge", text: "open world"}) : null,
    t.execution && t.execution.taskSupport && t.execution.taskSupport !== "forbidden" ? el("span", {class: "badge", text: "task: " + t.execution.taskSupport}) : null,
  ].filter(Boolean);
  const ed = argsEditor(t.inputSchema || {type: "object"});
  const call = () => {
    const args = ed.value();
    if (args !== undefined) callTool(t, args);
  };
  // 2025-11-25: the client may ask for a task (the server decides in
  // 2026-07-28); a tool that requires one is called as a task only.
  const ts = (t.execution && t.execution.taskSupport) || "forbidden";
  const asTask = S.server.era === "stateful" && ts !== "forbidden" && !!(((S.server.capabilities.tasks || {}).requests || {}).tools || {}).call;
  const callTask = () => {
    const args = ed.value();
    if (args !== undefined) callAsTask(t, args);
  };
  const box = el("div", {class: "card run", onkeydown: e => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) call(); }},
    ed.el,
    el("div", {class: "buttons"}, ts === "required" && asTask ? null : el("button", {class: "primary", id: "call", text: "Call", title: "Call the tool (Ctrl+Enter)", onclick: call}),
      asTask ? el("button", {class: ts === "required" ? "primary" : "", id: "call-task", text: "Call as task", title: "Ask the server to run the call as a task (tools/call with task), and follow it in Tasks", onclick: callTask}) : null,
      ed.toggle),
    details("Input schema", jsonView(t.inputSchema || {})),
    t.outputSchema ? details("Output schema", jsonView(t.outputSchema)) : null);
  return [head(t.title || a.title || t.name, t.name, t.description, badges), box, historyOf(key)];
}

async function callTool(t, args) {
  const id = newID();
  const card = resultCard("tool:" + t.name, "tools/call", t.name, id, args);
  const out = await api("call", {id, name: t.name, arguments: args});
  card.done(out, r => toolResult(r, t));
  const save = saveCheckButton("tools/call", {name: t.name, arguments: args}, out, t);
  if (save) $(".body", card.el).append(save);
  appsAfterCall(t, args, out, card); // a tool with an App shows it (apps.js)
}

// resultCard adds the card of a request to the history of key: it shows
// its progress while it runs, then its outcome.
function resultCard(key, method, name, id, args) {
  const status = el("span", {class: "status running", text: "running…"});
  const cancel = id ? el("button", {class: "small", text: "Cancel", onclick: () => c.taskId && S.server.era === "stateful" ? api("task/cancel", {taskId: c.taskId}) : api("cancel", {id})}) : null;
  const prog = el("div", {class: "progress"});
  const body = el("div", {class: "body"});
  const card = el("div", {class: "card result", "data-call": id || ""},
    el("div", {class: "result-head"},
      el("span", {class: "mono", text: method}), el("strong", {text: " " + name}),
      el("span", {class: "dim", text: " " + fmtTime(new Date().toISOString())}), status, cancel),
    args && Object.keys(args).length ? details("Arguments", jsonView(args)) : null,
    prog, body);
  historyOf(key).prepend(card);
  const c = {
    key, el: card,
    task(taskID) {
      c.taskId = taskID;
      fill(status, "running as task ", taskLink(taskID), "…");
    },
    node: card,
    progress(p) {
      let bar = $("progress", prog);
      if (!bar) {
        bar = el("progress");
        prog.append(bar, el("span", {class: "dim"}));
      }
      if (p.total) {
        bar.max = p.total;
        bar.value = p.progress;
      } else bar.removeAttribute("value");
      bar.dataset.progress = p.progress;
      prog.lastChild.textContent = ` ${p.progress}${p.total ? " / " + p.total : ""}${p.message ? " · " + p.message : ""}`;
    },
    done(out, render) {
      // The answer comes with the API call, the progress on the event
      // stream: a last notification may come after the answer it preceded.
      setTimeout(() => calls.delete(id), 10000);
      if (cancel) cancel.remove();
      const bad = out.error || (out.result && out.result.isError);
      status.className = "status " + (bad ? "bad" : "ok");
      status.textContent = (bad ? "✗ " : "✓ ") + fmtMs(out.ms);
      if (c.taskId) status.append(" · task ", taskLink(c.taskId));
      fill(body, out.error ? errorBox(out.error) : null, out.result !== undefined ? render(out.result) : null);
    },
  };
  if (id) calls.set(id, c);
  return c;
}

function resourceDetail(r) {
  const key = "res:" + r.uri;
  const caps = S.server.capabilities.resources || {};
  const subscribed = (S.subscriptions || []).includes(r.uri);
  return [
    head(r.title || r.name || r.uri, r.uri, r.description,
      [r.mimeType ? el("span", {class: "badge", text: r.mimeType}) : null, r.size != null ? el("span", {class: "badge", text: fmtBytes(r.size)}) : null].filter(Boolean)),
    el("div", {class: "card run"}, el("div", {class: "buttons"},
      el("button", {class: "primary", id: "read", text: "Read", onclick: () => readResource(r.uri, key)}),
      caps.subscribe ? el("label", {class: "check"}, el("input", {type: "checkbox", id: "subscribe", checked: subscribed, onchange: async e => {
        const out = await api("subscribe", {uri: r.uri, subscribe: e.target.checked});
        if (out.error) {
          e.target.checked = !e.target.checked;
          historyOf(key).prepend(el("div", {class: "card"}, errorBox(out.error)));
        }
      }}), " Subscribe to updates") : null)),
    historyOf(key),
  ];
}

async function readResource(uri, key) {
  const id = newID();
  const card = resultCard(key, "resources/read", uri, id);
  card.done(await api("read", {id, uri}), readResult);
}

// openResource shows a resource (a link in a result) and reads it.
function openResource(uri) {
  view.kind = "resources";
  select("res:" + uri);
  readResource(uri, "res:" + uri);
}

// templateVars lists the variables of an RFC 6570 URI template.
function templateVars(t) {
  const out = [];
  for (const m of t.matchAll(/\{([+#./;?&]?)([^}]*)\}/g)) {
    for (const v of m[2].split(",")) {
      const name = v.replace(/\*$/, "").replace(/:\d+$/, "");
      if (name && !out.includes(name)) out.push(name);
    }
  }
  return out;
}

// expandTemplate expands an RFC 6570 URI template (levels 1 to 3, and the
// prefix modifier) with string values.
function expandTemplate(t, vals) {
  const ops = {"": [",", ""], "+": [",", ""], "#": [",", "#"], ".": [".", "."], "/": ["/", "/"], ";": [";", ";"], "?": ["&", "?"], "&": ["&", "&"]};
  return t.replace(/\{([+#./;?&]?)([^}]*)\}/g, (_, op, list) => {
    const [sep, first] = ops[op];
    const named = op === ";" || op === "?" || op === "&";
    const enc = op === "+" || op === "#" ? encodeURI : encodeURIComponent;
    const parts = [];
    for (const spec of list.split(",")) {
      const m = spec.match(/^([^:*]+)(?::(\d+))?\*?$/);
      if (!m || vals[m[1]] == null || vals[m[1]] === "") continue;
      let v = String(vals[m[1]]);
      if (m[2]) v = v.slice(0, +m[2]);
      parts.push(named ? `${m[1]}=${enc(v)}` : enc(v));
    }
    return parts.length ? first + parts.join(sep) : "";
  });
}

// argInputs are the inputs of a template's variables or a prompt's
// arguments, with the server's completions where it offers them.
function argInputs(names, ref, onInput) {
  const canComplete = !!S.server.capabilities.completions;
  const inputs = {};
  const rows = names.map(a => {
    const list = el("datalist", {id: "dl-" + newID()});
    const input = el("input", {name: a.name, list: list.id, autocomplete: "off"});
    inputs[a.name] = input;
    let timer = 0;
    input.addEventListener("input", () => {
      onInput();
      if (!canComplete) return;
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const context = {};
        for (const [k, i] of Object.entries(inputs)) if (k !== a.name && i.value) context[k] = i.value;
        const out = await api("complete", {ref, argument: {name: a.name, value: input.value}, context});
        const vals = (out.result && out.result.completion && out.result.completion.values) || [];
        fill(list, vals.slice(0, 100).map(v => el("option", {value: v})));
      }, 150);
    });
    return el("div", {class: "field"},
      el("label", null, el("span", {class: "name", text: a.title || a.name}), a.required ? el("span", {class: "req", text: "*"}) : null),
      input, list, a.description ? el("div", {class: "desc", text: a.description}) : null);
  });
  const values = () => {
    const v = {};
    for (const [k, i] of Object.entries(inputs)) if (i.value !== "") v[k] = i.value;
    return v;
  };
  return {el: el("div", {class: "form"}, rows), values};
}

function templateDetail(t) {
  const key = "tpl:" + t.uriTemplate;
  const preview = el("code", {class: "preview"});
  const args = argInputs(templateVars(t.uriTemplate).map(name => ({name, required: true})), {type: "ref/resource", uri: t.uriTemplate}, () => {
    preview.textContent = expandTemplate(t.uriTemplate, args.values());
  });
  preview.textContent = expandTemplate(t.uriTemplate, {});
  return [
    head(t.title || t.name || t.uriTemplate, t.uriTemplate, t.description, t.mimeType ? [el("span", {class: "badge", text: t.mimeType})] : []),
    el("div", {class: "card run"}, args.el, el("div", {class: "preview-row"}, "URI ", preview),
      el("div", {class: "buttons"}, el("button", {class: "primary", id: "read", text: "Read", onclick: () => readResource(expandTemplate(t.uriTemplate, args.values()), key)}))),
    historyOf(key),
  ];
}

function promptDetail(p) {
  const key = "prompt:" + p.name;
  const args = argInputs(p.arguments || [], {type: "ref/prompt", name: p.name}, () => {});
  const get = async () => {
    const id = newID();
    const vals = args.values();
    const card = resultCard(key, "prompts/get", p.name, id, vals);
    card.done(await api("prompt", {id, name: p.name, arguments: vals}), promptResult);
  };
  return [
    head(p.title || p.name, p.name, p.description),
    el("div", {class: "card run"}, (p.arguments || []).length ? args.el : el("p", {class: "dim", text: "No arguments."}),
      el("div", {class: "buttons"}, el("button", {class: "primary", id: "get", text: "Get", onclick: get}))),
    historyOf(key),
  ];
}

// serverOverview is the server: who it is, its instructions and
// capabilities, the roots the person gives it.
function serverOverview() {
  const s = S.server || {};
  const info = s.info || {};
  const row = (k, v) => v ? [el("dt", {text: k}), el("dd", null, v)] : null;
  return [
    head(info.title || info.name || "Server", info.title ? info.name : "", info.description),
    el("div", {class: "card"}, el("dl", null,
      row("Version", info.version), row("Protocol", s.protocol ? `${s.protocol} (${s.era})` : ""),
      row("Transport", transportNames[s.transport] || s.transport), row("Server", el("span", {class: "mono", text: s.target || ""})),
      row("Notifications", S.listening || (s.era === "stateful" ? "the session carries them" : "")))),
    s.instructions ? el("div", {class: "card"}, el("h3", {text: "Instructions"}), el("pre", {class: "text", text: s.instructions})) : null,
    el("div", {class: "card"}, el("h3", {text: "Capabilities"}), jsonView(s.capabilities || {})),
    rootsEditor(),
    details("What mcpwire declares to the server", jsonView(s.clientCapabilities || {})),
  ];
}

function rootsEditor() {
  const list = el("div", {class: "roots"});
  const add = r => list.append(el("div", {class: "root"},
    el("input", {class: "mono", name: "root-uri", placeholder: "file:///path/to/dir", value: (r && r.uri) || ""}),
    el("input", {name: "root-name", placeholder: "name", value: (r && r.name) || ""}),
    el("button", {class: "small", text: "×", onclick: e => e.target.parentNode.remove()})));
  (S.roots || []).forEach(add);
  const msg = el("span", {class: "dim"});
  return el("div", {class: "card"},
    el("h3", {text: "Roots"}),
    el("p", {class: "desc", text: "The directories the server may work in: mcpwire answers roots/list with these."}),
    list,
    el("div", {class: "buttons"},
      el("button", {class: "small", text: "+ Add", onclick: () => add()}),
      el("button", {id: "save-roots", text: "Save roots", onclick: async () => {
        const roots = [...list.querySelectorAll(".root")].map(d => ({uri: d.children[0].value.trim(), name: d.children[1].value.trim() || undefined})).filter(r => r.uri);
        const out = await api("roots", {roots});
        msg.textContent = out.error ? out.error.message : "Saved.";
      }}), msg));
}

// ---- The frames

// The live frames are bounded: at most maxRows frames and maxFrameBytes
// of them (their JSON), the oldest dropped with their rows, and a note
// above the list says how many.
const frameList = [];
const byID = new Map(); // "from id" of requests → frame
const maxRows = 5000;
const maxFrameBytes = 16 << 20;
let frameBytes = 0, framesDropped = 0;
let recording = null; // the recording shown instead of the live frames

// parseFrame adds to a record what the log shows: its kind, id, method.
function parseFrame(rec) {
  const m = rec.message;
  const f = {rec, kind: "raw", id: undefined, method: rec.method || ""};
  if (Array.isArray(m)) f.kind = "batch";
  else if (m && typeof m === "object") {
    f.id = m.id;
    if (m.method) {
      f.method = m.method;
      f.kind = "id" in m ? "request" : "notification";
    } else if ("result" in m || "error" in m) f.kind = "response";
    if (m.error) f.error = m.error.code;
  }
  if (rec.error) f.invalid = rec.error;
  f.size = JSON.stringify(m ?? rec.raw ?? "").length;
  return f;
}

// withoutMeta returns params or a result without its _meta, for the
// one-line preview (in the stateless era every request and result has
// one, the same each time).
function withoutMeta(v) {
  if (!v || typeof v !== "object" || Array.isArray(v) || !("_meta" in v)) return v;
  const c = Object.assign({}, v);
  delete c._meta;
  return c;
}

function frameRow(f, into, index) {
  const r = f.rec;
  const dir = r.from === "client" || r.from === "host" ? "→" : "←"; // host → App, App → host: apps.js
  const m = r.message || {};
  const preview = withoutMeta(f.kind === "request" || f.kind === "notification" ? m.params : f.kind === "response" ? (m.error || m.result) : (m ?? r.raw));
  f.row = el("li", {class: `frame ${r.from} ${f.kind}${f.invalid || f.error ? " bad" : ""}`, onclick: () => openFrame(f)},
    el("span", {class: "time", text: fmtTime(r.time)}),
    el("span", {class: "dir", text: dir, title: r.from === "client" ? "sent by mcpwire" : "sent by the server"}),
    r.channel ? el("span", {class: "badge channel", text: r.channel}) : null,
    el("span", {class: "method", text: f.method || (f.kind === "batch" ? `batch of ${m.length}` : f.kind === "response" ? "(response)" : "(frame)")}),
    f.id !== undefined && f.id !== null ? el("span", {class: "id", text: "#" + (typeof f.id === "string" ? f.id : JSON.stringify(f.id))}) : null,
    r.latency_ms ? el("span", {class: "lat", text: fmtMs(r.latency_ms)}) : null,
    f.error ? el("span", {class: "err", text: "error " + f.error}) : null,
    f.invalid ? el("span", {class: "err", text: "✗ " + f.invalid}) : null,
    r.status && r.status !== 200 && r.status !== 202 ? el("span", {class: "err", text: "HTTP " + r.status}) : null,
    el("span", {class: "preview", text: preview === undefined ? "" : oneLine(preview, 160)}));
  f.row.dataset.index = index;
  f.row.hidden = !frameShown(f);
  into.append(f.row);
}

// addFrame adds a frame of the live session to the log.
function addFrame(rec, jid) {
  const f = parseFrame(rec);
  f.jid = jid;
  if (f.kind === "request") byID.set(f.key = rec.from + " " + JSON.stringify(f.id), f);
  if (f.kind === "response") {
    const k = (rec.from === "client" ? "server" : "client") + " " + JSON.stringify(f.id);
    const req = byID.get(k);
    if (req) {
      f.partner = req;
      req.partner = f;
      byID.delete(k);
    }
  }
  pushFrame(f);
  viewsFrame(f);
  deepFrame();
}

// pushFrame puts a frame at the end of the live log (apps.js too), and
// drops the oldest beyond the bounds.
function pushFrame(f) {
  const list = $("#frames");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  f.index = frameList.length;
  frameList.push(f);
  frameBytes += f.size;
  frameRow(f, list, f.index);
  let n = 0;
  while (frameList.length - n > maxRows || frameBytes > maxFrameBytes && frameList.length - n > 1) frameBytes -= frameList[n++].size;
  for (const g of frameList.splice(0, n)) {
    if (g.row.classList.contains("open")) g.row.nextSibling.remove();
    g.row.remove();
    if (g.partner) g.partner.partner = null;
    if (byID.get(g.key) === g) byID.delete(g.key);
  }
  if (n) $("#frames-note").textContent = `the ${framesDropped += n} oldest frames were dropped (the page keeps ${maxRows} frames, ${maxFrameBytes >> 20} MiB)`;
  if (stick && !recording) list.scrollTop = list.scrollHeight;
  countFrames();
}

function countFrames() {
  $("#wire-tabs [data-pane=frames] .count").textContent = String(recording ? recording.length : frameList.length);
}

function frameShown(f) {
  const q = $("#frame-filter").value.trim().toLowerCase();
  const dir = $("#frame-dir").value;
  const bad = $("#frame-errors").checked;
  return (!q || (f.method || "").toLowerCase().includes(q) || (f.partner && (f.partner.method || "").toLowerCase().includes(q))) &&
    (!dir || f.rec.from === dir) && (!bad || !!(f.invalid || f.error));
}

function filterFrames() {
  for (const f of recording || frameList) if (f.row) f.row.hidden = !frameShown(f);
}

// openFrame shows a frame in full below its row, and marks the frame it
// answers or that answers it.
function openFrame(f) {
  const was = document.querySelector(".frame.open");
  for (const x of document.querySelectorAll(".frame.open, .frame.partner")) x.classList.remove("open", "partner");
  for (const x of document.querySelectorAll(".frame-detail")) x.remove();
  if (was === f.row) return;
  f.row.classList.add("open");
  if (!recording) saveHash("frame=" + f.jid);
  const r = f.rec;
  const p = f.partner;
  const meta = [
    r.transport ? `transport ${r.transport}` : null, r.session ? `session ${r.session}` : null,
    r.status ? `HTTP ${r.status}` : null, `${fmtBytes(f.size)}`, r.time,
  ].filter(Boolean).join(" · ");
  const link = p ? el("a", {href: "#", class: "partner-link", text: p.kind === "request" ? "↑ the request it answers" : "↓ its response" + (p.rec.latency_ms ? ` (${fmtMs(p.rec.latency_ms)})` : ""), onclick: e => {
    e.preventDefault();
    e.stopPropagation();
    p.row.hidden = false;
    openFrame(p);
  }}) : null;
  const detail = el("li", {class: "frame-detail"},
    el("div", {class: "dim"}, meta, " ", link, " ", recording ? null : frameNetLink(f)),
    r.error ? el("div", {class: "err", text: r.error}) : null,
    r.message !== undefined ? jsonView(r.message) : el("pre", {class: "text", text: r.raw ?? ""}));
  f.row.after(detail);
  if (p && p.row) {
    p.row.classList.add("partner");
    p.row.scrollIntoView({block: "nearest"});
  }
  f.row.scrollIntoView({block: "nearest"});
}

// showRecording shows the frames of a loaded recording instead of the
// live ones.
function showRecording(name, recs, error) {
  recording = [];
  const list = el("ol", {class: "frames"});
  const pairs = new Map();
  recs.forEach((rec, i) => {
    const f = parseFrame(rec);
    if (f.kind === "request") pairs.set(rec.from + " " + JSON.stringify(f.id), f);
    if (f.kind === "response") {
      const k = (rec.from === "client" ? "server" : "client") + " " + JSON.stringify(f.id);
      if (pairs.has(k)) {
        f.partner = pairs.get(k);
        f.partner.partner = f;
        pairs.delete(k);
      }
    }
    recording.push(f);
    frameRow(f, list, i);
  });
  $("#frames").hidden = true;
  $("#recording").replaceWith(el("div", {id: "recording"}, list));
  fill($("#recording-banner"), el("span", null, "Recording ", el("strong", {text: name}), ` · ${recs.length} frames`),
    error ? el("span", {class: "err", text: " · " + error}) : null,
    el("button", {class: "small", text: "Back to live", onclick: () => {
      recording = null;
      $("#recording").replaceChildren();
      $("#recording-banner").hidden = true;
      $("#frames").hidden = false;
      countFrames();
    }}));
  $("#recording-banner").hidden = false;
  showPane("frames");
  countFrames();
}

// ---- Messages: log messages, stderr, the inspector's notes

let messageCount = 0;

function addMessage(cls, time, label, body) {
  const list = $("#messages");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.append(el("li", {class: "msg " + cls}, el("span", {class: "time", text: fmtTime(time)}), el("span", {class: "label", text: label}), body));
  while (list.children.length > maxRows) list.firstChild.remove();
  if (stick) list.scrollTop = list.scrollHeight;
  $("#wire-tabs [data-pane=messages] .count").textContent = String(++messageCount);
}

function addLog(e) {
  const text = typeof e.data === "string" ? el("span", {text: e.data}) : el("span", {class: "mono", text: oneLine(e.data, 2000)});
  addMessage("log " + e.level, e.time, e.level + (e.logger ? " · " + e.logger : ""), text);
}

function showPane(p) {
  for (const b of document.querySelectorAll("#wire-tabs button")) b.classList.toggle("on", b.dataset.pane === p);
  for (const x of document.querySelectorAll("#wire .pane")) x.hidden = x.id !== p + "-pane";
  currentPane = p;
}

// ---- The server's questions

const questions = new Map();

function countdown(deadline, into) {
  const tick = () => {
    const left = Math.max(0, Math.round((new Date(deadline) - Date.now()) / 1000));
    into.textContent = `answer within ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  };
  tick();
  return setInterval(tick, 1000);
}

function addQuestion(q) {
  if (questions.has(q.id)) return;
  const p = q.params || {};
  const msg = el("div", {class: "form-error", hidden: true});
  const send = async answer => {
    const out = await api("answer", {id: q.id, answer});
    if (out.error) {
      msg.textContent = out.error.message;
      msg.hidden = false;
    }
  };
  let body;
  if (q.kind === "elicit" && p.mode === "url") {
    body = [
      el("p", {class: "ask", text: p.message}),
      el("p", null, /^https?:\/\//i.test(p.url || "") ? el("a", {href: p.url, target: "_blank", rel: "noopener noreferrer", class: "mono", text: p.url}) :
        el("span", {class: "mono err", text: p.url + " (not an http or https URL: not a link)"})),
      el("div", {class: "buttons"},
        el("button", {class: "primary", text: "Done", onclick: () => send({action: "accept"})}),
        el("button", {text: "Decline", onclick: () => send({action: "decline"})}),
        el("button", {text: "Cancel", onclick: () => send({action: "cancel"})})),
    ];
  } else if (q.kind === "elicit") {
    const form = schemaForm(p.requestedSchema || {type: "object"});
    body = [
      el("p", {class: "ask", text: p.message}),
      form.el,
      el("div", {class: "buttons"},
        el("button", {class: "primary", name: "accept", text: "Accept", onclick: () => {
          try {
            send({action: "accept", content: form.get()});
          } catch (e) {
            msg.textContent = e.message;
            msg.hidden = false;
          }
        }}),
        el("button", {name: "decline", text: "Decline", onclick: () => send({action: "decline"})}),
        el("button", {name: "cancel", text: "Cancel", onclick: () => send({action: "cancel"})})),
    ];
  } else {
    const reply = el("textarea", {name: "reply", rows: 4, placeholder: "The model's answer"});
    const model = el("input", {name: "model", value: "mcpwire-inspector"});
    const hints = ((p.modelPreferences || {}).hints || []).map(h => h.name).filter(Boolean);
    body = [
      el("p", {class: "ask", text: "The server asks the model (you play it):"}),
      el("div", {class: "conversation"}, samplingMessages(p)),
      el("p", {class: "dim", text: `at most ${p.maxTokens} tokens` + (hints.length ? ` · model hints: ${hints.join(", ")}` : "") + (p.temperature != null ? ` · temperature ${p.temperature}` : "")}),
      el("div", {class: "field"}, el("label", null, el("span", {class: "name", text: "Answer"})), reply),
      el("div", {class: "field"}, el("label", null, el("span", {class: "name", text: "Model"})), model),
      el("div", {class: "buttons"},
        el("button", {class: "primary", name: "send", text: "Send", onclick: () => send({result: {role: "assistant", content: {type: "text", text: reply.value}, model: model.value || "mcpwire-inspector", stopReason: "endTurn"}})}),
        el("button", {name: "reject", text: "Reject", onclick: () => send({reject: true})})),
    ];
  }
  const clock = el("span", {class: "dim"});
  const card = el("div", {class: "question card", "data-question": q.id, "data-kind": q.kind},
    el("div", {class: "result-head"}, el("strong", {text: q.kind === "elicit" ? "The server asks you" : "The server asks for a completion"}),
      el("span", {class: "mono dim", text: q.kind === "elicit" ? " elicitation/create" : " sampling/createMessage"}), " ", clock),
    body, msg);
  questions.set(q.id, {card, timer: countdown(q.deadline, clock)});
  $("#questions").append(card);
  $("#questions").hidden = false;
  const first = card.querySelector("input, select, textarea");
  if (first) first.focus();
}

function removeQuestion(id) {
  const q = questions.get(id);
  if (!q) return;
  clearInterval(q.timer);
  q.card.remove();
  questions.delete(id);
  $("#questions").hidden = questions.size === 0;
}

// ---- The event stream

function applyState(st) {
  S = st;
  renderHeader();
  renderSide();
  renderDetail();
}

function connect() {
  const es = new EventSource(withToken("/events"));
  const on = (type, f) => es.addEventListener(type, e => f(JSON.parse(e.data)));
  on("state", applyState);
  es.addEventListener("frame", e => addFrame(JSON.parse(e.data), +e.lastEventId));
  on("http", netEvent);
  on("log", addLog);
  on("stderr", e => addMessage("stderr", e.time, "stderr", el("span", {class: "mono", text: e.line})));
  on("note", e => addMessage("note", e.time, "mcpwire", el("span", {text: e.message})));
  on("lost", n => addMessage("note", new Date().toISOString(), "mcpwire", el("span", {text: `${n} earlier events were dropped (the journal is bounded)`})));
  on("progress", p => { const c = calls.get(p.call); if (c) c.progress(p); });
  on("updated", e => {
    addMessage("note", new Date().toISOString(), "updated", el("span", {class: "mono", text: e.uri}));
    if ((S.subscriptions || []).includes(e.uri)) readResource(e.uri, "res:" + e.uri);
  });
  on("question", addQuestion);
  on("answered", removeQuestion);
  es.onopen = () => document.body.classList.remove("offline");
  es.onerror = () => document.body.classList.add("offline");
}

// ---- Start

function start() {
  for (const b of document.querySelectorAll("#kinds button")) {
    b.addEventListener("click", () => {
      view.kind = b.dataset.kind;
      if (view.kind === "server") view.key = null;
      renderSide();
      renderDetail();
      saveHash();
    });
  }
  for (const b of document.querySelectorAll("#wire-tabs button")) b.addEventListener("click", () => { showPane(b.dataset.pane); saveHash(); });
  $("#filter").addEventListener("input", e => { view.filter = e.target.value; renderSide(); });
  for (const id of ["#frame-filter", "#frame-dir", "#frame-errors"]) $(id).addEventListener("input", filterFrames);
  $("#refresh").addEventListener("click", () => api("refresh"));
  $("#export").href = withToken("/export");
  $("#load").addEventListener("change", async e => {
    const file = e.target.files[0];
    e.target.value = "";
    if (!file) return;
    const out = await api("recording", await file.text(), "application/x-ndjson");
    if (out.records && out.records.length) showRecording(file.name, out.records, out.error && out.error.message);
    else addMessage("note", new Date().toISOString(), "mcpwire", el("span", {class: "err", text: `${file.name}: ${out.error ? out.error.message : "not a recording"}`}));
  });
  const lvl = $("#log-level");
  lvl.append(el("option", {value: "", text: "(server default)"}),
    ...["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"].map(l => el("option", {value: l, text: l})));
  lvl.addEventListener("change", async () => {
    const out = await api("loglevel", {level: lvl.value});
    if (out.error) {
      addMessage("note", new Date().toISOString(), "mcpwire", el("span", {class: "err", text: out.error.message}));
      lvl.value = S.logLevel || "";
    }
  });
  const caps = (S.server && S.server.capabilities) || {};
  view.kind = S.catalog && S.status === "catalog" ? "servers" : ["tools", "resources", "prompts"].find(k => caps[k] && items(k).length) || "tools";
  showPane("frames");
  restore();
  applyState(S);
  performance.mark("mcpwire:shown");
  connect();
  startViews();
}

start();
