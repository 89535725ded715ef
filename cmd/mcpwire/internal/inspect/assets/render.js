"use strict";
// Results as a person reads them: content blocks by type (text, images,
// audio, links to resources, embedded resources), a tool's result with its
// structured content beside the output schema, a resource's contents, a
// prompt's messages. Media are data: URLs, the only ones the page's
// Content-Security-Policy allows: nothing is fetched from elsewhere.

// mimeType is the server's mime type if it is a plain type/subtype, and
// application/octet-stream if not ("image/png,<script>...").
function mimeType(mime) {
  return /^[\w.+-]+\/[\w.+-]+$/.test(mime || "") ? mime : "application/octet-stream";
}

function dataURL(mime, b64) {
  return `data:${mimeType(mime)};base64,${b64 || ""}`;
}

function b64Size(b64) {
  const s = b64 || "";
  return Math.floor(s.length * 3 / 4) - (s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0);
}

// media shows base64 data of a mime type: an image, a player, or a link
// to save it, always as application/octet-stream: a download, never a
// document (text/html, image/svg+xml) the browser would open.
function media(mime, b64, name) {
  const m = mimeType(mime);
  const info = el("span", {class: "dim", text: `${mime || "binary"} · ${fmtBytes(b64Size(b64))}`});
  if (m.startsWith("image/")) return el("figure", null, el("img", {src: dataURL(m, b64), alt: name || m}), el("figcaption", null, info));
  if (m.startsWith("audio/")) return el("figure", null, el("audio", {controls: true, src: dataURL(m, b64)}), el("figcaption", null, info));
  if (m.startsWith("video/")) return el("figure", null, el("video", {controls: true, src: dataURL(m, b64)}), el("figcaption", null, info));
  return el("div", null, info, " ", el("a", {href: dataURL("application/octet-stream", b64), download: name || "blob", text: "Save"}));
}

// textBlock shows a text; JSON text gets a button that shows it as JSON.
function textBlock(text) {
  const pre = el("pre", {class: "text", text});
  const t = text.trim();
  if ((t.startsWith("{") || t.startsWith("[")) && t.length < 1 << 20) {
    try {
      const v = JSON.parse(t);
      const view = jsonView(v);
      view.hidden = true;
      const b = el("button", {class: "small corner", text: "JSON", onclick: () => {
        view.hidden = !view.hidden;
        pre.hidden = !view.hidden;
        b.textContent = view.hidden ? "JSON" : "Text";
      }});
      return el("div", {class: "textwrap"}, b, pre, view);
    } catch { /* not JSON */ }
  }
  return pre;
}

// resourceContents shows one item of a resource's contents.
function resourceContents(c) {
  const head = el("div", {class: "res-head"},
    el("span", {class: "mono", text: c.uri || ""}), c.mimeType ? el("span", {class: "badge", text: c.mimeType}) : null);
  const body = c.text != null ? textBlock(c.text) : c.blob != null ? media(c.mimeType, c.blob, c.uri) : jsonView(c);
  return el("div", {class: "resource"}, head, body);
}

// contentBlock shows one content block.
function contentBlock(b) {
  if (!b || typeof b !== "object") return jsonView(b);
  switch (b.type) {
    case "text": return el("div", {class: "block"}, textBlock(String(b.text ?? "")));
    case "image":
    case "audio": return el("div", {class: "block"}, media(b.mimeType, b.data, b.type));
    case "resource_link":
      return el("div", {class: "block link"},
        el("span", {class: "badge", text: "resource link"}), " ",
        el("a", {href: "#", class: "mono", text: b.uri, onclick: e => { e.preventDefault(); openResource(b.uri); }}),
        b.name ? el("span", {class: "dim", text: " " + (b.title || b.name)}) : null,
        b.description ? el("div", {class: "desc", text: b.description}) : null);
    case "resource": return el("div", {class: "block"}, el("span", {class: "badge", text: "embedded resource"}), resourceContents(b.resource || {}));
  }
  return el("div", {class: "block"}, el("span", {class: "badge", text: b.type || "content"}), jsonView(b));
}

function contentList(list) {
  if (!Array.isArray(list)) return list === undefined ? null : jsonView(list);
  if (list.length === 0) return el("p", {class: "dim", text: "(no content)"});
  return list.map(contentBlock);
}

// toolResult shows a tools/call result; tool is the tool called (for its
// output schema).
function toolResult(res, tool) {
  const parts = [];
  if (res.isError) parts.push(el("div", {class: "tool-error", text: "The tool reported an error (isError)"}));
  parts.push(contentList(res.content));
  if (res.structuredContent !== undefined) {
    const cols = el("div", {class: "structured"},
      el("div", null, el("h4", {text: "structuredContent"}), jsonView(res.structuredContent)));
    if (tool && tool.outputSchema) cols.append(el("div", null, el("h4", {text: "outputSchema"}), jsonView(tool.outputSchema)));
    parts.push(cols);
  }
  return parts;
}

function readResult(res) {
  const list = res.contents || [];
  if (list.length === 0) return el("p", {class: "dim", text: "(no contents)"});
  return list.map(resourceContents);
}

function promptResult(res) {
  return [
    res.description ? el("p", {class: "desc", text: res.description}) : null,
    (res.messages || []).map(m => el("div", {class: "message " + (m.role || "")},
      el("div", {class: "role", text: m.role || "?"}),
      el("div", null, Array.isArray(m.content) ? contentList(m.content) : contentBlock(m.content)))),
  ];
}

// samplingMessages shows the conversation of a sampling request.
function samplingMessages(p) {
  return [
    p.systemPrompt ? el("div", {class: "message system"}, el("div", {class: "role", text: "system"}), textBlock(p.systemPrompt)) : null,
    (p.messages || []).map(m => el("div", {class: "message " + (m.role || "")},
      el("div", {class: "role", text: m.role || "?"}),
      el("div", null, Array.isArray(m.content) ? contentList(m.content) : contentBlock(m.content)))),
  ];
}
