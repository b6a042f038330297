// Photos on the baby diary's page: uploaded as the request body of `photo-upload`, and shown
// through `photo-get`. A person's session cookie goes with every request; an operator's token
// travels only in the Authorization header (never in a URL), so an image is fetched with it and
// shown as a data: URL (the host's content policy allows img-src 'self' data:, not blob:).

import { authHeaders, APIError } from "/console/api.js";
import { el } from "/console/dom.js";
import { t } from "/console/i18n.js";

const OPS = "/v1/plugins/cz.tessera.baby/ops/";

/** Stores a photo file (a File from an <input type=file>) and answers its address. */
export async function uploadPhoto(file) {
  const response = await fetch(OPS + "photo-upload", {
    method: "POST", headers: authHeaders({ "Content-Type": file.type || "application/octet-stream" }), body: file, cache: "no-store",
    credentials: "same-origin",
  });
  const json = await response.json().catch(() => null);
  if (!response.ok) {
    const error = (json && json.error) || { code: "http_" + response.status, message: response.statusText };
    throw new APIError(response.status, error.code, error.message, error.field, undefined, error.reason);
  }
  return json.address;
}

/** An <img> that shows the photo at `address` once its bytes have arrived. */
export function photoImage(address, alt) {
  const image = el("img", { alt, class: "baby-photo", width: 96, height: 96, "data-address": address });
  fetch(OPS + "photo-get?address=" + encodeURIComponent(address), { headers: authHeaders(), cache: "no-store", credentials: "same-origin" })
    .then((response) => (response.ok ? response.blob() : Promise.reject(new Error("photo " + response.status))))
    .then((blob) => new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(blob);
    }))
    .then((url) => { image.src = url; })
    .catch(() => { image.alt = t("photos.unavailable", { alt }); });
  return image;
}
