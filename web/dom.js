// dom.js: the few DOM helpers the playground's modules (main.js,
// lessons.js) share.

// $ is the element with that id.
export const $ = (id) => document.getElementById(id);

// show puts text in an element and shows it; hide empties and hides it.
export function show(el, text) { el.textContent = text; el.hidden = false; }
export function hide(el) { el.textContent = ""; el.hidden = true; }
