"use strict";
// Helpers of the page: building elements, showing JSON, formatting, and
// requests to the inspector. Untrusted text (everything the server sends)
// only ever goes into the page as text nodes and attribute values, never
// as HTML.

const boot = JSON.parse(document.getElementById("boot").textContent);
const $ = (sel, root) => (root || document).querySelector(sel);

// el builds an element: el("div", {class: "x", onclick: f}, child, "text", ...).
function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v == null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "value" || k === "checked" || k === "hidden" || k === "disabled") e[k] = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c != null && c !== false) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// clear empties an element and appends children.
function fill(e, ...children) {
  e.replaceChildren();
  for (const c of children.flat(Infinity)) if (c != null && c !== false) e.append(c);
  return e;
}

// clipAt is the length beyond which a string of JSON is shown cut, with a
// button that shows the rest (images' base64, long texts).
const clipAt = 400;

// jsonView shows a JSON value, indented and colored.
function jsonView(value) {
  const pre = el("pre", {class: "json"});
  writeJSON(pre, value, "");
  return pre;
}

function writeJSON(out, v, indent) {
  if (v === null) return out.append(el("span", {class: "j-null", text: "null"}));
  switch (typeof v) {
    case "string": return out.append(jsonString(v));
    case "number": return out.append(el("span", {class: "j-num", text: String(v)}));
    case "boolean": return out.append(el("span", {class: "j-bool", text: String(v)}));
  }
  const inner = indent + "  ";
  if (Array.isArray(v)) {
    if (v.length === 0) return out.append("[]");
    out.append("[\n");
    v.forEach((x, i) => {
      out.append(inner);
      writeJSON(out, x, inner);
      out.append(i < v.length - 1 ? ",\n" : "\n");
    });
    return out.append(indent + "]");
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return out.append("{}");
  out.append("{\n");
  keys.forEach((k, i) => {
    out.append(inner, el("span", {class: "j-key", text: JSON.stringify(k)}), ": ");
    writeJSON(out, v[k], inner);
    out.append(i < keys.length - 1 ? ",\n" : "\n");
  });
  out.append(indent + "}");
}

function jsonString(s) {
  const q = JSON.stringify(s);
  if (q.length <= clipAt) return el("span", {class: "j-str", text: q});
  const span = el("span", {class: "j-str", text: q.slice(0, clipAt)});
  const more = el("button", {class: "more", text: `… ${q.length - clipAt} more characters`, onclick: () => {
    span.textContent = q;
    more.remove();
  }});
  return el("span", null, span, more);
}

// oneLine shows a JSON value on one line, cut to max characters.
function oneLine(v, max) {
  let s = typeof v === "string" ? v : JSON.stringify(v);
  if (s === undefined) s = "";
  return s.length > max ? s.slice(0, max) + "…" : s;
}

function fmtTime(iso) {
  const d = new Date(iso);
  if (isNaN(d)) return "";
  const p = (n, w) => String(n).padStart(w || 2, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

function fmtMs(ms) {
  if (ms == null) return "";
  if (ms < 10) return ms.toFixed(2) + " ms";
  if (ms < 1000) return ms.toFixed(1) + " ms";
  return (ms / 1000).toFixed(2) + " s";
}

function fmtBytes(n) {
  if (n < 1024) return n + " B";
  if (n < 1 << 20) return (n / 1024).toFixed(1) + " KiB";
  return (n / (1 << 20)).toFixed(1) + " MiB";
}

function withToken(path) {
  return path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(boot.token);
}

// api runs an operation of the inspector, and returns its outcome:
// {result, error: {message, code, data}, ms}. It never throws.
async function api(op, body, type) {
  try {
    const r = await fetch(withToken("/api/" + op), {
      method: "POST",
      headers: {"Content-Type": type || "application/json"},
      body: type ? body : JSON.stringify(body || {}),
    });
    const text = await r.text();
    try {
      return JSON.parse(text);
    } catch {
      return {error: {message: text.trim() || `${r.status} ${r.statusText}`}};
    }
  } catch (e) {
    return {error: {message: "the inspector cannot be reached: " + e.message}};
  }
}

// newID returns an id for a request of this page, unique among pages.
const newID = (() => {
  const prefix = Math.random().toString(36).slice(2, 8);
  let n = 0;
  return () => `${prefix}-${++n}`;
})();

// errorBox shows an error of an outcome.
function errorBox(err) {
  return el("div", {class: "error"},
    el("strong", {text: err.code ? `Error ${err.code}` : "Error"}), " ", err.message,
    err.data !== undefined ? jsonView(err.data) : null);
}
