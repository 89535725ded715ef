"use strict";
// Forms from JSON Schema: schemaForm(schema) returns {el, get(), set(v)}
// for an object schema (a tool's inputSchema, an elicitation's
// requestedSchema). Strings, numbers, integers, booleans, enums (enum,
// oneOf/anyOf of consts, the legacy enumNames), arrays (of choices: check
// boxes; of anything else: a list to add to), nested objects and local
// $refs get fields; anything else (a schema the form cannot show) is a
// JSON field. get() returns the value, leaving out the optional fields left
// empty, or throws a FormError that names the field. The server validates
// the rest.

class FormError extends Error {}

let fieldSeq = 0;

function schemaForm(schema, root) {
  root = root || schema || {};
  const f = objectField(resolveRef(schema || {}, root, 0), "", root, 0, true);
  f.el.classList.add("form");
  return f;
}

// resolveRef follows a local $ref ("#/$defs/x"), keeping the referring
// schema's own keywords (description, default...).
function resolveRef(s, root, depth) {
  while (s && typeof s.$ref === "string" && s.$ref.startsWith("#") && depth++ < 16) {
    let t = root;
    for (const part of s.$ref.slice(1).split("/").filter(Boolean)) {
      t = t && t[decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    if (!t || typeof t !== "object") break;
    const rest = Object.assign({}, s);
    delete rest.$ref;
    s = Object.assign({}, t, rest);
  }
  return s || {};
}

// typeOf says which field a schema gets.
function typeOf(s) {
  let t = s.type;
  if (Array.isArray(t)) t = t.find(x => x !== "null") || "null";
  if (t) return t;
  if (s.properties) return "object";
  if (s.items) return "array";
  if (choicesOf(s)) return "string";
  return null;
}

// nullable reports whether a schema allows null.
function nullable(s) {
  return Array.isArray(s.type) && s.type.includes("null");
}

// choicesOf returns the choices of an enum-like schema, [{value, title}],
// or null.
function choicesOf(s) {
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? s.enumNames : [];
    return s.enum.map((v, i) => ({value: v, title: names[i] != null ? String(names[i]) : String(v)}));
  }
  for (const k of ["oneOf", "anyOf"]) {
    const alts = s[k];
    if (Array.isArray(alts) && alts.length && alts.every(a => a && "const" in a)) {
      return alts.map(a => ({value: a.const, title: a.title != null ? String(a.title) : String(a.const)}));
    }
  }
  if ("const" in s) return [{value: s.const, title: String(s.const)}];
  return null;
}

// wrap puts a control in a field: its label, required mark, type and
// description.
function wrap(name, s, required, control, type) {
  const id = "f" + (++fieldSeq);
  if (control.matches && control.matches("input,select,textarea")) control.id = id;
  const label = s.title || name;
  return el("div", {class: "field"},
    label ? el("label", {for: id},
      el("span", {class: "name", text: label}),
      required ? el("span", {class: "req", title: "required", text: "*"}) : null,
      type ? el("span", {class: "type", text: type}) : null) : null,
    control,
    s.description ? el("div", {class: "desc", text: s.description}) : null);
}

// field returns the field of schema s for the member name (path is its
// place in the value, the name attribute of its control).
function field(s, name, path, root, depth, required) {
  s = resolveRef(s, root, 0);
  const choices = choicesOf(s);
  const t = typeOf(s);
  if (depth > 12) return jsonField(s, name, path, required);
  if (t === "array") {
    const items = resolveRef(s.items || {}, root, 0);
    const ic = choicesOf(items);
    if (ic) return multiField(s, ic, name, path, required);
    return arrayField(s, items, name, path, root, depth, required);
  }
  if (choices) return selectField(s, choices, name, path, required);
  switch (t) {
    case "object":
      if (s.properties) return objectField(s, name, root, depth, required, path);
      return jsonField(s, name, path, required);
    case "string": return stringField(s, name, path, required);
    case "number":
    case "integer": return numberField(s, t, name, path, required);
    case "boolean": return boolField(s, name, path, required);
  }
  return jsonField(s, name, path, required);
}

function join(path, name) {
  return path ? path + "." + name : name;
}

function objectField(s, name, root, depth, required, path) {
  path = path || "";
  const req = new Set(Array.isArray(s.required) ? s.required : []);
  const props = s.properties || {};
  const fields = Object.keys(props).map(k => [k, field(props[k], k, join(path, k), root, depth + 1, req.has(k))]);
  const body = fields.map(([, f]) => f.el);
  const box = depth === 0 ? el("div", null, body) :
    el("fieldset", null, el("legend", null, el("span", {class: "name", text: s.title || name}),
      required ? el("span", {class: "req", text: "*"}) : null), body,
    s.description ? el("div", {class: "desc", text: s.description}) : null);
  if (depth === 0 && fields.length === 0) box.append(el("p", {class: "dim", text: "No arguments."}));
  return {
    el: box,
    get() {
      const out = {};
      for (const [k, f] of fields) {
        const v = f.get();
        if (v !== undefined) out[k] = v;
        else if (req.has(k) && depth === 0) throw new FormError(`${k} is required`);
      }
      if (depth > 0 && !required && Object.keys(out).length === 0) return undefined;
      return out;
    },
    set(v) {
      v = v && typeof v === "object" ? v : {};
      for (const [k, f] of fields) f.set(v[k]);
    },
  };
}

function stringField(s, name, path, required) {
  const types = {email: "email", uri: "url", date: "date", "date-time": "datetime-local", time: "time"};
  const long = (s.maxLength || 0) > 200 || s.format === "textarea";
  const input = long ? el("textarea", {name: path, rows: 4}) :
    el("input", {name: path, type: types[s.format] || "text", placeholder: s.format || null});
  if (s.minLength != null) input.minLength = s.minLength;
  if (s.maxLength != null) input.maxLength = s.maxLength;
  const f = {
    el: wrap(name, s, required, input, s.format ? "string · " + s.format : "string"),
    get() {
      let v = input.value;
      if (input.type === "datetime-local" && v) v = new Date(v).toISOString();
      if (v === "") return required ? "" : undefined;
      return v;
    },
    set(v) {
      input.value = v == null ? "" : input.type === "datetime-local" ? String(v).slice(0, 16) : String(v);
    },
  };
  f.set(s.default);
  return f;
}

function numberField(s, t, name, path, required) {
  const input = el("input", {name: path, type: "number", step: t === "integer" ? "1" : "any"});
  if (s.minimum != null) input.min = s.minimum;
  if (s.maximum != null) input.max = s.maximum;
  const f = {
    el: wrap(name, s, required, input, t),
    get() {
      if (input.value === "") return undefined;
      const n = Number(input.value);
      if (!isFinite(n) || (t === "integer" && !Number.isInteger(n))) throw new FormError(`${path}: not ${t === "integer" ? "an integer" : "a number"}`);
      return n;
    },
    set(v) { input.value = v == null ? "" : String(v); },
  };
  f.set(s.default);
  return f;
}

// boolField is a check box; an optional boolean without a default is a
// choice of three (not set, true, false), so that "not set" is possible.
function boolField(s, name, path, required) {
  if (required || s.default !== undefined) {
    const box = el("input", {name: path, type: "checkbox"});
    const f = {
      el: wrap(name, s, required, box, "boolean"),
      get: () => box.checked,
      set(v) { box.checked = v === true; },
    };
    f.set(s.default);
    return f;
  }
  return selectField(s, [{value: true, title: "true"}, {value: false, title: "false"}], name, path, false, "boolean");
}

function selectField(s, choices, name, path, required, type) {
  const sel = el("select", {name: path});
  if (!required || s.default === undefined) sel.append(el("option", {value: "", text: required ? "(choose)" : "(not set)"}));
  choices.forEach((c, i) => sel.append(el("option", {value: String(i), text: c.title === String(c.value) ? c.title : `${c.title} (${c.value})`})));
  const f = {
    el: wrap(name, s, required, sel, type || "choice"),
    get() { return sel.value === "" ? undefined : choices[+sel.value].value; },
    set(v) {
      const i = choices.findIndex(c => c.value === v);
      sel.value = i < 0 ? "" : String(i);
    },
  };
  f.set(s.default);
  return f;
}

function multiField(s, choices, name, path, required) {
  const boxes = choices.map((c, i) => el("input", {type: "checkbox", name: `${path}.${i}`, value: String(i)}));
  const group = el("div", {class: "choices"}, choices.map((c, i) => el("label", null, boxes[i], " ", c.title)));
  const f = {
    el: wrap(name, s, required, group, "choices"),
    get() {
      const v = choices.filter((c, i) => boxes[i].checked).map(c => c.value);
      return v.length || required ? v : undefined;
    },
    set(v) {
      const on = Array.isArray(v) ? v : [];
      choices.forEach((c, i) => { boxes[i].checked = on.includes(c.value); });
    },
  };
  f.set(s.default);
  return f;
}

function arrayField(s, items, name, path, root, depth, required) {
  const list = el("div", {class: "items"});
  let rows = [];
  const add = v => {
    const f = field(items, "", `${path}.${rows.length}`, root, depth + 1, true);
    const row = {f, el: el("div", {class: "item"}, f.el, el("button", {type: "button", class: "small", title: "Remove", text: "×", onclick: () => {
      rows = rows.filter(r => r !== row);
      row.el.remove();
    }}))};
    if (v !== undefined) f.set(v);
    rows.push(row);
    list.append(row.el);
  };
  const box = el("div", null, list, el("button", {type: "button", class: "small", text: "+ Add", onclick: () => add()}));
  const f = {
    el: wrap(name, s, required, box, "array"),
    get() {
      const v = rows.map(r => r.f.get()).filter(x => x !== undefined);
      return v.length || required ? v : undefined;
    },
    set(v) {
      rows = [];
      list.replaceChildren();
      if (Array.isArray(v)) v.forEach(add);
    },
  };
  f.set(s.default);
  return f;
}

function jsonField(s, name, path, required) {
  const area = el("textarea", {name: path, rows: 3, class: "mono", placeholder: "JSON"});
  const f = {
    el: wrap(name, s, required, area, "JSON"),
    get() {
      if (area.value.trim() === "") return undefined;
      try {
        return JSON.parse(area.value);
      } catch (e) {
        throw new FormError(`${path || name}: invalid JSON: ${e.message}`);
      }
    },
    set(v) { area.value = v === undefined ? "" : JSON.stringify(v, null, 2); },
  };
  f.set(s.default);
  return f;
}

// argsEditor is a schema's form with a raw JSON editor beside it: the
// person switches between them, and value() reads the one shown.
function argsEditor(schema) {
  const form = schemaForm(schema);
  const raw = el("textarea", {class: "raw mono", rows: 8, name: "$raw", hidden: true, spellcheck: "false"});
  const err = el("div", {class: "form-error", hidden: true});
  let rawMode = false;
  const toggle = el("button", {type: "button", class: "small", text: "JSON", title: "Edit the arguments as raw JSON"});
  const show = m => {
    err.hidden = true;
    if (m === rawMode) return;
    if (m) {
      let v = {};
      try { v = form.get(); } catch { /* shown as it is */ }
      raw.value = JSON.stringify(v, null, 2);
    } else {
      try {
        form.set(JSON.parse(raw.value || "{}"));
      } catch (e) {
        err.textContent = "Invalid JSON: " + e.message;
        err.hidden = false;
        return;
      }
    }
    rawMode = m;
    raw.hidden = !m;
    form.el.hidden = m;
    toggle.textContent = m ? "Form" : "JSON";
  };
  toggle.addEventListener("click", () => show(!rawMode));
  return {
    el: el("div", {class: "args"}, form.el, raw, err),
    toggle,
    value() {
      err.hidden = true;
      try {
        if (!rawMode) return form.get();
        const v = JSON.parse(raw.value || "{}");
        if (!v || typeof v !== "object" || Array.isArray(v)) throw new FormError("the arguments must be a JSON object");
        return v;
      } catch (e) {
        err.textContent = e.message;
        err.hidden = false;
        return undefined;
      }
    },
  };
}
