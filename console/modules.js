// The end user's view: the pages each plugin offers (its manifest's "ui"), linked by title.

import { el, clear } from "./dom.js";
import { t } from "./i18n.js";

export function renderModules(list, empty, plugins) {
  clear(list);
  const withPages = plugins.filter((plugin) => plugin.ui);
  for (const plugin of withPages) {
    const title = plugin.ui.titles?.[document.documentElement.lang] || plugin.ui.title;
    list.append(el("li", {}, el("a", { href: plugin.ui.url }, title)));
  }
  empty.hidden = withPages.length > 0;
}
