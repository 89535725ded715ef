// The page as an MCP Apps host (SEP-1865, ext-apps 2.0.x): a tool whose
// _meta.ui names an interface shows it, after a call, in an iframe served
// by the inspector's sandbox (another origin, apps.go) with
// sandbox="allow-scripts" only, and the page speaks the host's end of the
// App protocol with it over postMessage. It accepts messages only from
// the window of that iframe, bounds their size and the App's pending
// requests, forwards tools/call (the inspector refuses tools whose
// visibility lacks "app") and resources/read to the server through its
// API, asks the person before opening a link, and refuses everything
// else (sampling, roots, elicitation...). Every message both ways shows
// in the frame log, in the App's own channel.

const APPS = {
  protocol: "2026-01-26", // of the App protocol (ui/initialize)
  maxMessage: 1 << 20, // characters of one message of an App, as JSON
  maxPending: 16, // requests of one App waiting for the host
  maxOpen: 8, // Apps shown at once (apps.go: maxApps)
  maxLink: 2048, // characters of a URL an App asks to open
  maxNotes: 200, // notes shown under an App (its logs, messages, refusals), the newest
  maxNote: 2000, // characters of one note
  teardownWait: 3000, // ms the host waits for ui/resource-teardown
  initWait: 10000, // ms after the App's page loads before it is called not initialized
  minHeight: 40,
  maxHeight: 2000,
};
const openApps = []; // the Apps shown, oldest first

// appURI returns the interface a tool names (_meta.ui.resourceUri, or
// the deprecated _meta["ui/resourceUri"]), or "".
function appURI(t) {
  const m = t && t._meta;
  if (!m || typeof m !== "object") return "";
  const ui = m.ui && typeof m.ui === "object" ? m.ui : {};
  const uri = typeof ui.resourceUri === "string" ? ui.resourceUri : m["ui/resourceUri"];
  return typeof uri === "string" && uri.startsWith("ui://") ? uri : "";
}

// appsAfterCall shows the App of tool t under the card of its call (a
// hook of app.js's callTool), once the call has a result.
async function appsAfterCall(t, args, out, card) {
  if (!appURI(t) || !out.result || !card.node) return;
  while (openApps.length >= APPS.maxOpen) await openApps[0].teardown(`the inspector shows at most ${APPS.maxOpen} Apps`);
  const v = await api("app/open", {tool: t.name});
  if (v.error || !v.result) {
    card.node.append(el("div", {class: "app-box failed", text: "App: " + (v.error ? v.error.message : "no interface")}));
    return;
  }
  showApp(v.result, t, args || {}, out.result, card.node);
}

// appFrameLog puts a message between the page and an App in the frame
// log: from "app" (App → host) or "host" (host → App).
function appFrameLog(app, from, message) {
  const rec = {from, time: new Date().toISOString(), message, channel: "App " + app.label};
  pushFrame(parseFrame(rec));
}

// validID reports whether v can be the id of a JSON-RPC request.
function validID(v) {
  return (typeof v === "string" && v.length <= 256) || Number.isSafeInteger(v);
}

