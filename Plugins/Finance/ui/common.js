// What the finance page's parts share: the module's id, the categories and accounts, amounts in
// the app's currency, the host's today, and a form's submission with its refusal shown in the
// person's language next to the form.

import { callOperation, request } from "/console/api.js";
import { t } from "/console/i18n.js";
import { showError, clearError } from "/console/errors.js";
import { money } from "/console/format.js";

export const PLUGIN = "cz.tessera.finance";
export const $ = (id) => document.getElementById(id);
export const call = (operation, input = {}) => callOperation(PLUGIN, operation, input);

/** What the page knows of the person's ledger; `changed` refreshes every part that shows it. */
export const state = { currency: "EUR", categories: [], accounts: [], changed: async () => {} };

export const amount = (value) => money(value, state.currency);

/** A signed amount for a list: "−12,00 Kč" for money out, "+42 500,00 Kč" for money in. */
export const signed = (item) => (item.kind === "expense" ? amount(-Number(item.amount)) : `+${amount(item.amount)}`);

// The module's own categories (Ledger.builtinCategories in Plugins/Finance/Ledger.swift) are keys,
// shown in the person's language; a category a person added is shown as they wrote it.
const BUILTIN_CATEGORIES = new Set(["travel", "food", "health", "housing", "transport", "shopping", "entertainment",
  "subscriptions", "salary", "gifts", "other"]);
export const categoryName = (key) => (BUILTIN_CATEGORIES.has(key) ? t(`category.${key}`) : key);

/** Whether `key` is a category the person added (not one of the module's own). */
export const isOwnCategory = (key) => !BUILTIN_CATEGORIES.has(key);

/**
 * An amount as a person may type it, grouped by their habit ("1,234.50", "1.234,50"): the
 * grouping marks taken out where they cannot be the decimals (the other mark follows them, or they
 * repeat). A lone "1.234" stays as typed: the module asks which was meant.
 */
export function withoutGrouping(text) {
  const value = String(text ?? "").trim();
  const dots = (value.match(/\./g) || []).length, commas = (value.match(/,/g) || []).length;
  if (dots && commas) {
    const decimal = value.lastIndexOf(".") > value.lastIndexOf(",") ? "." : ",";
    return value.replaceAll(decimal === "." ? "," : ".", "");
  }
  if (dots > 1) return value.replaceAll(".", "");
  if (commas > 1) return value.replaceAll(",", "");
  return value;
}

/** The host's time (a virtual deployment's clock is not the browser's). */
let hostNow = new Date();
export async function readHostClock() {
  try { hostNow = new Date((await request("GET", "/v1/clock")).now); } catch { hostNow = new Date(); }
  return hostNow;
}

/** Today on the host's clock, as a date field's value. */
export function today() {
  const two = (n) => String(n).padStart(2, "0");
  return `${hostNow.getFullYear()}-${two(hostNow.getMonth() + 1)}-${two(hostNow.getDate())}`;
}

/** Fills `select` with the categories, in the person's language; `first` is an extra first option. */
export function fillCategories(select, { first } = {}) {
  const chosen = select.value;
  select.replaceChildren();
  if (first) select.append(new Option(first.label, first.value));
  for (const key of state.categories) select.append(new Option(categoryName(key), key));
  if (chosen) select.value = chosen;
}

/** The form's fields as an operation's input: empty ones left out, check boxes as true or false. */
export function formInput(form) {
  const input = {};
  for (const control of form.elements) {
    if (!control.name || control.disabled) continue;
    if (control.type === "checkbox") input[control.name] = control.checked;
    else if (control.value.trim() !== "") input[control.name] = control.value.trim();
  }
  return input;
}

/**
 * Runs `action` when `form` is sent: the refusal, if any, as a sentence in `output` with its field
 * marked; on success, `done` (with the answer) says what happened in the page's status line.
 */
export function onSubmit(form, output, action, done) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearError({ form, output });
    let answer;
    try {
      answer = await action(formInput(form));
    } catch (error) {
      showError(error, { form, output });
      return;
    }
    const said = await done?.(answer);
    if (said) $("status").textContent = said;
  });
}

export { t };
