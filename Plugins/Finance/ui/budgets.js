// The finance page's "Budgets and goals" part: the month's budget set or removed, a limit per
// category (rolling what a month leaves into the next, if chosen) with its months one by one, and
// the savings goals — made, added to, deleted.

import { el, clear } from "/console/dom.js";
import { month, dateTime } from "/console/format.js";
import { errorText } from "/console/errors.js";
import { $, call, state, t, amount, categoryName, withoutGrouping, onSubmit } from "./common.js";

const percent = (value) => new Intl.NumberFormat(document.documentElement.lang).format(Number(value));

// MARK: The month's budget and the limits

export async function refreshBudgets(status) {
  $("budget-current").textContent = status.isSet
    ? t(status.repeatMonthly ? "budgetForm.currentRepeat" : "budgetForm.current", { month: month(status.month), amount: amount(status.amount) })
    : t("budgetForm.none", { month: month(status.month) });
  $("budget-clear").hidden = !status.isSet;
  $("budget-repeat").checked = status.repeatMonthly;
  const list = $("limit-list");
  clear(list);
  if (status.categories.length === 0) list.append(el("li", { class: "muted" }, t("limitsForm.none")));
  for (const limit of status.categories) {
    const figures = { category: categoryName(limit.category), spent: amount(limit.spent), available: amount(limit.available),
      limit: amount(limit.amount), carried: amount(limit.carried), left: amount(Math.abs(Number(limit.remaining))) };
    const text = [t(limit.overspent ? "limitsForm.over" : "limitsForm.line", figures)];
    if (limit.rollover) text.push(t("limitsForm.carried", figures));
    const history = el("button", { type: "button", class: "secondary" }, t("limitsForm.history"));
    history.setAttribute("aria-label", t("limitsForm.historyLabel", { category: figures.category }));
    history.addEventListener("click", () => showHistory(limit.category));
    const remove = el("button", { type: "button", class: "secondary" }, t("limitsForm.remove"));
    remove.setAttribute("aria-label", t("limitsForm.removeLabel", { category: figures.category }));
    remove.addEventListener("click", async () => {
      await call("category-budget-clear", { category: limit.category });
      $("limit-history").hidden = true;
      await state.changed();
      $("status").textContent = t("limitsForm.removed", { category: figures.category });
    });
    list.append(el("li", { "data-category": limit.category }, text.join(" "), " ", history, " ", remove));
  }
}

async function showHistory(category) {
  const { months } = await call("category-budget-history", { category, months: 6 });
  $("limit-history-heading").textContent = t("history.heading", { category: categoryName(category) });
  const body = $("limit-history-table").querySelector("tbody");
  clear(body);
  for (const entry of months) {
    body.append(el("tr", {}, el("th", { scope: "row" }, month(entry.month)), el("td", { class: "amount" }, amount(entry.limit)),
      el("td", { class: "amount" }, amount(entry.carried)), el("td", { class: "amount" }, amount(entry.spent)),
      el("td", { class: `amount ${entry.overspent ? "expense" : ""}` }, amount(entry.left))));
  }
  $("limit-history").hidden = false;
}

// MARK: Goals

export async function refreshGoals() {
  const { goals } = await call("goals-list", {});
  const list = $("goals");
  clear(list);
  if (goals.length === 0) list.append(el("li", {}, t("goals.none")));
  for (const goal of goals) {
    const figures = { name: goal.name, duration: t(goal.duration === "annual" ? "goal.annual" : "goal.monthly"),
      saved: amount(goal.saved), target: amount(goal.target), percent: percent(goal.percent) };
    const item = el("li", { "data-goal": goal.id }, t(goal.completed ? "goal.reached" : "goal.line", figures),
      el("progress", { max: "100", value: goal.progress, "aria-label": t("goal.progress", { name: goal.name }) }));
    if (goal.completed && goal.completedAt) item.append(el("span", { class: "muted" }, t("goal.reachedOn", { when: dateTime(goal.completedAt) })));
    item.append(contributeForm(goal), deleteButton(goal));
    list.append(item);
  }
}

function contributeForm(goal) {
  const id = `contribute-${goal.id}`;
  const input = el("input", { id, name: "amount", type: "text", inputmode: "decimal", autocomplete: "off", required: "" });
  const output = el("p", { class: "error", role: "alert" });
  const form = el("form", { class: "inline-form", novalidate: "" },
    el("div", { class: "field" }, el("label", { for: id }, t("goal.contributeLabel", { name: goal.name })), input),
    el("button", { type: "submit" }, t("goal.contribute")), output);
  onSubmit(form, output, (fields) => call("goal-contribute", { id: goal.id, amount: withoutGrouping(fields.amount) }), async (answer) => {
    await state.changed();
    return t(answer.completed ? "goal.contributedReached" : "goal.contributed", { name: goal.name, saved: amount(answer.saved), target: amount(answer.target) });
  });
  return form;
}

function deleteButton(goal) {
  const button = el("button", { type: "button", class: "secondary" }, t("goal.delete"));
  button.setAttribute("aria-label", t("goal.deleteLabel", { name: goal.name }));
  let asked = false;
  button.addEventListener("click", async () => {
    // Deleting takes the contributions too: the first press asks, the second deletes.
    if (!asked) {
      asked = true;
      button.textContent = t("goal.deleteConfirm");
      return;
    }
    try {
      await call("goal-delete", { id: goal.id, confirm: true });
    } catch (error) {
      $("status").textContent = errorText(error);
      return;
    }
    await refreshGoals();
    $("status").textContent = t("goal.deleted", { name: goal.name });
  });
  return button;
}

export function startBudgets() {
  onSubmit($("budget-form"), $("budget-error"),
    (fields) => call("budget-set", { amount: withoutGrouping(fields.amount), repeatMonthly: fields.repeatMonthly }),
    async (status) => {
      $("budget-form").reset();
      await state.changed();
      return t("budgetForm.set", { month: month(status.month), amount: amount(status.amount) });
    });
  $("budget-clear").addEventListener("click", async () => {
    const status = await call("budget-clear", {});
    await state.changed();
    $("status").textContent = t("budgetForm.cleared", { month: month(status.month) });
  });
  onSubmit($("limit-form"), $("limit-error"),
    (fields) => call("category-budget-set", { category: fields.category, amount: withoutGrouping(fields.amount), rollover: fields.rollover }),
    async () => {
      const category = categoryName($("limit-category").value);
      $("limit-amount").value = "";
      await state.changed();
      return t("limitsForm.set", { category });
    });
  onSubmit($("goal-form"), $("goal-error"),
    (fields) => call("goal-create", { name: fields.name, duration: fields.duration, target: withoutGrouping(fields.target) }),
    async (goal) => {
      $("goal-form").reset();
      await refreshGoals();
      return t("goalForm.made", { name: goal.name });
    });
}
