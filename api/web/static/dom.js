// Small DOM helpers shared by every module that draws, and the switch between the page's
// two screens (the new-match form and the table).

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

/** An element with attributes and children; falsy children are skipped, arrays flattened. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") el.className = v;
    else if (k === "onclick") el.addEventListener("click", v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** Show "setup" or "table"; `body[data-screen]` lets the stylesheet tell them apart. */
export function showScreen(name) {
  $("#setup").hidden = name !== "setup";
  $("#table").hidden = name !== "table";
  document.body.dataset.screen = name;
  if (name === "setup") $("#start").focus();
}

/**
 * Tell screen-reader users something that happened without moving their focus: `text` goes to
 * the polite live region (#announcer). Each call adds its own line instead of replacing the
 * last one, so a burst (your move, then each computer's reply) is read in order; only the last
 * few lines are kept, since a live region is heard, not read back.
 */
export function announce(text) {
  const region = $("#announcer");
  if (!region || !text) return;
  region.append(h("p", {}, text));
  while (region.childElementCount > 4) region.firstElementChild.remove();
}
