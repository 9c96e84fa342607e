// frame.js: boots playground.wasm (wasm/playground) in the playground's
// scene frame. Ebitengine makes its canvas in this document; the page
// (index.html) reaches globalThis.stridelab and stridelab.frame through
// this window once frameReady resolves.
"use strict";

// The page loads this frame as soon as it parses it, without a hash: the
// frame starts on the page's (the wasm reads its own location.hash).
if (!location.hash && window.parent !== window) history.replaceState(null, "", window.parent.location.hash);

// The marks (performance.getEntriesByType("mark")) time the start: the
// wasm fetched and compiled, then Go's main reached stridelab.frame; the
// first drawn scene is globalThis.stridelabFirstDraw.
globalThis.frameReady = new Promise((resolve, reject) => {
  globalThis.stridelabFrameReady = () => { performance.mark("stridelab-frame-ready"); resolve(); }; // the wasm calls it once stridelab.frame is there
  const go = new Go();
  WebAssembly.instantiateStreaming(fetch("playground.wasm"), go.importObject).then((result) => {
    performance.mark("stridelab-wasm-compiled");
    // The WebGPU binding's WriteBuffer reads Go's memory through
    // globalThis.wasm.instance.
    globalThis.wasm = result;
    go.run(result.instance).then(() => reject(new Error("the scene frame's wasm exited")));
  }, reject);
});

// A click on the scene gives it the keyboard (space plays, arrows step,
// + and - zoom, shift+arrows pan, escape unpins).
window.addEventListener("pointerdown", () => {
  window.focus();
  document.querySelector("canvas")?.focus();
});