// showApp renders an App (the view the inspector serves, apps.go) of the
// tool t, called with args, whose result was result, into the element
// into, and runs the host's end of its protocol.
function showApp(view, t, args, result, into) {
  const frame = el("iframe", {class: "app-frame", sandbox: "allow-scripts", referrerpolicy: "no-referrer",
    title: "App " + view.uri, src: view.src});
  const status = el("span", {class: "status running", text: "loading…"});
  const notes = el("div", {class: "app-notes"});
  const app = {
    view, label: view.uri.slice("ui://".length, "ui://".length + 40), initialized: false, closed: false,
    inflight: 0, nextID: 1, waiting: new Map(), loads: 0,
  };
  const closeButton = el("button", {class: "small", text: "Close App", title: "Tear the App down (ui/resource-teardown)", onclick: () => app.teardown("closed by the person")});
  const box = el("div", {class: "app-box" + (view.prefersBorder === false ? " borderless" : ""), "data-app": view.app},
    el("div", {class: "app-head"}, el("span", {class: "badge", text: "App"}), el("span", {class: "mono", text: " " + view.uri + " "}), status, closeButton),
    frame, notes,
    details("Sandbox", el("pre", {class: "mono policy", text: "sandbox=\"allow-scripts\"\nContent-Security-Policy: " + view.policy})));
  into.append(box);
  openApps.push(app);

  const note = (text, cls) => {
    if (text.length > APPS.maxNote) text = text.slice(0, APPS.maxNote) + "…";
    notes.append(el("div", {class: "app-note " + (cls || ""), text}));
    const old = notes.querySelectorAll(".app-note:not(.ask)"); // a question waits for the person
    for (let i = 0; i < old.length - APPS.maxNotes; i++) old[i].remove();
  };
  const send = msg => {
    if (app.closed) return;
    appFrameLog(app, "host", msg);
    frame.contentWindow.postMessage(msg, "*"); // the App's origin is opaque: "*" is the only target
  };
  const reply = (id, result) => send({jsonrpc: "2.0", id, result});
  const replyError = (id, code, message) => send({jsonrpc: "2.0", id, error: {code, message}});
  const forward = (id, out) => {
    if (out.error) replyError(id, out.error.code || -32000, out.error.message);
    else reply(id, out.result);
  };

  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  const initResult = () => ({
    protocolVersion: APPS.protocol,
    hostInfo: {name: "mcpwire inspect", version: "1"},
    hostCapabilities: {
      openLinks: {}, serverTools: {}, serverResources: {}, logging: {},
      message: {text: {}}, updateModelContext: {text: {}, structuredContent: {}},
      sandbox: {permissions: {}, csp: view.csp || {}},
    },
    hostContext: {
      toolInfo: {tool: t}, theme: dark ? "dark" : "light", displayMode: "inline", availableDisplayModes: ["inline"],
      containerDimensions: {maxHeight: APPS.maxHeight}, locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone, userAgent: "mcpwire inspect", platform: "web",
      deviceCapabilities: {touch: false, hover: true},
    },
  });

  // openLink asks the person whether to open the App's link.
  const openLink = (id, url) => {
    let u;
    try {
      u = new URL(url);
    } catch {
      u = null;
    }
    if (!u || (u.protocol !== "https:" && u.protocol !== "http:") || url.length > APPS.maxLink) {
      note("the App asked to open a link that is not an http(s) URL; refused", "bad");
      return replyError(id, -32000, "Invalid URL: the inspector opens http(s) URLs only");
    }
    return new Promise(done => {
      const answer = open => {
        ask.remove();
        if (open && !app.closed) {
          window.open(u.href, "_blank", "noopener,noreferrer");
          reply(id, {});
        } else replyError(id, -32000, "Link opening denied by user");
        done();
      };
      const ask = el("div", {class: "app-note ask"},
        el("span", {text: "The App asks to open "}), el("span", {class: "mono", text: u.href}), " ",
        el("button", {class: "small primary", text: "Open", onclick: () => answer(true)}),
        el("button", {class: "small", text: "Refuse", onclick: () => answer(false)}));
      notes.append(ask);
      app.waiting.set("link:" + JSON.stringify(id), () => answer(false));
    });
  };

  const request = async m => {
    const p = m.params && typeof m.params === "object" && !Array.isArray(m.params) ? m.params : {};
    if (app.inflight >= APPS.maxPending) return replyError(m.id, -32000, `the App has ${APPS.maxPending} requests waiting already`);
    app.inflight++;
    try {
      switch (m.method) {
      case "ui/initialize":
        return reply(m.id, initResult());
      case "ping":
        return reply(m.id, {});
      case "tools/call":
        if (typeof p.name !== "string") return replyError(m.id, -32602, "Invalid params: name must be a string");
        return forward(m.id, await api("app/call", {app: view.app, name: p.name, arguments: p.arguments ?? undefined}));
      case "resources/read":
        if (typeof p.uri !== "string") return replyError(m.id, -32602, "Invalid params: uri must be a string");
        return forward(m.id, await api("app/read", {app: view.app, uri: p.uri}));
      case "ui/open-link":
        return await openLink(m.id, typeof p.url === "string" ? p.url : "");
      case "ui/message": {
        const text = (Array.isArray(p.content) ? p.content : [p.content]).filter(c => c && c.type === "text").map(c => String(c.text)).join(" ");
        note(`message from the App (${String(p.role || "user")}): ${text}`, "said");
        return reply(m.id, {});
      }
      case "ui/update-model-context":
        note("the App updated the model's context: " + oneLine({content: p.content, structuredContent: p.structuredContent}, 300), "said");
        return reply(m.id, {});
      case "ui/request-display-mode":
        return reply(m.id, {mode: "inline"});
      default:
        return replyError(m.id, -32601, `Method not found: the inspector does not let an App use ${m.method}`);
      }
    } finally {
      app.inflight--;
    }
  };

  const notification = m => {
    const p = m.params && typeof m.params === "object" ? m.params : {};
    switch (m.method) {
    case "ui/notifications/initialized":
      if (app.initialized) return;
      app.initialized = true;
      status.className = "status ok";
      status.textContent = "running";
      send({jsonrpc: "2.0", method: "ui/notifications/tool-input", params: {arguments: args}});
      send({jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result});
      return;
    case "ui/notifications/size-changed":
      if (Number.isFinite(p.height)) frame.style.height = Math.round(Math.min(APPS.maxHeight, Math.max(APPS.minHeight, p.height))) + "px";
      return;
    case "ui/notifications/request-teardown":
      app.teardown("the App asked to be closed");
      return;
    case "notifications/message":
      note(`log (${String(p.level)}): ${typeof p.data === "string" ? p.data : oneLine(p.data, 300)}`, "log");
    }
  };

  const onMessage = e => {
    if (e.source !== frame.contentWindow || app.closed) return; // only this App's window
    const m = e.data;
    let size = 0;
    try {
      size = JSON.stringify(m).length;
    } catch {
      return note("refused a message that is not JSON", "bad");
    }
    if (size > APPS.maxMessage) return note(`refused a message of ${size} characters (at most ${APPS.maxMessage})`, "bad");
    appFrameLog(app, "app", m);
    if (!m || typeof m !== "object" || Array.isArray(m) || m.jsonrpc !== "2.0") return note("ignored a message that is not JSON-RPC 2.0", "bad");
    if (typeof m.method === "string" && "id" in m) {
      if (!validID(m.id)) return note("ignored a request with an invalid id", "bad");
      request(m);
    } else if (typeof m.method === "string") notification(m);
    else if (validID(m.id) && ("result" in m || "error" in m)) {
      const w = app.waiting.get("host:" + JSON.stringify(m.id));
      if (w) w(); // an answer to a request of the host; others are ignored
    } else note("ignored an invalid message", "bad");
  };
  window.addEventListener("message", onMessage);
  frame.addEventListener("load", () => {
    const load = ++app.loads;
    if (load > 1) { // a redraw of the page moved the frame: the App starts over
      app.initialized = false;
      status.className = "status running";
      status.textContent = "reloaded";
    }
    // An App whose script failed (an error, a resource its policy
    // refused) never initializes: say so rather than "loading…" for ever.
    // One that initializes later still shows "running".
    setTimeout(() => {
      if (app.closed || app.initialized || app.loads !== load) return;
      status.className = "status bad";
      status.textContent = "not initialized";
      note(`the App sent no ui/notifications/initialized within ${APPS.initWait / 1000} s of loading: its script may have failed (see the browser's console, and the App's channel in the frame log)`, "bad");
    }, APPS.initWait);
  });

  app.teardown = async reason => {
    if (app.closed) return;
    const i = openApps.indexOf(app);
    if (i >= 0) openApps.splice(i, 1);
    if (app.initialized) {
      const id = "teardown-" + app.nextID++;
      const answered = new Promise(r => app.waiting.set("host:" + JSON.stringify(id), r));
      send({jsonrpc: "2.0", id, method: "ui/resource-teardown", params: {}});
      await Promise.race([answered, new Promise(r => setTimeout(r, APPS.teardownWait))]);
    }
    for (const [k, w] of app.waiting) if (k.startsWith("link:")) w();
    app.closed = true;
    window.removeEventListener("message", onMessage);
    frame.remove();
    closeButton.remove();
    status.className = "status";
    status.textContent = "closing…";
    // "closed" once the inspector has let go of the App (and cancelled its calls).
    Promise.resolve(api("app/close", {app: view.app})).finally(() => { status.textContent = "closed: " + reason; });
  };
  return app;
}
