// The finance module's page: this month's budget and category limits, a form to add a
// transaction (on a day, today unless changed), importing from the bank (statements.js), the
// month's spending by category and a period's income and expenses as two lines,
// the savings goals with their progress, the newest transactions, the currency (proposed from the
// person's country until they choose one), and the five-page tutorial.
//
// Every word is the person's language (ui/messages/<lang>.json), amounts, days and months are
// formatted by /console/format.js. The charts are drawn here from the `overview` operation's
// figures, not taken from `chart-svg`, whose SVG has its texts in English and its days in ISO
// form; their colours come from finance.css (light and dark), as the host's CSP wants.

import { callOperation, request } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { startPage } from "/console/page.js";
import { t, language } from "/console/i18n.js";
import { errorText, showError, clearError } from "/console/errors.js";
import { date, month, money, number } from "/console/format.js";
import { startStatements } from "./statements.js";

const PLUGIN = "cz.tessera.finance";
const $ = (id) => document.getElementById(id);

// The module's own categories (Ledger.builtinCategories in Plugins/Finance/Ledger.swift) are keys,
// shown in the person's language; a category a person added is shown as they wrote it.
const BUILTIN_CATEGORIES = new Set(["travel", "food", "health", "housing", "transport", "shopping", "entertainment",
  "subscriptions", "salary", "gifts", "other"]);
const categoryName = (key) => (BUILTIN_CATEGORIES.has(key) ? t(`category.${key}`) : key);

let currency = "EUR";
const amount = (value) => money(value, currency);
/** The currencies the module keeps amounts in (Money.currencies in Plugins/Finance/Money.swift). */
const CURRENCIES = ["EUR", "CZK", "USD", "GBP", "PLN", "CHF", "HUF"];

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
 * An amount as a person may type it, grouped by their habit ("1,234.50", "1.234,50"): the
 * grouping marks taken out where they cannot be the decimals (the other mark follows them, or they
 * repeat). A lone "1.234" stays as typed: the module asks which was meant.
 */
function withoutGrouping(text) {
  const value = text.trim();
  const dots = (value.match(/\./g) || []).length, commas = (value.match(/,/g) || []).length;
  if (dots && commas) {
    const decimal = value.lastIndexOf(".") > value.lastIndexOf(",") ? "." : ",";
    return value.replaceAll(decimal === "." ? "," : ".", "");
  }
  if (dots > 1) return value.replaceAll(".", "");
  if (commas > 1) return value.replaceAll(",", "");
  return value;
}

/** Today on the host's clock (a virtual deployment's is not the browser's), as YYYY-MM-DD. */
let hostNow = new Date();
async function readHostClock() {
  try { hostNow = new Date((await request("GET", "/v1/clock")).now); } catch { hostNow = new Date(); }
}
function today() {
  const two = (n) => String(n).padStart(2, "0");
  return `${hostNow.getFullYear()}-${two(hostNow.getMonth() + 1)}-${two(hostNow.getDate())}`;
}
const percent = (value) => number(value, 0);

// MARK: The budget

function showBudget(status) {
  const when = month(status.month), spent = amount(status.spent);
  let text;
  if (!status.isSet) {
    text = t("budget.none", { month: when, spent });
  } else {
    const figures = { month: when, spent, budget: amount(status.amount), percent: percent(status.percentUsed ?? 0) };
    text = status.overspent
      ? t("budget.over", { ...figures, over: amount(Math.abs(Number(status.remaining))) })
      : t("budget.status", { ...figures, remaining: amount(status.remaining) });
  }
  $("budget").textContent = text;
  const limits = $("limits");
  clear(limits);
  for (const limit of status.categories) {
    const figures = { category: categoryName(limit.category), spent: amount(limit.spent), limit: amount(limit.amount) };
    limits.append(el("li", {}, limit.overspent
      ? t("limit.over", { ...figures, over: amount(Math.abs(Number(limit.remaining))) })
      : t("limit.status", { ...figures, remaining: amount(limit.remaining) })));
  }
  limits.hidden = $("limits-heading").hidden = status.categories.length === 0;
}

// MARK: Charts

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element; text goes in as text nodes. */
function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

/** What a period of the overview is called: a day, a month, a year, or a range of days. */
function periodName(overview) {
  switch (overview.period) {
    case "day": return date(overview.from);
    case "month": return month(overview.from);
    case "year": return overview.from.slice(0, 4);
    default: return t("overview.range", { from: date(overview.from), to: date(overview.to) });
  }
}

/** A point of the series: a day ("2026-03-02"), or a month of a year ("2026-03"). */
const pointName = (label) => (/^\d{4}-\d{2}$/.test(label) ? month(label) : date(label));

/**
 * The month's expenses by category as bars, largest first: each bar's width is a percentage of
 * the chart's, so the texts keep their size on a phone and on a wide screen.
 */
