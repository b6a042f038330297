// Export (UC32) on the baby diary's page: the record types ticked go into a PDF (`export`, format
// pdf), which is then fetched from `export-download` — the download route hands an export only to
// the one who asked for it, with the page's token in the Authorization header (never in a URL) —
// and offered as a download link (a data: URL, as the vCard is; the host's content policy governs
// images and scripts, not links). With an address in "E-mail to" the PDF is also mailed there
// through the hub (`export`'s `email`), and the page says to whom it was queued.

import { callOperation, authHeaders, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);

/** The PDF's bytes as a data: URL. */
async function fetchPDF(path) {
  const response = await fetch(path, { headers: authHeaders(), cache: "no-store" });
  if (!response.ok) {
    const json = await response.json().catch(() => null);
    const error = (json && json.error) || { code: "http_" + response.status, message: response.statusText };
    throw new APIError(response.status, error.code, error.message, error.field);
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
    const result = $("export-result");
    clear(result);
    const sections = [...document.querySelectorAll("#export-form input[type=checkbox]:checked")].map((box) => box.value);
    try {
      result.append("Exporting…");
      const email = $("export-email").value.trim();
      const input = { childId: childId(), sections, format: "pdf" };
      if (email) input.email = email;
      const { pdf, mail } = await callOperation(PLUGIN, "export", input);
      const url = await fetchPDF(pdf.download);
      clear(result);
      if (mail) result.append(el("span", { class: "export-mailed" }, `E-mailed to ${mail.to} (queued at the hub). `));
      result.append(el("a", { class: "export-pdf", download: pdf.fileName, href: url }, `Download ${pdf.fileName}`), ` (${Math.round(pdf.size / 1024)} kB)`);
      $("status").textContent = mail ? `Export e-mailed to ${mail.to}.` : "Export ready.";
    } catch (error) {
      clear(result);
      $("status").textContent = error instanceof APIError ? error.message : String(error);
    }
  });
}
