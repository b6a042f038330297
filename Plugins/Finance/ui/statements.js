// Importing from the bank, on the finance page: a statement file (a CSV in the bank's own columns,
// or CAMT.053) previewed before anything is saved, its columns adjustable, then imported in slices
// with a progress bar, and undone as a whole; and Fio banka's API with the token kept as a secret.
//
// The module reads the file (`statement-preview`, `statement-import`, docs/finance.md "Bank
// statements"); the page only decodes it — many Czech banks still write Windows-1250 — and says in
// the person's language what the module found.

import { el, clear } from "/console/dom.js";
import { has } from "/console/i18n.js";
import { errorText, showError, clearError, reasonCode } from "/console/errors.js";
import { date, dateTime } from "/console/format.js";

import { $, call, state, t, categoryName, signed } from "./common.js";

const ROLES = ["date", "amount", "debit", "credit", "name", "counterparty", "reference"];
/** How many movements the preview's table shows. */
const SHOWN = 20;

let chosen = null;  // { file, filename, text, options, preview }

/** The file's text: UTF-8 if it is valid UTF-8, else Windows-1250 (Czech and Slovak banks' CSV). */
async function decoded(file) {
  const bytes = await file.arrayBuffer();
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1250").decode(bytes);
  }
}

function input(extra = {}) {
  const body = { file: chosen.text, filename: chosen.filename, account: $("import-account").value, ...extra };
  if (chosen.options) body.options = chosen.options;
  return body;
}

// MARK: The preview

async function preview() {
  clearError({ output: $("import-error") });
  $("import-progress-text").textContent = "";
  try {
    chosen.preview = await call("statement-preview", input());
  } catch (error) {
    $("import-preview").hidden = true;
    showError(error, { form: $("import-form"), output: $("import-error") });
    return;
  }
  showPreview(chosen.preview);
}

function showPreview(found) {
  $("import-preview").hidden = false;
  const days = found.lines.map((line) => line.date).sort();
  const summary = found.total === 0
    ? t("import.empty")
    : t("import.summary", { count: found.total, from: date(days[0]), to: date(days.at(-1)), fresh: found.new,
        duplicates: found.duplicates, likely: found.likely });
  $("import-summary").textContent = found.currency && found.currency !== found.appCurrency
    ? `${summary} ${t("import.otherCurrency", { theirs: found.currency, ours: found.appCurrency })}` : summary;
  showColumns(found);
  showProblems(found.problems);
  showLines(found);
  const likely = found.likely > 0;
  $("import-likely-field").hidden = !likely;
  if (likely) $("import-likely-label").textContent = t("import.includeLikely", { count: found.likely });
  updateConfirm();
}

function updateConfirm() {
  const found = chosen?.preview;
  if (!found) return;
  const count = found.new + ($("import-likely").checked ? found.likely : 0);
  const button = $("import-confirm");
  button.textContent = t("import.confirm", { count });
  button.disabled = count === 0 || (found.currency && found.currency !== found.appCurrency);
}

/** A column as the person sees it: its name in the file, or its number and first value. */
function columnLabel(column) {
  const sample = column.samples.find((value) => value !== "") ?? "";
  return column.header
    ? t("column.named", { number: column.number, header: column.header })
    : t("column.unnamed", { number: column.number, sample });
}

function showColumns(found) {
  const fieldset = $("import-columns");
  fieldset.hidden = found.format !== "csv";
  if (fieldset.hidden) return;
  const mapping = found.options.mapping;
  for (const role of ROLES) {
    const select = $(`map-${role}`);
    clear(select);
    if (role !== "date") select.append(el("option", { value: "" }, t("column.none")));
    for (const column of found.columns) select.append(el("option", { value: String(column.number) }, columnLabel(column)));
    select.value = mapping[role] ? String(mapping[role]) : "";
  }
  $("opt-date-format").value = found.options.dateFormat;
  $("opt-decimal").value = found.options.decimalSeparator;
  $("opt-header").checked = found.options.hasHeader;
}

