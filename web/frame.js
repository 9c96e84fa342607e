// frame.js: boots playground.wasm (wasm/playground) in the playground's
// scene frame. Ebitengine makes its canvas in this document; the page
// (index.html) reaches globalThis.stridelab and stridelab.frame through
// this window once frameReady resolves.
"use strict";

globalThis.frameReady = new Promise((resolve, reject) => {
  globalThis.stridelabFrameReady = resolve; // called by the wasm once stridelab.frame is there
  const go = new Go();
  WebAssembly.instantiateStreaming(fetch("playground.wasm"), go.importObject).then((result) => {
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
