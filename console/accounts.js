// The operator's "Accounts": who may sign in to this device, and a form to add someone
// (GET/POST /v1/accounts, DELETE /v1/accounts/{name}; admins only).

import { request } from "./api.js";
import { el, clear } from "./dom.js";
import { t } from "./i18n.js";
import { showError, clearError, errorText } from "./errors.js";

export async function startAccounts({ list, form, output, me }) {
  async function refresh() {
    const { accounts } = await request("GET", "/v1/accounts");
    clear(list);
    for (const account of accounts) {
      const role = t(account.role === "admin" ? "accounts.roleAdmin" : "accounts.roleUser");
      const item = el("li", { "data-account": account.name }, el("span", {}, t("accounts.row", { name: account.name, role })));
      if (account.name.toLowerCase() !== me.name.toLowerCase()) {
        const remove = el("button", { type: "button", class: "secondary" }, t("accounts.remove"));
        remove.setAttribute("aria-label", t("accounts.removeLabel", { name: account.name }));
        remove.addEventListener("click", async () => {
          if (!window.confirm(t("accounts.confirmRemove", { name: account.name }))) return;
          try { await request("DELETE", `/v1/accounts/${encodeURIComponent(account.name)}`); await refresh(); } catch (error) {
            output.textContent = errorText(error);
          }
        });
        item.append(" ", remove);
      }
      list.append(item);
    }
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearError({ form, output });
    const fields = Object.fromEntries(new FormData(form).entries());
    try {
      await request("POST", "/v1/accounts", { name: fields.name.trim(), password: fields.password, role: fields.role });
      form.reset();
      output.textContent = t("accounts.added", { name: fields.name.trim() });
      await refresh();
    } catch (error) {
      showError(error, { form, output });
    }
  });
  await refresh();
}
