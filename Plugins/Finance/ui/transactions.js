// The finance page's "Transactions" part: every transaction, searched and filtered; one changed,
// split into parts or deleted from the list; everything downloaded as CSV.

import { el, clear } from "/console/dom.js";
import { date } from "/console/format.js";
import { errorText, showError, clearError } from "/console/errors.js";
import { $, call, state, t, amount, signed, categoryName, fillCategories, withoutGrouping, formInput } from "./common.js";

let editing = null;  // the transaction in the edit form

// MARK: The list

export async function refreshAll() {
  const filter = formInput($("filter-form"));
  const { transactions } = await call("transactions-list", { ...filter, limit: 200 });
  const body = $("all-transactions").querySelector("tbody");
  clear(body);
  if (transactions.length === 0) body.append(el("tr", {}, el("td", { colspan: "5", class: "muted" }, t("all.none"))));
  for (const item of transactions) {
    const category = item.splits
      ? t("split.categories", { categories: item.splits.map((part) => categoryName(part.category)).join(", ") })
      : categoryName(item.category);
    const edit = el("button", { type: "button", class: "secondary" }, t("all.edit"));
    edit.setAttribute("aria-label", t("all.editLabel", { name: item.name, day: date(item.date) }));
    edit.addEventListener("click", () => startEditing(item));
    body.append(el("tr", { "data-id": item.id }, el("td", { class: "day" }, date(item.date)), el("th", { scope: "row" }, item.name),
      el("td", {}, category), el("td", { class: `amount ${item.kind}` }, signed(item)), el("td", {}, edit)));
  }
  $("all-count").textContent = t("all.count", { count: transactions.length });
}

// MARK: Changing one

function startEditing(item) {
  editing = item;
  const form = $("edit-form");
  clearError({ form, output: $("edit-error") });
  $("edit-kind").value = item.kind;
  $("edit-name").value = item.name;
  $("edit-amount").value = item.amount;
  $("edit-category").value = item.category;
  $("edit-date").value = item.date;
  clear($("split-parts"));
  for (const part of item.splits ?? []) addPart(part);
  updateLeft();
  form.hidden = false;
  $("edit-name").focus();
}

function addPart(part = {}) {
  const index = $("split-parts").children.length + 1;
  const category = el("select", { id: `part-category-${index}`, name: "part-category" });
  fillCategories(category);
  category.value = part.category ?? "other";
  const value = el("input", { id: `part-amount-${index}`, name: "part-amount", type: "text", inputmode: "decimal", autocomplete: "off",
    value: part.amount ?? "" });
  value.addEventListener("input", updateLeft);
  const remove = el("button", { type: "button", class: "secondary" }, t("split.remove"));
  remove.setAttribute("aria-label", t("split.removeLabel", { number: index }));
  const item = el("li", { class: "split-part" },
    el("div", { class: "field" }, el("label", { for: category.id }, t("split.category", { number: index })), category),
    el("div", { class: "field" }, el("label", { for: value.id }, t("split.amount", { number: index })), value), remove);
  remove.addEventListener("click", () => { item.remove(); updateLeft(); });
  $("split-parts").append(item);
}

/** Minor units of a typed amount, or null. */
function minor(text) {
  const value = withoutGrouping(text).replace(/\s/g, "").replace(",", ".");
  return /^\d+(\.\d{1,2})?$/.test(value) ? Math.round(Number(value) * 100) : null;
}

/** Says how much of the amount the parts leave, while the person types. */
function updateLeft() {
  const parts = [...$("split-parts").querySelectorAll("input[name=part-amount]")];
  const total = minor($("edit-amount").value);
  if (parts.length === 0 || total === null) { $("split-left").textContent = ""; return; }
  const sum = parts.reduce((all, input) => all + (minor(input.value) ?? 0), 0);
  const left = total - sum;
  $("split-left").textContent = left === 0 ? t("split.exact") : t(left > 0 ? "split.left" : "split.over", { amount: amount(Math.abs(left) / 100) });
}

async function saveEditing(event) {
  event.preventDefault();
  const form = $("edit-form");
  clearError({ form, output: $("edit-error") });
  const input = formInput(form);
  const parts = [...$("split-parts").children].map((item) => ({
    category: item.querySelector("select").value, amount: withoutGrouping(item.querySelector("input").value),
  }));
  const newAmount = withoutGrouping(input.amount);
  try {
    const wasSplit = Boolean(editing.splits);
    const change = { id: editing.id, kind: input.kind, name: input.name, category: input.category, date: input.date };
    // A split transaction's amount changes together with its parts.
    if (!(wasSplit || parts.length > 0) && newAmount !== editing.amount) change.amount = newAmount;
    await call("transaction-update", change);
    if (wasSplit || parts.length > 0) {
      await call("transaction-split", { id: editing.id, parts, ...(newAmount !== editing.amount ? { amount: newAmount } : {}) });
    }
  } catch (error) {
    showError(error, { form, output: $("edit-error") });
    return;
  }
  form.hidden = true;
  editing = null;
  await state.changed();
  $("status").textContent = t("edit.saved", { name: input.name });
}

async function deleteEditing() {
  const item = editing;
  try {
    await call("transaction-delete", { id: item.id });
  } catch (error) {
    $("edit-error").textContent = errorText(error);
    return;
  }
  $("edit-form").hidden = true;
  editing = null;
  await state.changed();
  $("status").textContent = t("edit.deleted", { name: item.name });
}

// MARK: Export

async function download(layout) {
  try {
    const { filename, csv, rows } = await call("export-csv", { layout });
    const link = el("a", { href: URL.createObjectURL(new Blob([csv], { type: "text/csv" })), download: filename });
    document.body.append(link);
    link.click();
    link.remove();
    $("csv-result").textContent = t("csv.done", { count: rows, file: filename });
  } catch (error) {
    $("csv-result").textContent = errorText(error);
  }
}

export function startTransactions() {
  for (const control of $("filter-form").elements) control.addEventListener("change", () => refreshAll());
  $("filter-search").addEventListener("input", () => refreshAll());
  $("filter-form").addEventListener("submit", (event) => { event.preventDefault(); refreshAll(); });
  $("edit-form").addEventListener("submit", saveEditing);
  $("edit-amount").addEventListener("input", updateLeft);
  $("split-add").addEventListener("click", () => {
    // The first part gets what is not split yet: the whole amount.
    if ($("split-parts").children.length === 0) addPart({ category: $("edit-category").value, amount: $("edit-amount").value });
    addPart();
    updateLeft();
  });
  $("edit-delete").addEventListener("click", deleteEditing);
  $("edit-cancel").addEventListener("click", () => { $("edit-form").hidden = true; editing = null; });
  $("export-thesis").addEventListener("click", () => download("thesis"));
  $("export-full").addEventListener("click", () => download("full"));
}
