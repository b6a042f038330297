// The notification inbox: the newest entries from GET /v1/notifications, then new ones as they
// arrive over the SSE stream; each can be marked read.

import { request } from "./api.js";
import { el, clear } from "./dom.js";
import { openStream } from "./sse.js";
import { t } from "./i18n.js";
import { dateTime } from "./format.js";

/** Loads the inbox and keeps it live. Returns a function that stops the stream. */
export async function startInbox({ list, empty, status, markAll }) {
  const shown = new Map();

  function show(entry, { prepend }) {
    if (shown.has(entry.id)) return;
    const item = render(entry);
    shown.set(entry.id, item);
    if (prepend) list.prepend(item); else list.append(item);
    empty.hidden = true;
  }

  function render(entry) {
    const read = el("button", { type: "button", class: "secondary" }, t("inbox.markRead"));
    read.setAttribute("aria-label", t("inbox.markReadLabel", { title: entry.title }));
    read.hidden = Boolean(entry.readAt);
    read.addEventListener("click", async () => {
      await request("POST", "/v1/notifications/read", { ids: [entry.id] });
      item.classList.remove("unread");
      read.hidden = true;
    });
    const when = dateTime(entry.deliveredAt);
    const item = el("li", { class: entry.readAt ? "" : "unread", "data-id": entry.id },
      el("div", {},
        el("div", { class: "title" }, entry.title),
        entry.body ? el("div", {}, entry.body) : null,
        el("div", { class: "meta" }, [entry.pluginName || entry.plugin, when, entry.late ? t("inbox.late") : null].filter(Boolean).join(" · "))),
      read);
    return item;
  }

  markAll.addEventListener("click", async () => {
    await request("POST", "/v1/notifications/read", { all: true });
    for (const item of shown.values()) {
      item.classList.remove("unread");
      item.querySelector("button").hidden = true;
    }
  });

  clear(list);
  const page = await request("GET", "/v1/notifications?limit=50");
  for (const entry of page.notifications) show(entry, { prepend: false });
  empty.hidden = page.notifications.length > 0;
  const newest = page.notifications.reduce((max, entry) => Math.max(max, entry.id), 0);

  // Resume right after the newest entry shown, so nothing delivered in between is missed.
  return openStream({
    lastEventId: `n-${newest}`,
    onStatus: (state) => { status.textContent = t(`inbox.stream.${state}`); status.dataset.state = state; },
    onMessage: (message) => { if (message.event === "notification") show(message.data, { prepend: true }); },
  });
}
