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

// While the scene is still the frame's loop sleeps, and so does this
// page's. Ebitengine's loop asks for every animation frame even when it
// has nothing to run: each one a call into the wasm and a frame for the
// compositor, some 15% of a core on SwiftShader for a page that shows
// nothing new. Once the app says it sleeps (stridelabSleep(true), at the
// end of each tick that leaves nothing moving: app/live's OnSleep) the
// next animation frame it asks for waits for input in this document, a
// wake from the app (a Post: a call from the page), or wakeAfter at the
// latest.
const wakeAfter = 500; // ms
const nextFrame = window.requestAnimationFrame.bind(window);
let asleep = false;
let held = null; // the callback held back while asleep
let heldTimer = 0;
let frames = 0; // animation frames the loop has been given (the tests read it)
globalThis.stridelabLoopFrames = () => frames;
window.requestAnimationFrame = (callback) => {
  const counted = (t) => { frames++; callback(t); };
  if (!asleep) return nextFrame(counted);
  held = counted;
  clearTimeout(heldTimer);
  heldTimer = setTimeout(release, wakeAfter);
  return 0;
};
// release runs the held callback at the next animation frame: asleep
// stays set, so the loop's next request is held again unless the app ran
// a tick and found something moving.
function release() {
  clearTimeout(heldTimer);
  if (held) nextFrame(held);
  held = null;
}
function wake() {
  asleep = false;
  release();
}
globalThis.stridelabSleep = (sleeps) => { if (sleeps) asleep = true; else wake(); };
for (const type of ["pointerdown", "pointermove", "pointerup", "pointercancel", "wheel", "keydown", "keyup",
  "touchstart", "touchmove", "touchend", "focus", "blur", "resize", "visibilitychange"]) {
  window.addEventListener(type, wake, true);
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
