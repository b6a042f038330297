// The finance page's "Settings" part: the currency (proposed from the person's country until they
// choose one), the two reminders and Fio's daily import, and the person's own categories and
// accounts.

import { dateTime } from "/console/format.js";
import { errorText } from "/console/errors.js";
import { language } from "/console/i18n.js";
import { $, call, state, t, categoryName, isOwnCategory, onSubmit } from "./common.js";

/** The currencies the module keeps amounts in (Money.currencies in Plugins/Finance/Money.swift). */
const CURRENCIES = ["EUR", "CZK", "USD", "GBP", "PLN", "CHF", "HUF"];
const currencyName = (code) => new Intl.DisplayNames([language()], { type: "currency" }).of(code);

/**
 * The currency of the person's country: their language says it for Czech and Slovak, the
 * browser's region otherwise (en-GB pounds, en-US dollars), euros when nothing tells.
 */
function localCurrency() {
  const byLanguage = { cs: "CZK", sk: "EUR" };
  if (byLanguage[language()]) return byLanguage[language()];
  const byRegion = { GB: "GBP", US: "USD", CZ: "CZK", SK: "EUR", PL: "PLN", HU: "HUF", CH: "CHF" };
  const regions = (navigator.languages?.length ? navigator.languages : [navigator.language]).map((tag) => tag.split("-")[1]);
  return regions.map((region) => byRegion[region?.toUpperCase()]).find(Boolean) ?? "EUR";
}

/**
 * Until a currency is chosen, the module counts in euros: a person who has recorded nothing yet
 * gets their country's currency instead, and is told so.
 */
export async function proposeCurrency(settings, status) {
  if (settings.currencyChosen) return;
  const local = localCurrency();
  if (local === settings.currency) return;
  const { transactions } = await call("transactions-list", { limit: 1 });
  const { goals } = await call("goals-list", {});
  if (transactions.length > 0 || goals.length > 0 || status.isSet) return;
  ({ currency: state.currency } = await call("settings-set", { currency: local, confirm: true }));
  $("status").textContent = t("settings.proposed", { currency: currencyName(state.currency) });
}

function fillCurrencies() {
  const select = $("currency");
  select.replaceChildren(...CURRENCIES.map((code) => new Option(`${currencyName(code)} (${code})`, code)));
  select.value = state.currency;
}

// MARK: Reminders

async function refreshReminders() {
  try {
    const status = await call("notifications-status", {});
    $("notify-weekly").checked = status.weeklyBudget;
    $("notify-log").checked = status.logReminder;
    const next = [];
    // `next` is keyed by the module's schedules (Reminders.swift: weeklyKey, reminderKey).
    const weekly = status.next["weekly-budget"], log = status.next["log-reminder"];
    if (status.weeklyBudget && weekly) next.push(t("notify.nextWeekly", { when: dateTime(weekly) }));
    if (status.logReminder && log) next.push(t("notify.nextLog", { when: dateTime(log) }));
    $("notify-state").textContent = next.join(" ");
  } catch (error) {
    $("notify-state").textContent = errorText(error);
  }
  const fio = await call("fio-status", {});
  $("auto-import-field").hidden = !fio.hasToken;
  $("auto-import").checked = fio.autoImport;
}

async function configureReminders() {
  $("notify-error").textContent = "";
  try {
    await call("notifications-configure", { weeklyBudget: $("notify-weekly").checked, logReminder: $("notify-log").checked });
  } catch (error) {
    $("notify-error").textContent = errorText(error);
  }
  await refreshReminders();
}

// MARK: Own categories and accounts

export async function refreshOwn() {
  const own = state.categories.filter(isOwnCategory);
  $("own-categories").textContent = own.length ? t("categories.own", { names: own.map(categoryName).join(", ") }) : t("categories.noOwn");
  const accounts = state.accounts.filter((account) => account.id !== "cash" && account.id !== "bank");
  $("own-accounts").textContent = accounts.length ? t("accounts.own", { names: accounts.map((account) => account.name).join(", ") }) : t("accounts.noOwn");
}

/** An account's id from its name: lowercase letters and digits joined by dashes. */
const accountId = (name) => name.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "account";

export async function startPreferences(settings, status) {
  await proposeCurrency(settings, status);
  fillCurrencies();
  onSubmit($("currency-form"), $("currency-error"), (fields) => call("settings-set", { currency: fields.currency, confirm: true }), async (answer) => {
    state.currency = answer.currency;
    await state.changed();
    return t("settings.changed", { currency: currencyName(state.currency) });
  });
  for (const id of ["notify-weekly", "notify-log"]) $(id).addEventListener("change", configureReminders);
  $("auto-import").addEventListener("change", async () => {
    await call("fio-auto-import", { enabled: $("auto-import").checked });
    await refreshReminders();
  });
  onSubmit($("category-form"), $("category-error"), (fields) => call("category-add", { name: fields.name }), async ({ names }) => {
    state.categories = names;
    $("category-form").reset();
    await state.changed();
    return t("categories.added");
  });
  onSubmit($("account-form"), $("account-error"), (fields) => call("account-add", { id: accountId(fields.name), name: fields.name, kind: fields.kind }),
    async ({ accounts }) => {
      state.accounts = accounts;
      $("account-form").reset();
      await state.changed();
      return t("accounts.added");
    });
  await refreshReminders();
  await refreshOwn();
}
