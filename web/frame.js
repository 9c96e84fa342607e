// frame.js: boots playground.wasm (wasm/playground) in the playground's
// scene frame. Ebitengine makes its canvas in this document; the page
// (index.html) reaches globalThis.stridelab and stridelab.frame through
// this window once frameReady resolves.
"use strict";

// The page loads this frame as soon as it parses it, without a hash: the
// frame starts on the page's (the wasm reads its own location.hash).
if (!location.hash && window.parent !== window) history.replaceState(null, "", window.parent.location.hash);

// stillShown waits, before the frame so much as asks for its wasm, for
// the page's still of the scene (still.js) to be shown or to be known
// not to come, at most stillWait: fetching, decoding and compiling the
// wasm takes the page's thread (and, on a small machine, its cores) for
// a second or more, and a still that arrived meanwhile would wait behind
// it. The page makes stridelabStillSettled in its head, before this
// frame exists. A frame opened on its own, or in a page of another
// origin, has no still to wait for.
const stillWait = 2000;
async function stillShown() {
  let settled;
  try {
    settled = window.parent !== window && window.parent.stridelabStillSettled;
  } catch { /* a parent of another origin: no still */ }
  if (settled) await Promise.race([settled, new Promise((r) => setTimeout(r, stillWait))]);
}

// The marks (performance.getEntriesByType("mark")) time the start: the
// still settled and the wasm asked for, the wasm fetched and compiled,
// then Go's main reached stridelab.frame; the first drawn scene is
// globalThis.stridelabFirstDraw.
globalThis.frameReady = new Promise((resolve, reject) => {
  globalThis.stridelabFrameReady = () => { performance.mark("stridelab-frame-ready"); resolve(); }; // the wasm calls it once stridelab.frame is there
  const go = new Go();
  stillShown().then(() => {
    performance.mark("stridelab-wasm-asked");
    return WebAssembly.instantiateStreaming(fetch("playground.wasm"), go.importObject);
  }).then((result) => {
    performance.mark("stridelab-wasm-compiled");
    globalThis.wasm = result;
    go.run(result.instance).then(() => reject(new Error("the scene frame's wasm exited")));
  }, reject);
});

// The canvas Ebitengine makes (tabindex 1, no name) takes its place in
// the page's Tab order (tabindex 0) and is named for a screen reader: an
// application, so the arrow keys reach the scene rather than the reader's
// own browsing keys; its label is the scene's title (the page keeps it in
// sync: nameScene) and its description the keys it takes. It is not
// aria-hidden: it has the keyboard, and what its focused cell means is
// the page's live region (#scene-status).
let sceneTitle = "";
globalThis.nameScene = (title) => {
  sceneTitle = title;
  const canvas = document.querySelector("canvas");
  if (canvas && canvas.getAttribute("aria-label") !== title) canvas.setAttribute("aria-label", title);
};
new MutationObserver((_, observer) => {
  const canvas = document.querySelector("canvas");
  if (!canvas) return;
  observer.disconnect();
  canvas.setAttribute("tabindex", "0");
  canvas.setAttribute("role", "application");
  canvas.setAttribute("aria-roledescription", "scene");
  canvas.setAttribute("aria-describedby", "scene-keys");
  nameScene(sceneTitle || document.title);
}).observe(document.documentElement, { childList: true, subtree: true });

// A click on the scene gives it the keyboard (the arrows walk the cells,
// enter pins, escape unpins, space plays, , and . step, + and - zoom,
// shift+arrows pan). So does Tab: when the frame gets the focus, its
// canvas (where Ebitengine reads the keys) takes it, so the arrows work
// at once.
window.addEventListener("pointerdown", () => {
  window.focus();
  document.querySelector("canvas")?.focus();
});
window.addEventListener("focus", () => {
  const canvas = document.querySelector("canvas");
  if (canvas && document.activeElement !== canvas) canvas.focus();
  window.frameElement?.classList.add("has-keyboard");
});
// The page draws a focus ring around the frame while it has the keyboard
// (the iframe element itself does not match :focus once its document has
// the focus).
window.addEventListener("blur", () => window.frameElement?.classList.remove("has-keyboard"));

// Tab leaves the scene for the page's next control (shift+Tab for the one
// before it), so the frame is never a keyboard trap: the scene keeps the
// other keys. Caught before Ebitengine sees it.
window.addEventListener("keydown", (e) => {
  if (e.key !== "Tab" || window.parent === window) return;
  e.preventDefault();
  e.stopImmediatePropagation();
  const doc = window.parent.document;
  const frame = window.frameElement;
  const all = [...doc.querySelectorAll("a[href], button, input, select, textarea, iframe, [tabindex]:not([tabindex='-1'])")]
    .filter((el) => !el.disabled && !el.hidden && el.offsetParent !== null);
  const at = all.indexOf(frame);
  const next = all[e.shiftKey ? at - 1 : at + 1];
  if (next) next.focus();
}, true);
