// Reads GET /v1/stream (Server-Sent Events) with fetch, not EventSource: EventSource cannot send
// an Authorization header, and the token must not go into the URL. Parses the text/event-stream
// format, and on a broken connection reconnects with Last-Event-ID, so nothing is missed.

import { authHeaders } from "./api.js";

/**
 * Opens the stream. `onMessage({event, id, data})` gets each message (data parsed as JSON);
 * `onStatus(text)` hears "live", "reconnecting" or "stopped". Returns a function that closes it.
 * `lastEventId` resumes after a position the page already has (e.g. "n-12").
 */
export function openStream({ onMessage, onStatus, lastEventId }) {
  let position = lastEventId || null;
  let stopped = false;
  let controller = null;
  let retryMs = 3000;

  async function connect() {
    while (!stopped) {
      controller = new AbortController();
      try {
        const headers = authHeaders({ Accept: "text/event-stream" });
        if (position) headers["Last-Event-ID"] = position;
        const response = await fetch("/v1/stream", { headers, signal: controller.signal, cache: "no-store" });
        if (response.status === 401) { onStatus("stopped"); return; }
        if (!response.ok || !response.body) throw new Error("stream answered " + response.status);
        onStatus("live");
        await read(response.body.getReader());
      } catch (error) {
        if (stopped) return;
      }
      onStatus("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }

  async function read(reader) {
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  // One block of lines: "field: value"; a line starting with ":" is a comment (keep-alive).
  function dispatch(block) {
    const message = { event: "message", id: null, data: "" };
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") message.event = value;
      else if (field === "id") message.id = value;
      else if (field === "data") message.data += (message.data ? "\n" : "") + value;
      else if (field === "retry" && /^\d+$/.test(value)) retryMs = Number(value);
    }
    if (message.id) position = message.id;
    if (!message.data) return;
    try { message.data = JSON.parse(message.data); } catch { /* leave the text */ }
    onMessage(message);
  }

  connect();
  return () => {
    stopped = true;
    if (controller) controller.abort();
    onStatus("stopped");
  };
}
