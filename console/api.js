// The console's client of the Tessera HTTP API (docs/http.md), also used by the modules' pages.
// A person is signed in by the session cookie (HttpOnly: no script sees it; the browser sends it
// with every request to this host). An operator may use a token instead: it lives in
// sessionStorage (this tab only) and travels only in the Authorization header, never in a URL,
// where it would end up in logs and history.

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

/** An error answer of the API: {code, message, field?, reason?} and the HTTP status. */
export class APIError extends Error {
  constructor(status, code, message, field, retryAfter, reason) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfter = retryAfter;  // seconds, from Retry-After (429)
    this.reason = reason;          // a module's own code for the refusal (its manifest's "reasons")
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
 * the token and tells the page (event "tessera:unauthorized"), which asks to sign in again; the
 * session routes' own 401s (nobody signed in yet, a wrong password) are only thrown.
 */
export async function request(method, path, body) {
  const options = { method, headers: authHeaders(), cache: "no-store", credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!response.ok) {
    if (response.status === 401 && !path.startsWith("/v1/session")) {
      forgetToken();
      window.dispatchEvent(new CustomEvent("tessera:unauthorized"));
    }
    const error = json && json.error ? json.error : { code: "http_" + response.status, message: text || response.statusText };
    const retryAfter = Number(response.headers.get("Retry-After")) || undefined;
    throw new APIError(response.status, error.code, error.message, error.field, retryAfter, error.reason);
  }
  return json;
}

/** Calls a plugin's operation with an input object. */
export function callOperation(plugin, operation, input) {
  return request("POST", `/v1/plugins/${encodeURIComponent(plugin)}/ops/${encodeURIComponent(operation)}`, input);
}

/** Who is signed in (GET /v1/session: {name, role, via, language, hub, hubPerson}), or null. */
export async function whoIsSignedIn() {
  try { return await request("GET", "/v1/session"); } catch (error) {
    if (error instanceof APIError && error.status === 401) return null;
    throw error;
  }
}
