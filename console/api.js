// The console's client of the Tessera HTTP API (docs/http.md), also used by the modules' pages.
// The token lives in sessionStorage (this tab only) and travels only in the Authorization header:
// never in a URL, where it would end up in logs and history.

const TOKEN_KEY = "tessera.token";

/** The stored token, or null. */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Keeps the token for this tab. */
export function setToken(value) {
  sessionStorage.setItem(TOKEN_KEY, value);
}

/** Forgets the token (sign out, or the host refused it). */
export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** An error answer of the API: {code, message, field?} and the HTTP status. */
export class APIError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/** Headers for an API request with the token. */
export function authHeaders(extra = {}) {
  const headers = { ...extra };
  const value = token();
  if (value) headers.Authorization = `Bearer ${value}`;
  return headers;
}

/**
 * Sends a request and returns the JSON answer; throws APIError for an error answer. A 401 forgets
 * the token and tells the page (event "tessera:unauthorized"), which asks for it again.
 */
export async function request(method, path, body) {
  const options = { method, headers: authHeaders(), cache: "no-store" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!response.ok) {
    if (response.status === 401) {
      forgetToken();
      window.dispatchEvent(new CustomEvent("tessera:unauthorized"));
    }
    const error = json && json.error ? json.error : { code: "http_" + response.status, message: text || response.statusText };
    throw new APIError(response.status, error.code, error.message, error.field);
  }
  return json;
}

/** Calls a plugin's operation with an input object. */
export function callOperation(plugin, operation, input) {
  return request("POST", `/v1/plugins/${encodeURIComponent(plugin)}/ops/${encodeURIComponent(operation)}`, input);
}
