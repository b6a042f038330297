// The finance module's page: this month's budget and category limits, a form to add a
// transaction, the month's spending by category and a period's income and expenses as lines (the
// module's own SVG charts from chart-svg, deterministic and accessible, dark when the system is),
// the savings goals with their progress, the newest transactions, and the five-page tutorial. It calls the module through the console's API client
// with the token the console keeps for this tab.

import { token, callOperation, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.finance";
const $ = (id) => document.getElementById(id);

function budgetText(status, currency) {
  if (!status.isSet) return `No budget set for ${status.month}; spent ${status.spent} ${currency}.`;
  const state = status.overspent ? "over budget" : `${status.remaining} ${currency} left`;
  return `${status.month}: spent ${status.spent} of ${status.amount} ${currency} (${status.percentUsed} %), ${state}.`;
}

const theme = () => (window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");

// The SVG is the module's own output, built from escaped text: parsed as SVG, never as HTML.
function showSVG(figure, svg) {
  const parsed = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
  clear(figure);
  figure.append(document.importNode(parsed, true));
}

async function refreshOverview(currency) {
  const period = $("period").value;
  const overview = await callOperation(PLUGIN, "overview", { period });
  $("overview-totals").textContent =
    `${overview.from} to ${overview.to}: income ${overview.income}, expenses ${overview.expense}, balance ${overview.balance} ${currency}.`;
  showSVG($("line-chart"), (await callOperation(PLUGIN, "chart-svg", { kind: "line", period, theme: theme() })).svg);
}

async function refreshGoals(currency) {
  const { goals } = await callOperation(PLUGIN, "goals-list", {});
  clear($("goals"));
  if (goals.length === 0) $("goals").append(el("li", {}, "No goals yet."));
  for (const goal of goals) {
    const label = `${goal.name} (${goal.duration}): ${goal.saved} of ${goal.target} ${currency}, ${goal.progress} %${goal.completed ? ", reached" : ""}`;
    $("goals").append(el("li", {}, label, el("progress", { max: "100", value: goal.progress, "aria-label": `${goal.name} progress` })));
  }
}

let tutorial = { pages: [], at: 0 };
function showTutorialPage() {
  const page = tutorial.pages[tutorial.at];
  if (!page) return;
  $("tutorial-title").textContent = page.title;
  $("tutorial-body").textContent = page.body;
  $("tutorial-page").textContent = `Page ${page.page} of ${tutorial.pages.length}.`;
}

async function refresh() {
  const settings = await callOperation(PLUGIN, "settings-get", {});
  const status = await callOperation(PLUGIN, "budget-status", {});
  const limits = status.categories.map((c) => `${c.category}: ${c.spent} of ${c.amount}${c.overspent ? " (over)" : ""}`);
  $("budget").textContent = budgetText(status, settings.currency) + (limits.length ? ` Limits: ${limits.join("; ")}.` : "");
  showSVG($("chart"), (await callOperation(PLUGIN, "chart-svg", { kind: "categories", theme: theme() })).svg);
  await refreshOverview(settings.currency);
  await refreshGoals(settings.currency);
  const { transactions } = await callOperation(PLUGIN, "transactions-list", { limit: 20 });
  const body = $("transactions").querySelector("tbody");
  clear(body);
  for (const t of transactions) {
    body.append(el("tr", {}, el("td", {}, t.date), el("th", { scope: "row" }, t.name), el("td", {}, t.category),
      el("td", { class: t.kind }, `${t.kind === "expense" ? "−" : "+"}${t.amount} ${settings.currency}`)));
  }
  document.body.dataset.ready = "true";
}

async function start() {
  if (!token()) {
    $("status").append("Sign in on the ", el("a", { href: "/" }, "Tessera console"), " first; this page uses the same token.");
    return;
  }
  for (const id of ["budget-section", "add-section", "chart-section", "overview-section", "goals-section", "list-section", "tutorial-section"]) {
    $(id).hidden = false;
  }
  $("period").addEventListener("change", async () => {
    const { currency } = await callOperation(PLUGIN, "settings-get", {});
    await refreshOverview(currency);
  });
  tutorial = { pages: (await callOperation(PLUGIN, "tutorial", {})).pages, at: 0 };
  showTutorialPage();
  $("tutorial-next").addEventListener("click", () => {
    tutorial.at = (tutorial.at + 1) % tutorial.pages.length;
    showTutorialPage();
  });
  const { names } = await callOperation(PLUGIN, "categories-list", {});
  for (const name of names) $("category").append(el("option", { value: name }, name));
  $("add-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("add-error").textContent = "";
    const form = new FormData(event.target);
    try {
      await callOperation(PLUGIN, "transaction-add", Object.fromEntries(form.entries()));
      event.target.reset();
      $("status").textContent = "Added.";
      await refresh();
    } catch (error) {
      $("add-error").textContent = error instanceof APIError ? error.message : String(error);
    }
  });
  try { await refresh(); } catch (error) { $("status").textContent = `Could not load: ${error.message}`; }
}

start();
