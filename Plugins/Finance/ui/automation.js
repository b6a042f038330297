// The finance page's "Repeating and rules" part: transactions that repeat (rent, salary), and the
// rules that put what comes from the bank in a category — each rule shown against what is
// recorded before it is saved.

import { el, clear } from "/console/dom.js";
import { date } from "/console/format.js";
import { errorText } from "/console/errors.js";
import { $, call, state, t, amount, categoryName, withoutGrouping, onSubmit, formInput, today } from "./common.js";

// MARK: Repeating transactions

function repeatText(item) {
  const every = t(`recurring.every.${item.every}`, { count: item.interval });
  const until = item.until ? t("recurring.untilDay", { day: date(item.until) }) : "";
  const value = item.kind === "expense" ? amount(-Number(item.amount)) : `+${amount(item.amount)}`;
  return t("recurring.line", { name: item.name, amount: value, category: categoryName(item.category), every, start: date(item.start), until });
}

export async function refreshRecurring() {
  const { recurring } = await call("recurring-list", {});
  const list = $("recurring-list");
  clear(list);
  if (recurring.length === 0) list.append(el("li", { class: "muted" }, t("recurring.none")));
  for (const item of recurring) {
    const stop = el("button", { type: "button", class: "secondary" }, t("recurring.stop"));
    stop.setAttribute("aria-label", t("recurring.stopLabel", { name: item.name }));
    stop.addEventListener("click", async () => {
      try {
        await call("recurring-delete", { id: item.id });
      } catch (error) {
        $("status").textContent = errorText(error);
        return;
      }
      await refreshRecurring();
      $("status").textContent = t("recurring.stopped", { name: item.name });
    });
    list.append(el("li", {}, repeatText(item), " ", stop));
  }
}

// MARK: Rules

function ruleText(rule) {
  const conditions = [];
  if (rule.match) conditions.push(t("rules.when.match", { words: rule.match }));
  if (rule.payee) conditions.push(t("rules.when.payee", { words: rule.payee }));
  if (rule.kind) conditions.push(t(`rules.when.${rule.kind}`));
  if (rule.account) conditions.push(t("rules.when.account", { account: rule.account }));
  if (rule.minAmount) conditions.push(t("rules.when.min", { amount: amount(rule.minAmount) }));
  if (rule.maxAmount) conditions.push(t("rules.when.max", { amount: amount(rule.maxAmount) }));
  return t("rules.line", { conditions: conditions.join(t("rules.and")), category: categoryName(rule.category) });
}

export async function refreshRules() {
  const { rules } = await call("category-rules-list", {});
  const list = $("rule-list");
  clear(list);
  if (rules.length === 0) list.append(el("li", { class: "muted" }, t("rules.none")));
  for (const rule of rules) {
    const remove = el("button", { type: "button", class: "secondary" }, t("rules.delete"));
    remove.setAttribute("aria-label", t("rules.deleteLabel", { rule: ruleText(rule) }));
    remove.addEventListener("click", async () => {
      await call("category-rule-delete", { id: rule.id });
      await refreshRules();
      $("status").textContent = t("rules.deleted");
    });
    list.append(el("li", {}, ruleText(rule), " ", remove));
  }
}

/** The rule being written, as the module takes it (amounts without grouping marks). */
function ruleInput() {
  const input = formInput($("rule-form"));
  for (const key of ["minAmount", "maxAmount"]) if (input[key]) input[key] = withoutGrouping(input[key]);
  return input;
}

/** Shows, while the person writes the rule, how many recorded transactions it holds for. */
async function previewRule() {
  const input = ruleInput();
  delete input.applyToExisting;
  const conditions = ["match", "payee", "kind", "minAmount", "maxAmount"].some((key) => input[key]);
  if (!conditions) { $("rule-preview").textContent = ""; return; }
  try {
    const test = await call("category-rule-test", input);
    const names = test.transactions.slice(0, 3).map((item) => item.name).join(", ");
    $("rule-preview").textContent = test.count === 0 ? t("rules.previewNone") : t("rules.preview", { count: test.count, names });
  } catch {
    $("rule-preview").textContent = "";  // a half-written amount: the form says why when it is sent
  }
}

export function startAutomation() {
  $("recurring-start").value = today();
  onSubmit($("recurring-form"), $("recurring-error"), (fields) => {
    const input = { ...fields, amount: withoutGrouping(fields.amount), interval: Number(fields.interval || 1) };
    return call("recurring-add", input);
  }, async (item) => {
    $("recurring-form").reset();
    $("recurring-start").value = today();
    await refreshRecurring();
    await state.changed();
    return t("recurring.added", { name: item.name });
  });
  for (const control of $("rule-form").elements) control.addEventListener("change", previewRule);
  onSubmit($("rule-form"), $("rule-error"), () => call("category-rule-add", ruleInput()), async (answer) => {
    $("rule-form").reset();
    $("rule-preview").textContent = "";
    await refreshRules();
    if (answer.applied) await state.changed();
    return answer.applied ? t("rules.savedApplied", { count: answer.applied }) : t("rules.saved");
  });
}
