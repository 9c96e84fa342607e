// compute.js: the page's end of the compute worker (worker.js), which
// runs the kernels and the exporters on a thread of their own. The worker
// starts when start() is first called: main.js calls it once the frame
// has drawn its first scene, so its wasm is not fetched or compiled
// while the scene's frame starts.
//
//   await compute.call("compute", {hash, backend, hideAnswers}) // the results panel
//   await compute.call("export", {hash, format, step, width, height}) // → Uint8Array
//   await compute.call("devices") / ("run", {kernel, a, shape, …}) / ("memStats")
//
// Each call is stridelab's method of that name (package jsapi) in the
// worker; it rejects with an Error whose message is the wasm's one line.
let worker;
let seq = 0;
const waiting = new Map(); // id → {resolve, reject}

// start makes the worker (once).
export function start() {
  if (worker) return;
  worker = new Worker("worker.js");
  worker.onmessage = ({ data: { id, result, error } }) => {
    const w = waiting.get(id);
    waiting.delete(id);
    if (error !== undefined) w.reject(new Error(error));
    else w.resolve(result);
  };
  worker.onerror = (e) => {
    const err = new Error(`the compute worker failed: ${e.message || "it did not start"}`);
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
}

// call asks the worker for stridelab[method](req); transfer lists the
// ArrayBuffers to move rather than copy (a run's input).
export function call(method, req = {}, transfer = []) {
  start();
  const id = ++seq;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, method, req }, transfer);
  });
}
