// worker.js: the playground's compute worker. It runs stridelab.wasm
// (wasm/main.go: every method of package jsapi) on a thread of its own,
// so the kernels that compute the results panel and the renderers that
// draw an export never hold up the scene's frame, whose thread the page
// shares; and the frame's wasm (playground.wasm) can leave them out and
// start sooner. compute.js, in the page, is the other end.
//
// A message {id, method, req} calls stridelab[method](req) and answers
// {id, result} (typed arrays' buffers transferred, not copied) or {id,
// error: the message}. The first message is answered once the wasm has
// started; calls made before then wait for it.
"use strict";
importScripts("wasm_exec.js");

const started = (async () => {
  const go = new Go();
  const ready = new Promise((resolve) => { self.stridelabReady = resolve; });
  const result = await WebAssembly.instantiateStreaming(fetch("stridelab.wasm"), go.importObject);
  // The WebGPU binding's WriteBuffer reads Go's memory through
  // globalThis.wasm.instance (as in kernels.js and frame.js).
  self.wasm = result;
  go.run(result.instance);
  await ready;
})();

// buffers lists the ArrayBuffers of the typed arrays in a result (its
// data, an export's bytes), to transfer them to the page.
function buffers(v, out = []) {
  if (ArrayBuffer.isView(v)) out.push(v.buffer);
  else if (v && typeof v === "object") for (const x of Object.values(v)) buffers(x, out);
  return out;
}

self.onmessage = async ({ data: { id, method, req } }) => {
  try {
    await started;
    const fn = self.stridelab[method];
    if (typeof fn !== "function") throw new Error(`stridelab.${method}: no such method`);
    const result = await fn(req);
    self.postMessage({ id, result }, buffers(result));
  } catch (e) {
    self.postMessage({ id, error: e?.message ?? String(e) });
  }
};
