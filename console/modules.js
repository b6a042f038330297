// The end user's view: the pages each plugin offers (its manifest's "ui"), linked by title.

import { el, clear } from "./dom.js";

export function renderModules(list, empty, plugins) {
  clear(list);
  const withPages = plugins.filter((plugin) => plugin.ui);
  for (const plugin of withPages) {
    list.append(el("li", {}, el("a", { href: plugin.ui.url }, plugin.ui.title), ` — ${plugin.name || plugin.id}`));
  }
  empty.hidden = withPages.length > 0;
}
