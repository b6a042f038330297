// The finance module's page: this month's budget, a form to add a transaction, the month's
// spending by category as the module's own SVG chart (operation chart-svg, deterministic and
// accessible), and the newest transactions. It calls the module through the console's API client
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

async function refresh() {
  const settings = await callOperation(PLUGIN, "settings-get", {});
  $("budget").textContent = budgetText(await callOperation(PLUGIN, "budget-status", {}), settings.currency);
  const { svg } = await callOperation(PLUGIN, "chart-svg", { kind: "categories" });
  // The SVG is the module's own output, built from escaped text: parsed as SVG, never as HTML.
  const parsed = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
  clear($("chart"));
  $("chart").append(document.importNode(parsed, true));
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
  for (const id of ["budget-section", "add-section", "chart-section", "list-section"]) $(id).hidden = false;
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
