// The finance module's page, in six parts (tabs, console/tabs.js): the overview — this month's
// budget and category limits, a form to add a transaction (on a day, today unless changed), the
// month's spending by category, a period's income and expenses as two lines, the newest
// transactions and the five-page tutorial; every transaction, searched, changed, split, deleted
// and exported (transactions.js); importing from the bank (statements.js); budgets, category
// limits and goals (budgets.js); repeating transactions and rules (automation.js); the currency,
// reminders, own categories and accounts (preferences.js).
//
// Every word is the person's language (ui/messages/<lang>.json), amounts, days and months are
// formatted by /console/format.js. The charts are drawn here from the `overview` operation's
// figures, not taken from `chart-svg`, whose SVG has its texts in English and its days in ISO
// form; their colours come from finance.css (light and dark), as the host's CSP wants.

import { el, clear } from "/console/dom.js";
import { startPage } from "/console/page.js";
import { t, language } from "/console/i18n.js";
import { errorText, showError } from "/console/errors.js";
import { bindTabs } from "/console/tabs.js";
import { date, month, number } from "/console/format.js";
import { $, call, state, amount, signed, categoryName, fillCategories, withoutGrouping, readHostClock, today } from "./common.js";
import { startStatements } from "./statements.js";
import { startTransactions, refreshAll } from "./transactions.js";
import { startBudgets, refreshBudgets, refreshGoals } from "./budgets.js";
import { startAutomation, refreshRecurring, refreshRules } from "./automation.js";
import { startPreferences, refreshOwn } from "./preferences.js";

const TABS = ["overview", "transactions", "import", "budgets", "automation", "settings"];
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
  const overview = await call("overview", { period: $("period").value });
  $("overview-totals").textContent = t("overview.totals", { period: periodName(overview), income: amount(overview.income),
    expense: amount(overview.expense), balance: amount(overview.balance) });
  drawLines($("line-chart"), overview);
}

// MARK: The newest transactions, the tutorial

async function refreshTransactions() {
  const { transactions } = await call("transactions-list", { limit: 20 });
  const body = $("transactions").querySelector("tbody");
  clear(body);
  if (transactions.length === 0) body.append(el("tr", {}, el("td", { colspan: "4", class: "muted" }, t("list.none"))));
  for (const item of transactions) {
    const category = item.splits ? t("split.categories", { categories: item.splits.map((part) => categoryName(part.category)).join(", ") })
      : categoryName(item.category);
    body.append(el("tr", {}, el("td", { class: "day" }, date(item.date)), el("th", { scope: "row" }, item.name),
      el("td", {}, category), el("td", { class: `amount ${item.kind === "income" ? "income" : "expense"}` }, signed(item))));
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

async function refresh() {
  const status = await call("budget-status", {});
  showBudget(status);
  await refreshBudgets(status);
  drawCategories($("chart"), await call("overview", { period: "month" }));
  await refreshOverview();
  await refreshGoals();
  await refreshTransactions();
  await refreshAll();
  await refreshRecurring();
  await refreshRules();
  await refreshOwn();
  document.body.dataset.ready = "true";
}

/** The categories and accounts into every choice that lists them (the parts' own start functions fill none). */
async function readLists() {
  state.categories = (await call("categories-list", {})).names;
  state.accounts = (await call("accounts-list", {})).accounts;
  for (const id of ["category", "edit-category", "limit-category", "recurring-category", "rule-category"]) fillCategories($(id));
  fillCategories($("filter-category"), { first: { value: "", label: t("filter.any") } });
}

async function start() {
  const me = await startPage({ status: $("status") });
  if (!me) return;
  $("tablist").hidden = $("parts").hidden = false;
  bindTabs(TABS);
  try {
    await readHostClock();
    $("date").value = today();
    let settings = await call("settings-get", {});
    // The module writes its notifications, and names what a bank statement leaves unnamed, in
    // its own language setting: the one the person reads the page in.
    if (settings.language !== language()) settings = await call("settings-set", { language: language() });
    state.currency = settings.currency;
    state.changed = async () => { await readLists(); await refresh(); };
    // The module has the tutorial in English, Slovak and Czech: the page asks for its own language.
    tutorial = { pages: (await call("tutorial", { language: language() })).pages, at: 0 };
    showTutorialPage();
    await readLists();
    await startPreferences(settings, await call("budget-status", {}));
    await startStatements();
    startTransactions();
    startBudgets();
    startAutomation();
    await refresh();
  } catch (error) {
    $("status").textContent = errorText(error);
    return;
  }

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
      await call("transaction-add", input);
    } catch (error) {
      showError(error, { form, output: $("add-error") });
      return;
    }
    for (const control of form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
    form.reset();
    $("date").value = today();
    try { await refresh(); } catch (error) { $("status").textContent = errorText(error); return; }
    // The sentence comes last, once the page shows the transaction.
    $("status").textContent = t("add.done", { name: input.name });
  });
}

start();
