// Export (UC32) on the baby diary's page: the record types ticked go into a PDF (`export`, format
// pdf), which is then fetched from `export-download` — the download route hands an export only to
// the one who asked for it (the session cookie, or an operator's token in the Authorization header,
// never in a URL) — and offered as a download link (a data: URL, as the vCard is; the host's content
// policy governs images and scripts, not links). With an address in "E-mail to" the PDF is also
// mailed there through the hub (`export`'s `email`), and the page says to whom it was sent. The
// PDF and the e-mail are in the person's language (`export`'s `language`, the console's current
// one: cs, sk or en). A refusal is said under the form.

import { callOperation, authHeaders, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t, language } from "/console/i18n.js";
import { number } from "/console/format.js";
import { PLUGIN, $, clearFormError, refuse } from "./common.js";

/** The PDF's bytes as a data: URL. */
async function fetchPDF(path) {
  const response = await fetch(path, { headers: authHeaders(), cache: "no-store", credentials: "same-origin" });
  if (!response.ok) {
    const json = await response.json().catch(() => null);
    const error = (json && json.error) || { code: "http_" + response.status, message: response.statusText };
    throw new APIError(response.status, error.code, error.message, error.field, undefined, error.reason);
  }
  const blob = await response.blob();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

/** Binds the export form to the chosen child. */
export function bindExportForm(childId) {
  $("export-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const result = $("export-result");
    clear(result);
    clearFormError(form);
    const sections = [...form.querySelectorAll("input[type=checkbox]:checked")].map((box) => box.value);
    try {
      result.append(t("export.working"));
      const email = $("export-email").value.trim();
      const input = { childId: childId(), sections, format: "pdf", language: language() };
      if (email) input.email = email;
      const { pdf, mail } = await callOperation(PLUGIN, "export", input);
      const url = await fetchPDF(pdf.download);
      clear(result);
      if (mail) result.append(el("span", { class: "export-mailed" }, t("export.mailed", { to: mail.to })), " ");
      const size = t("export.size", { size: number(Math.max(1, Math.round(pdf.size / 1024)), 0) });
      result.append(el("a", { class: "export-pdf", download: pdf.fileName, href: url }, t("export.download", { file: pdf.fileName })), " ", size);
      $("status").textContent = mail ? t("export.mailedStatus", { to: mail.to }) : t("export.ready");
    } catch (error) {
      clear(result);
      refuse(form, error);
    }
  });
}
