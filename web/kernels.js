// kernels.js: boots stridelab.wasm and drives the kernels page
// (kernels.html). globalThis.stridelab (see wasm/main.go) returns
// Promises; nothing here blocks.
"use strict";

const $ = (id) => document.getElementById(id);

// The WebGPU binding's WriteBuffer reads Go's memory through
// globalThis.wasm.instance, so the instance is published there.
globalThis.pageReady = (async () => {
  const go = new Go();
  const ready = new Promise((resolve) => { globalThis.stridelabReady = resolve; });
  const result = await WebAssembly.instantiateStreaming(fetch("stridelab.wasm"), go.importObject);
  globalThis.wasm = result;
  go.run(result.instance);
  await ready;
  const devices = await stridelab.devices();
  $("device").textContent = devices.length
    ? `WebGPU adapter: ${devices[0].name} (max storage binding ${devices[0].limits.max_storage_buffer_binding_size} bytes)`
    : "No WebGPU adapter: the examples run on the CPU only.";
  await runExamples();
  return devices;
})();

const examples = [
  { call: "expand [4,1,3] → [4,2,3]", req: { kernel: "expand", shape: [4, 1, 3], arg: [4, 2, 3] } },
  { call: "expand [3] → [2,4,3]", req: { kernel: "expand", shape: [3], arg: [2, 4, 3] } },
  { call: "repeat [2,3] by [2,2]", req: { kernel: "repeat", shape: [2, 3], arg: [2, 2] } },
  { call: "add [3,1] + [1,4]", req: { kernel: "binary", op: "add", shape: [3, 1], bShape: [1, 4] } },
  { call: "sum [2,3,4] to [1,3,1]", req: { kernel: "reduce", op: "sum", shape: [2, 3, 4], arg: [1, 3, 1] } },
  { call: "max [2,3,4] to [2,1,4]", req: { kernel: "reduce", op: "max", shape: [2, 3, 4], arg: [2, 1, 4] } },
];

function arange(shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  return Float32Array.from({ length: n }, (_, i) => i);
}

async function runExamples() {
  const body = $("examples").tBodies[0];
  body.textContent = "";
  for (const ex of examples) {
    const req = { ...ex.req, a: arange(ex.req.shape) };
    if (req.bShape) req.b = arange(req.bShape);
    const row = body.insertRow();
    row.insertCell().textContent = ex.call;
    try {
      const [gpu, cpu] = [await stridelab.run({ ...req, backend: "gpu" }), await stridelab.run({ ...req, backend: "cpu" })];
      const same = gpu.data.length === cpu.data.length && gpu.data.every((v, i) => v === cpu.data[i]);
      row.insertCell().textContent = `[${gpu.shape}]`;
      const data = row.insertCell();
      data.className = "mono";
      data.textContent = Array.from(gpu.data.slice(0, 24)).join(" ") + (gpu.data.length > 24 ? " …" : "");
      const verdict = row.insertCell();
      verdict.textContent = same ? "yes" : "NO";
      verdict.className = same ? "ok" : "bad";
    } catch (e) {
      const cell = row.insertCell();
      cell.colSpan = 3;
      cell.className = "bad";
      cell.textContent = e.message;
    }
  }
}

// runConformance is what the button and the browser test call.
// tune ("gpu", "cpu") runs another tuning's kernels on this adapter;
// only (["sum", "softmax"]) keeps those ops' cases.
globalThis.runConformance = async (sizes, tune, only) => {
  $("conformance").textContent = "running…";
  const r = await stridelab.conformance({ ...(sizes ? { sizes } : {}), ...(tune ? { tune } : {}), ...(only ? { only } : {}) });
  const el = $("conformance");
  el.textContent = `${r.cases} cases on ${r.backend} (${r.tuning} tuning), ${r.failures.length} failures (${r.seconds.toFixed(1)} s)`;
  el.className = r.failures.length ? "bad" : "ok";
  return r;
};

globalThis.runBench = async (rounds) => {
  $("bench-status").textContent = "running…";
  const r = await stridelab.bench({ rounds: rounds || 3 });
  const body = $("bench").tBodies[0];
  body.textContent = "";
  for (const x of r.results) {
    const row = body.insertRow();
    const cells = [x.case, (x.kernel_s * 1e3).toFixed(3), x.kernel_gb_per_s.toFixed(2), x.copy_kernel_gb_per_s.toFixed(2),
      x.buffer_copy_gb_per_s.toFixed(2), x.ratio_of_copy_kernel.toFixed(2), x.target_ratio.toFixed(1)];
    cells.forEach((c, i) => { const td = row.insertCell(); td.textContent = c; if (i) td.className = "num"; });
    row.cells[5].className += x.ratio_of_copy_kernel >= x.target_ratio ? " ok" : " bad";
  }
  $("bench-status").textContent = `on ${r.device.name}`;
  return r;
};

$("run-conformance").onclick = () => runConformance().catch((e) => { $("conformance").textContent = e.message; });
$("run-bench").onclick = () => runBench().catch((e) => { $("bench-status").textContent = e.message; });
