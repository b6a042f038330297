// Builds a form for an operation from its input schema (the manifest's JSON Schema, as
// GET /openapi.json gives it), reads the values back as the input object, and shows an error
// answer next to the field it names.
//
// Supported as fields: an object whose members are strings (text, date, enum → select), integers,
// numbers, booleans or arrays of strings (one per line). Anything else, or an input that is not
// an object with properties, gets one JSON text area instead.

import { el, clear } from "./dom.js";
import { t } from "./i18n.js";

/** The kind of field for a member schema, or null if it needs the JSON fallback. */
export function fieldKind(schema) {
  if (!schema || typeof schema !== "object") return null;
  const enumValues = schema.enum || schema.anyOf?.find((s) => s.enum)?.enum;
  if (Array.isArray(enumValues) && enumValues.every((v) => typeof v === "string" || v === null)) return "enum";
  const types = [].concat(schema.type || []).filter((t) => t !== "null");
  if (types.length !== 1) return null;
  const type = types[0];
  if (type === "string") return schema.format === "date" ? "date" : "string";
  if (type === "integer" || type === "number" || type === "boolean") return type;
  if (type === "array" && [].concat(schema.items?.type || []).filter((t) => t !== "null")[0] === "string" && !schema.items?.enum) return "strings";
  return null;
}

/** Whether every member of the input schema has a field kind. */
export function canBuildFields(schema) {
  if (!schema || schema.type !== "object" || !schema.properties) return false;
  return Object.values(schema.properties).every((member) => fieldKind(member) !== null);
}

/**
 * Fills `fieldset` (keeping its legend) with the fields for `schema`, and returns a reader:
 * {read() → input object (throws {field, message} for a value it cannot read), showError(field, message), clearErrors()}.
 */
export function buildForm(fieldset, schema, idPrefix) {
  const legend = fieldset.querySelector("legend");
  clear(fieldset);
  if (legend) fieldset.append(legend);
  const fields = new Map();
  if (!canBuildFields(schema)) {
    const id = `${idPrefix}-json`;
    const area = el("textarea", { id, name: "$", class: "json", "aria-describedby": `${id}-help ${id}-error`, spellcheck: "false" });
    area.value = "{}";
    const error = el("p", { id: `${id}-error`, class: "error" });
    fieldset.append(el("div", { class: "field" },
      el("label", { for: id }, t("form.json")),
      area,
      el("p", { id: `${id}-help`, class: "help" }, t("form.jsonHelp")),
      error));
    fields.set("$", { kind: "json", control: area, error });
  } else {
    const required = new Set(schema.required || []);
    for (const [name, member] of Object.entries(schema.properties)) {
      const field = buildField(name, member, required.has(name), `${idPrefix}-${name}`);
      fieldset.append(field.wrapper);
      fields.set(name, field);
    }
    if (fields.size === 0) fieldset.append(el("p", { class: "help" }, t("form.noInput")));
  }
  return {
    read: () => readInput(fields),
    showError: (path, message) => showError(fields, path, message),
    clearErrors: () => { for (const field of fields.values()) setError(field, ""); },
  };
}

function buildField(name, schema, required, id) {
  const kind = fieldKind(schema);
  const helpText = [schema.description, hint(kind, schema)].filter(Boolean).join(" ");
  const describedBy = `${id}-help ${id}-error`;
  let control;
  if (kind === "enum") {
    const values = schema.enum || schema.anyOf.find((s) => s.enum).enum;
    control = el("select", { id, name, "aria-describedby": describedBy },
      required ? null : el("option", { value: "" }, t("form.notSet")),
      values.filter((v) => v !== null).map((v) => el("option", { value: v }, v)));
  } else if (kind === "boolean" && !required) {
    control = el("select", { id, name, "aria-describedby": describedBy },
      el("option", { value: "" }, t("form.notSet")), el("option", { value: "true" }, t("form.yes")), el("option", { value: "false" }, t("form.no")));
  } else if (kind === "boolean") {
    control = el("input", { id, name, type: "checkbox", "aria-describedby": describedBy });
  } else if (kind === "strings") {
    control = el("textarea", { id, name, "aria-describedby": describedBy });
  } else {
    const type = kind === "date" ? "date" : kind === "integer" || kind === "number" ? "number" : "text";
    control = el("input", { id, name, type, "aria-describedby": describedBy, autocomplete: "off",
      step: kind === "integer" ? "1" : kind === "number" ? "any" : null,
      min: schema.minimum, max: schema.maximum, maxlength: schema.maxLength });
  }
  if (required) control.setAttribute("aria-required", "true");
  const error = el("p", { id: `${id}-error`, class: "error" });
  const wrapper = el("div", { class: "field" },
    el("label", { for: id }, name, required ? ` ${t("form.required")}` : ""),
    control,
    el("p", { id: `${id}-help`, class: "help" }, helpText),
    error);
  return { kind, control, error, wrapper, required };
}

/** A short line about what the field takes. */
function hint(kind, schema) {
  if (kind === "strings") return t("form.onePerLine");
  if (schema.pattern) return t("form.pattern", { pattern: schema.pattern });
  if (schema.format && kind === "string") return t("form.format", { format: schema.format });
  return "";
}

function readInput(fields) {
  const json = fields.get("$");
  if (json && json.kind === "json") {
    try { return JSON.parse(json.control.value || "{}"); } catch (error) {
      throw { field: "$", message: t("form.notJSON", { reason: error.message }) };
    }
  }
  const input = {};
  for (const [name, field] of fields) {
    const value = readValue(name, field);
    if (value !== undefined) input[name] = value;
  }
  return input;
}

/** A field's value; undefined when it is left empty (the member is then left out). */
function readValue(name, field) {
  const { kind, control } = field;
  if (kind === "boolean" && control.type === "checkbox") return control.checked;
  const text = control.value;
  if (text === "") return undefined;
  if (kind === "boolean") return text === "true";
  if (kind === "integer" || kind === "number") {
    const number = Number(text);
    if (!Number.isFinite(number) || (kind === "integer" && !Number.isInteger(number))) {
      throw { field: `$.${name}`, message: t(kind === "integer" ? "form.wholeNumber" : "form.number") };
    }
    return number;
  }
  if (kind === "strings") return text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  return text;
}

/** Marks the field a JSON path names ("$.text", "$.tags[2]") as wrong, and moves focus to it. */
function showError(fields, path, message) {
  const name = (path || "$").replace(/^\$\.?/, "").split(/[.[]/)[0];
  const field = fields.get(name) || fields.get("$");
  if (!field) return false;
  setError(field, message);
  field.control.focus();
  return true;
}

function setError(field, message) {
  field.error.textContent = message;
  if (message) field.control.setAttribute("aria-invalid", "true");
  else field.control.removeAttribute("aria-invalid");
}