/** What the person set in the column choices, as the module's options. */
function optionsFromForm() {
  const mapping = {};
  for (const role of ROLES) {
    const value = $(`map-${role}`).value;
    if (value) mapping[role] = Number(value);
  }
  // One amount column, or money out and money in: an amount chosen wins over the pair.
  if (mapping.amount) { delete mapping.debit; delete mapping.credit; }
  return { mapping, dateFormat: $("opt-date-format").value, decimalSeparator: $("opt-decimal").value,
    hasHeader: $("opt-header").checked, delimiter: chosen.preview.options.delimiter };
}

function showProblems(problems) {
  const list = $("import-problems");
  clear(list);
  for (const problem of problems.slice(0, 10)) {
    list.append(el("li", {}, t(`problem.${problem.kind}`, { line: problem.line, column: problem.column, value: problem.value })));
  }
  if (problems.length > 10) list.append(el("li", {}, t("problem.more", { count: problems.length - 10 })));
}

function lineState(line) {
  if (line.duplicate === "exact") return t("state.already");
  if (line.duplicate === "likely") {
    const [, name, day] = /^(.*) \((\d{4}-\d{2}-\d{2})\)$/.exec(line.duplicateOf ?? "") ?? [];
    return name ? t("state.likely", { name, day: date(day) }) : t("state.likelyUnnamed");
  }
  return t("state.new");
}

function showLines(found) {
  const body = $("import-lines").querySelector("tbody");
  clear(body);
  for (const line of found.lines.slice(0, SHOWN)) {
    body.append(el("tr", { class: line.duplicate ? "muted" : "" }, el("td", { class: "day" }, date(line.date)),
      el("th", { scope: "row" }, line.name), el("td", {}, categoryName(line.category)),
      el("td", { class: `amount ${line.kind}` }, signed(line)), el("td", {}, lineState(line))));
  }
  $("import-caption").textContent = found.total > SHOWN ? t("import.captionSome", { shown: SHOWN, count: found.total }) : t("import.captionAll");
}

// MARK: Importing, with progress

async function importAll() {
  const found = chosen.preview;
  const total = found.total;
  const slice = Math.max(25, Math.ceil(total / 20));
  const progress = $("import-progress");
  progress.hidden = false;
  progress.max = total;
  progress.value = 0;
  $("import-confirm").disabled = $("import-cancel").disabled = true;
  let next = 0, importId = null, imported = 0;
  try {
    while (next < total) {
      const extra = { start: next, count: slice, includeLikely: $("import-likely").checked };
      if (importId) extra.importId = importId;
      const answer = await call("statement-import", input(extra));
      importId = answer.importId;
      imported += answer.imported;
      next = answer.next;
      progress.value = next;
      $("import-progress-text").textContent = t("import.progress", { done: next, count: total });
      if (answer.done) break;
    }
  } catch (error) {
    $("import-progress-text").textContent = imported > 0
      ? `${errorText(error)} ${t("import.partial", { count: imported })}` : errorText(error);
    $("import-confirm").disabled = $("import-cancel").disabled = false;
    progress.hidden = true;
    await refreshImports();
    return;
  }
  progress.hidden = true;
  const filename = chosen.filename;
  reset();
  // The sentence comes last, once the page shows what was imported.
  await state.changed();
  await refreshImports();
  $("import-progress-text").textContent = t("import.done", { count: imported, file: filename });
}

function reset() {
  chosen = null;
  $("import-form").reset();
  $("import-preview").hidden = true;
  $("import-confirm").disabled = $("import-cancel").disabled = false;
  $("import-likely").checked = false;
}

// MARK: Earlier imports

async function refreshImports() {
  const { imports } = await call("imports-list", {});
  const list = $("imports");
  clear(list);
  if (imports.length === 0) list.append(el("li", { class: "muted" }, t("imports.none")));
  for (const record of imports) {
    const what = t("imports.line", { file: record.filename || t(`imports.source.${record.source}`), when: dateTime(record.at), count: record.imported });
    const item = el("li", {}, what, " ");
    if (record.undoneAt) {
      item.append(el("span", { class: "muted" }, t("imports.undone", { when: dateTime(record.undoneAt) })));
    } else {
      const undo = el("button", { type: "button", class: "secondary" }, t("imports.undo"));
      undo.setAttribute("aria-label", t("imports.undoLabel", { what }));
      undo.addEventListener("click", async () => {
        try {
          await call("import-undo", { id: record.id });
          await state.changed();
          await refreshImports();
          $("import-progress-text").textContent = t("imports.undoneNow", { count: record.remaining });
        } catch (error) {
          $("import-progress-text").textContent = errorText(error);
        }
      });
      item.append(undo);
    }
    list.append(item);
  }
}