function drawCategories(figure, overview) {
  clear(figure);
  const shares = overview.byCategory.slice(0, 10);
  if (shares.length === 0) {
    figure.append(el("p", { class: "muted" }, t("chart.noExpenses")));
    return;
  }
  const row = 46, largest = Math.max(...shares.map((share) => share.amountMinor), 1);
  const chart = svg("svg", { class: "chart", width: "100%", height: shares.length * row, role: "img" },
    svg("title", {}, t("chart.categoriesTitle", { period: periodName(overview) })),
    svg("desc", {}, t("chart.categoriesDesc", { count: shares.length, total: amount(overview.expense) })));
  shares.forEach((share, i) => {
    const label = t("chart.bar", { category: categoryName(share.category), amount: amount(share.amount), percent: percent(share.percent) });
    const width = Math.max(share.amountMinor / largest * 100, 0.5).toFixed(2);
    chart.append(svg("text", { x: 0, y: i * row + 16 }, label),
      svg("rect", { class: "expense", x: 0, y: i * row + 22, width: `${width}%`, height: 16, rx: 2 }, svg("title", {}, label)));
  });
  figure.append(chart);
}

/**
 * Income and expenses over the period as two lines: the lines are drawn in a stretched 1000×1000
 * box (strokes keep their width), the texts around it at their own size.
 */
function drawLines(figure, overview) {
  clear(figure);
  const points = overview.series;
  const top = Math.max(0, ...points.map((p) => Math.max(p.incomeMinor, p.expenseMinor)));
  const largest = Math.max(top, 1);
  const xs = points.length > 1 ? points.map((_, i) => (i * 1000) / (points.length - 1)) : [0, 1000];
  const line = (kind) => {
    const values = points.map((p) => (kind === "income" ? p.incomeMinor : p.expenseMinor));
    const ys = (values.length > 1 ? values : [values[0] ?? 0, values[0] ?? 0]).map((v) => (1000 - (v * 1000) / largest).toFixed(1));
    return svg("polyline", { class: `line ${kind}`, points: xs.map((x, i) => `${x.toFixed(1)},${ys[i]}`).join(" "),
      "vector-effect": "non-scaling-stroke" });
  };
  const period = periodName(overview);
  const plot = svg("svg", { x: 0, y: 22, width: "100%", height: 150, viewBox: "0 0 1000 1000", preserveAspectRatio: "none" },
    svg("line", { class: "axis", x1: 0, y1: 1000, x2: 1000, y2: 1000, "vector-effect": "non-scaling-stroke" }),
    line("income"), line("expense"));
  const chart = svg("svg", { class: "chart", width: "100%", height: 200, role: "img" },
    svg("title", {}, t("chart.linesTitle", { period })),
    svg("desc", {}, t("overview.totals", { period, income: amount(overview.income), expense: amount(overview.expense),
      balance: amount(overview.balance) })),
    svg("text", { x: 0, y: 14 }, amount(top / 100)), plot);
  if (points.length > 0) {
    chart.append(svg("text", { x: 0, y: 192 }, pointName(points[0].label)));
    if (points.length > 1) chart.append(svg("text", { x: "100%", y: 192, "text-anchor": "end" }, pointName(points.at(-1).label)));
  }
  figure.append(chart);
}

async function refreshOverview() {
  const overview = await callOperation(PLUGIN, "overview", { period: $("period").value });
  $("overview-totals").textContent = t("overview.totals", { period: periodName(overview), income: amount(overview.income),
    expense: amount(overview.expense), balance: amount(overview.balance) });
  drawLines($("line-chart"), overview);
}

// MARK: Goals, transactions, tutorial

async function refreshGoals() {
  const { goals } = await callOperation(PLUGIN, "goals-list", {});
  const list = $("goals");
  clear(list);
  if (goals.length === 0) list.append(el("li", {}, t("goals.none")));
  for (const goal of goals) {
    const figures = { name: goal.name, duration: t(goal.duration === "annual" ? "goal.annual" : "goal.monthly"),
      saved: amount(goal.saved), target: amount(goal.target), percent: percent(goal.percent) };
    list.append(el("li", {}, t(goal.completed ? "goal.reached" : "goal.line", figures),
      el("progress", { max: "100", value: goal.progress, "aria-label": t("goal.progress", { name: goal.name }) })));
  }
}

async function refreshTransactions() {
  const { transactions } = await callOperation(PLUGIN, "transactions-list", { limit: 20 });
  const body = $("transactions").querySelector("tbody");
  clear(body);
  if (transactions.length === 0) body.append(el("tr", {}, el("td", { colspan: "4", class: "muted" }, t("list.none"))));
  for (const item of transactions) {
    const shown = item.kind === "expense" ? amount(-Number(item.amount)) : `+${amount(item.amount)}`;
    body.append(el("tr", {}, el("td", { class: "day" }, date(item.date)), el("th", { scope: "row" }, item.name),
      el("td", {}, categoryName(item.category)),
      el("td", { class: `amount ${item.kind === "income" ? "income" : "expense"}` }, shown)));
  }
}

