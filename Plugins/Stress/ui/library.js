// The library and the about pages on the stress programme's page: the library's sections at any
// depth (the way back up as buttons, the section's text, its subsections), the research with its
// consent text, and the team's contacts as links a phone can call or write to. All of it is the
// content pack's, in the participant's language.

import { callOperation } from "/console/api.js";
import { t } from "/console/i18n.js";
import { errorText } from "/console/errors.js";
import { PLUGIN, $, el, clear, paragraphs } from "./common.js";

let shown = null;  // the section on screen (null: the library's start), kept across redraws

/** Shows the library section `id` (or the start), and moves there when the person asked for it. */
export async function showLibrary(id = shown, { focus = false } = {}) {
  let section;
  try {
    section = await callOperation(PLUGIN, "library", id ? { id } : {});
  } catch (error) {
    // A section the pack no longer has: back to the start, with the reason said.
    if (!id) throw error;
    shown = null;
    await showLibrary(null);
    $("library-text").prepend(el("p", { class: "error" }, errorText(error)));
    return;
  }
  shown = section.id ?? null;
  showPath(section);
  // The start needs no title of its own: the section's heading says "Library" already.
  $("library-title").textContent = section.title ?? "";
  $("library-title").hidden = !section.id;
  clear($("library-text"));
  $("library-text").append(...paragraphs(section.text));
  clear($("library-children"));
  for (const child of section.children) $("library-children").append(el("li", {}, sectionButton(child.title, child.id)));
  if (focus) (section.id ? $("library-title") : $("library-heading")).focus();
}

/** The way back: the start, then each section above this one. */
function showPath(section) {
  clear($("library-path"));
  if (!section.id) return;
  const steps = [sectionButton(t("library.start"), null), ...section.path.map((up) => sectionButton(up.title, up.id))];
  for (const step of steps) $("library-path").append(el("li", {}, step));
}

function sectionButton(title, id) {
  const button = el("button", { type: "button", class: "link-button" }, title);
  button.addEventListener("click", () => showLibrary(id, { focus: true }).catch((error) => { $("status").textContent = errorText(error); }));
  return button;
}

/** The research (the consent text among it) and the team. */
export async function showAbout() {
  const [research, team] = await Promise.all([callOperation(PLUGIN, "about-research", {}), callOperation(PLUGIN, "about-team", {})]);
  clear($("research"));
  $("research").append(...paragraphs(research.text));
  for (const section of research.subsections) $("research").append(el("h4", {}, section.name), ...paragraphs(section.text));
  clear($("team"));
  for (const category of team.categories) {
    const list = el("ul", {});
    for (const member of category.members) list.append(memberItem(member));
    $("team").append(el("h4", {}, category.name), list);
  }
}

/** A member: name, what they do, and their e-mail and phone as links. */
function memberItem(member) {
  const item = el("li", {}, el("strong", {}, member.heading));
  if (member.description) item.append(" — ", member.description);
  if (member.emailLink) item.append(el("br"), el("a", { href: member.emailLink }, member.email));
  if (member.phoneLink) item.append(el("br"), el("a", { href: member.phoneLink }, member.phone));
  return item;
}
