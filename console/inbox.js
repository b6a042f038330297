// The notification inbox: the newest entries from GET /v1/notifications, then new ones as they
// arrive over the SSE stream; each can be marked read.

import { request } from "./api.js";
import { el, clear } from "./dom.js";
import { openStream } from "./sse.js";
import { t } from "./i18n.js";
import { dateTime } from "./format.js";
import { notificationText } from "./notification-text.js";

/**
 * Loads the inbox and keeps it live. `plugins` (GET /v1/plugins) name each entry's module and
 * give the catalogue its text is written from. Returns a function that stops the stream.
 */
export async function startInbox({ list, empty, status, markAll, plugins = [] }) {
  const shown = new Map();
  const pages = new Map(plugins.filter((p) => p.ui).map((p) => [p.id, p.ui.url]));
  const names = new Map(plugins.filter((p) => p.ui).map((p) => [p.id, p.ui.titles?.[document.documentElement.lang] || p.ui.title]));

  async function show(entry, { prepend }) {
    if (shown.has(entry.id)) return;
    shown.set(entry.id, null);
    const item = render(entry, await notificationText(entry, pages));
    shown.set(entry.id, item);
    if (prepend) list.prepend(item); else list.append(item);
    empty.hidden = true;
  }

  function render(entry, text) {
    const read = el("button", { type: "button", class: "secondary" }, t("inbox.markRead"));
    read.setAttribute("aria-label", t("inbox.markReadLabel", { title: text.title }));
    read.hidden = Boolean(entry.readAt);
    read.addEventListener("click", async () => {
      await request("POST", "/v1/notifications/read", { ids: [entry.id] });
      item.classList.remove("unread");
      read.hidden = true;
    });
    const when = dateTime(entry.deliveredAt);
    const priority = entry.priority && entry.priority !== "normal" ? entry.priority : null;
    const classes = [entry.readAt ? "" : "unread", priority ? `priority-${priority}` : ""].filter(Boolean).join(" ");
    const item = el("li", { class: classes, "data-id": entry.id, "data-priority": entry.priority || "normal" },
      el("div", {},
        priority ? el("span", { class: "priority" }, t(`inbox.priority.${priority}`)) : null,
        el("div", { class: "title" }, text.title),
        text.body ? el("div", { class: "body" }, text.body) : null,
        el("div", { class: "meta" }, [names.get(entry.plugin) || t("inbox.otherModule"), when, entry.late ? t("inbox.late") : null]
          .filter(Boolean).join(" · "))),
      read);
    return item;
  }

  markAll.addEventListener("click", async () => {
    await request("POST", "/v1/notifications/read", { all: true });
    for (const item of shown.values()) {
      if (!item) continue;  // still being written
      item.classList.remove("unread");
      item.querySelector("button").hidden = true;
    }
  });

  clear(list);
  const page = await request("GET", "/v1/notifications?limit=50");
  for (const entry of page.notifications) await show(entry, { prepend: false });
  empty.hidden = page.notifications.length > 0;
  const newest = page.notifications.reduce((max, entry) => Math.max(max, entry.id), 0);

  // Resume right after the newest entry shown, so nothing delivered in between is missed.
  return openStream({
    lastEventId: `n-${newest}`,
    onStatus: (state) => { status.textContent = t(`inbox.stream.${state}`); status.dataset.state = state; },
    onMessage: (message) => { if (message.event === "notification") show(message.data, { prepend: true }); },
  });
}