let tutorial = { pages: [], at: 0 };
function showTutorialPage() {
  const page = tutorial.pages[tutorial.at];
  if (!page) return;
  $("tutorial-title").textContent = page.title;
  $("tutorial-body").textContent = page.body;
  $("tutorial-page").textContent = t("tutorial.page", { page: page.page, count: tutorial.pages.length });
}

// MARK: Currency

function fillCurrencies() {
  const names = new Intl.DisplayNames([language()], { type: "currency" });
  const select = $("currency");
  clear(select);
  for (const code of CURRENCIES) select.append(el("option", { value: code }, `${names.of(code)} (${code})`));
  select.value = currency;
}

/**
 * Until a currency is chosen, the module counts in euros: a person who has recorded nothing yet
 * gets their country's currency instead, and is told so.
 */
async function proposeCurrency(settings, status) {
  if (settings.currencyChosen) return;
  const local = localCurrency();
  if (local === settings.currency) return;
  const { transactions } = await callOperation(PLUGIN, "transactions-list", { limit: 1 });
  const { goals } = await callOperation(PLUGIN, "goals-list", {});
  if (transactions.length > 0 || goals.length > 0 || status.isSet) return;
  ({ currency } = await callOperation(PLUGIN, "settings-set", { currency: local, confirm: true }));
  const names = new Intl.DisplayNames([language()], { type: "currency" });
  $("status").textContent = t("settings.proposed", { currency: names.of(currency) });
}

async function refresh() {
  const status = await callOperation(PLUGIN, "budget-status", {});
  showBudget(status);
  drawCategories($("chart"), await callOperation(PLUGIN, "overview", { period: "month" }));
  await refreshOverview();
  await refreshGoals();
  await refreshTransactions();
  document.body.dataset.ready = "true";
}

async function start() {
  const me = await startPage({ status: $("status") });
  if (!me) return;
  for (const id of ["budget-section", "add-section", "import-section", "fio-section", "chart-section", "overview-section", "goals-section",
    "list-section", "settings-section", "tutorial-section"]) {
    $(id).hidden = false;
  }
  try {
    await readHostClock();
    $("date").value = today();
    let settings = await callOperation(PLUGIN, "settings-get", {});
    // The module writes its notifications, and names what a bank statement leaves unnamed, in
    // its own language setting: the one the person reads the page in.
    if (settings.language !== language()) settings = await callOperation(PLUGIN, "settings-set", { language: language() });
    currency = settings.currency;
    await proposeCurrency(settings, await callOperation(PLUGIN, "budget-status", {}));
    fillCurrencies();
    // The module has the tutorial in English, Slovak and Czech: the page asks for its own language.
    tutorial = { pages: (await callOperation(PLUGIN, "tutorial", { language: language() })).pages, at: 0 };
    showTutorialPage();
    const { names } = await callOperation(PLUGIN, "categories-list", {});
    for (const name of names) $("category").append(el("option", { value: name }, categoryName(name)));
    const { accounts } = await callOperation(PLUGIN, "accounts-list", {});
    await startStatements({ amount, categoryName, accounts, changed: refresh });
    await refresh();
  } catch (error) {
    $("status").textContent = errorText(error);
    return;
  }

  $("currency-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    clearError({ form, output: $("currency-error") });
    try {
      ({ currency } = await callOperation(PLUGIN, "settings-set", { currency: $("currency").value, confirm: true }));
    } catch (error) {
      showError(error, { form, output: $("currency-error") });
      return;
    }
    const names = new Intl.DisplayNames([language()], { type: "currency" });
    $("status").textContent = t("settings.changed", { currency: names.of(currency) });
    await refresh();
  });

  $("tutorial-next").addEventListener("click", () => {
    tutorial.at = (tutorial.at + 1) % tutorial.pages.length;
    showTutorialPage();
  });
  $("period").addEventListener("change", async () => {
    try { await refreshOverview(); } catch (error) { $("status").textContent = errorText(error); }
  });
  $("add-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const input = Object.fromEntries(new FormData(form).entries());
    input.amount = withoutGrouping(input.amount);
    if (!input.date) delete input.date;
    $("add-error").textContent = "";
    $("status").textContent = "";
    try {
      await callOperation(PLUGIN, "transaction-add", input);
    } catch (error) {
      showError(error, { form, output: $("add-error") });
      return;
    }
    for (const control of form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
    form.reset();
    $("date").value = today();
    $("status").textContent = t("add.done", { name: input.name });
    try { await refresh(); } catch (error) { $("status").textContent = errorText(error); }
  });
}

start();