// MARK: Fio banka

async function refreshFio() {
  const status = await call("fio-status", {});
  $("fio-state").textContent = !status.hasToken ? t("fio.noToken")
    : status.lastImport ? t("fio.lastImport", { day: date(status.lastImport) }) : t("fio.neverImported");
  $("fio-import").hidden = $("fio-forget").hidden = !status.hasToken;
}

async function fioImport(resolveMismatch) {
  const progress = $("fio-progress");
  $("fio-error").textContent = "";
  $("fio-result").textContent = t("fio.importing");
  progress.hidden = false;
  $("fio-import").disabled = true;
  try {
    const answer = await call("fio-import", resolveMismatch ? { resolveMismatch } : {});
    $("fio-mismatch").hidden = true;
    await state.changed();
    await refreshFio();
    $("fio-result").textContent = answer.aborted ? t("fio.aborted")
      : t("fio.done", { count: answer.imported, already: answer.alreadyThere, from: date(answer.from), to: date(answer.to) });
  } catch (error) {
    $("fio-result").textContent = "";
    if (reasonCode(error) === "currency_mismatch") {
      const theirs = /account is in ([A-Z]{3})/.exec(error.message)?.[1] ?? "";
      $("fio-mismatch").hidden = false;
      $("fio-mismatch-text").textContent = t("fio.mismatch", { theirs });
      $("fio-switch").textContent = t("fio.switch", { theirs });
    } else {
      $("fio-error").textContent = errorText(error);
    }
  } finally {
    progress.hidden = true;
    $("fio-import").disabled = false;
    await refreshFio();
  }
}

/** Wires the import and Fio sections; the accounts are the page's (`state.accounts`). */
export async function startStatements() {
  for (const account of state.accounts) {
    const name = has(`account.${account.id}`) ? t(`account.${account.id}`) : account.name;
    $("import-account").append(el("option", { value: account.id }, name));
  }
  $("import-account").value = "bank";
  $("statement-file").addEventListener("change", async () => {
    const file = $("statement-file").files[0];
    if (!file) return;
    chosen = { filename: file.name, text: await decoded(file), options: null };
    await preview();
  });
  $("import-account").addEventListener("change", () => chosen && preview());
  for (const id of [...ROLES.map((role) => `map-${role}`), "opt-date-format", "opt-decimal", "opt-header"]) {
    $(id).addEventListener("change", () => {
      if (!chosen?.preview) return;
      chosen.options = optionsFromForm();
      preview();
    });
  }
  $("import-likely").addEventListener("change", updateConfirm);
  $("import-confirm").addEventListener("click", () => importAll());
  $("import-cancel").addEventListener("click", () => {
    reset();
    $("import-progress-text").textContent = t("import.cancelled");
  });
  $("fio-token-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    clearError({ form, output: $("fio-error") });
    try {
      await call("fio-token-set", { token: $("fio-token").value.trim() });
    } catch (error) {
      showError(error, { form, output: $("fio-error") });
      return;
    }
    form.reset();
    $("fio-result").textContent = t("fio.saved");
    await refreshFio();
  });
  $("fio-forget").addEventListener("click", async () => {
    await call("fio-token-clear", {});
    $("fio-result").textContent = t("fio.forgotten");
    await refreshFio();
  });
  $("fio-import").addEventListener("click", () => fioImport());
  $("fio-switch").addEventListener("click", () => fioImport("switchCurrencyAndWipe"));
  $("fio-abort").addEventListener("click", () => fioImport("abort"));
  await refreshImports();
  await refreshFio();
}
