// "Call an operation": pick a plugin and one of its operations, fill the form drawn from the
// operation's input schema, and see the result — or the error, next to the field it names.

import { callOperation, request, APIError } from "./api.js";
import { el, clear } from "./dom.js";
import { buildForm } from "./form.js";
import { t } from "./i18n.js";

/** Wires the form to the operations of the enabled plugins, as GET /openapi.json lists them. */
export async function startCaller({ form, pluginSelect, operationSelect, summary, fieldset, result }) {
  const document = await request("GET", "/openapi.json");
  const operations = listOperations(document);
  const plugins = [...new Set(operations.map((op) => op.plugin))].sort();
  clear(pluginSelect);
  for (const plugin of plugins) pluginSelect.append(el("option", { value: plugin }, plugin));
  let reader = null;

  function selectedOperation() {
    return operations.find((op) => op.plugin === pluginSelect.value && op.name === operationSelect.value);
  }

  function showOperations() {
    clear(operationSelect);
    for (const op of operations.filter((op) => op.plugin === pluginSelect.value)) {
      operationSelect.append(el("option", { value: op.name }, op.name));
    }
    showForm();
  }

  function showForm() {
    const op = selectedOperation();
    summary.textContent = op ? op.summary : "";
    reader = op ? buildForm(fieldset, op.input, `input-${op.name}`) : null;
    clear(result);
  }

  pluginSelect.addEventListener("change", showOperations);
  operationSelect.addEventListener("change", showForm);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const op = selectedOperation();
    if (!op || !reader) return;
    reader.clearErrors();
    let input;
    try { input = reader.read(); } catch (problem) {
      reader.showError(problem.field, problem.message);
      showFailure(result, "invalid_input", problem.message, problem.field);
      return;
    }
    try {
      const output = await callOperation(op.plugin, op.name, input);
      clear(result);
      result.append(el("p", {}, t("call.succeeded", { operation: op.name })), el("pre", { "data-result": "ok" }, JSON.stringify(output, null, 2)));
    } catch (error) {
      if (!(error instanceof APIError)) throw error;
      if (error.field) reader.showError(error.field, error.message);
      showFailure(result, error.code, error.message, error.field);
    }
  });
  showOperations();
}

function showFailure(result, code, message, field) {
  clear(result);
  result.append(el("p", { class: "failure", "data-result": "error" },
    t("call.failed", { code, message }) + (field ? ` ${t("call.field", { field })}` : "")));
}

/** Every plugin operation in the OpenAPI document, with its input schema resolved. */
export function listOperations(document) {
  const out = [];
  for (const [path, item] of Object.entries(document.paths || {})) {
    const match = /^\/v1\/plugins\/([^/]+)\/ops\/([^/]+)$/.exec(path);
    if (!match || !item.post) continue;
    const ref = item.post.requestBody?.content?.["application/json"]?.schema?.$ref || "";
    const input = document.components?.schemas?.[ref.replace("#/components/schemas/", "")] || {};
    out.push({ plugin: match[1], name: match[2], summary: item.post.summary || "", input });
  }
  return out.sort((a, b) => a.plugin.localeCompare(b.plugin) || a.name.localeCompare(b.name));
}
