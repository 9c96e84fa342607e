// leaks.mjs: the playground's calls leave nothing behind. The page calls
// the wasm on every hover, keystroke and scrub; each call must release
// what it made (package wasm/jsvalue releases a Promise's executor). In
// headless Chromium (Debian's /usr/bin/chromium through playwright-core;
// WebGL and WebGPU on SwiftShader), against `BIN serve` on a free
// loopback port, it makes CALLS calls into the playground's frame, as the
// page and a pointer would: stridelab.frame.hover across the scene's
// cells (every cell of both operands and every storage offset, in turn),
// frame.show at every step, frame.act (the transport's keys),
// stridelab.scene with a focus (the results of a hover) and, in the
// page's compute worker, stridelab.run with a Float32Array (a request
// that holds a typed array, posted to the worker and back).
// The page listens all along, as it does for a pointer: its URL and
// results follow the frame.
//
// After a warm-up of WARMUP calls (caches and pools filled), it reads
//
//   - the Go heaps of the frame and of the compute worker:
//     stridelab.memStats(), HeapAlloc after runtime.GC;
//   - the JS heap: V8's used heap and the array buffers' backing stores
//     (CDP Runtime.getHeapUsage after HeapProfiler.collectGarbage; Go's
//     linear memory is not among them, its size is printed beside),
//
// then makes the calls and reads them again. Each must end within its
// bound of where it started. The bounds are several times the drift
// measured on the fixed build and a fraction of the growth measured on
// the leaking one (see the numbers beside them).
//
//   node test/leaks.mjs --cli bin/stridelab [--calls 5000] [--screenshots DIR]
import { join } from "node:path";
import { checker, finish, launch, options, serve, t, visit } from "./harness.mjs";

const { cli, shots } = options("leaks.mjs");
const argv = process.argv.slice(2);
const CALLS = +(argv[argv.indexOf("--calls") + 1] || 0) || 5000;
const WARMUP = 500;

// The bounds on growth over CALLS calls, from measurements on the 2-core
// test machine. With 5,000 calls the fixed build drifted by +16 to +22 KiB
// of Go heap (about 180 objects, the same after 20,000 calls: no growth
// per call), +12 to +16 KiB of JS heap (+28 KiB after 20,000) and 0 KiB of
// array buffers; the leaking build (executors never released) grew by
// +1031 KiB of Go heap (19,504 objects), +315 KiB of JS heap and
// +32,000 KiB of array buffers (every Float32Array sent, kept).
const bounds = { go: 128 << 10, worker: 128 << 10, js: 128 << 10, buffers: 1 << 20 };

const tally = checker();
const check = tally.check;
const { served, url } = await serve(cli);
const browser = await launch();
const errors = [];
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
page.on("pageerror", (e) => errors.push(e.message));
page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });

// The scene: expand 8,1,8 to 8,8,8, 512 output cells, 64 input cells and
// 64 storage offsets to hover, and 64 steps to show.
const base = "#/expand?shape=8,1,8&size=8,8,8";
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;

// measure reads the Go heap and the JS heap, each after a collection (the
// Go collection first: its finalizers drop the JS values Go held).
async function measure() {
  await page.waitForTimeout(t(500)); // the page's debounced reports finish
  const read = () => page.evaluate(async () => {
    const w = document.getElementById("frame").contentWindow;
    return { go: await w.stridelab.memStats(), worker: await globalThis.stridelabCompute("memStats"), wasm: w.wasm.instance.exports.mem.buffer.byteLength };
  });
  await read();
  const { go, worker, wasm } = await read();
  const cdp = await context.newCDPSession(page);
  await cdp.send("HeapProfiler.collectGarbage");
  await cdp.send("HeapProfiler.collectGarbage");
  const heap = await cdp.send("Runtime.getHeapUsage");
  await cdp.detach();
  return { go: go.heapAlloc, goInuse: go.heapInuse, objects: go.heapObjects, worker: worker.heapAlloc, workerObjects: worker.heapObjects,
    js: heap.usedSize, buffers: heap.backingStorageSize, wasm };
}

// calls makes n calls into the frame from the page, in rounds of 50 made
// at once (one of the frame's ticks answers a round), starting at call
// number from; it returns how many of each it made.
function calls(from, n) {
  return page.evaluate(async ([base, from, n]) => {
    const s = document.getElementById("frame").contentWindow.stridelab;
    const keys = [".", ",", ".", "end", "home", "+", "-", "0"];
    const made = { hover: 0, show: 0, act: 0, scene: 0, run: 0 };
    // The i-th cell to hover: the output's 512, the input's 64, the 64 offsets.
    const cell = (i) => {
      i %= 640;
      if (i < 512) return { kind: "cell", operand: "out", index: [i >> 6, (i >> 3) & 7, i & 7] };
      if (i < 576) return { kind: "cell", operand: "x", index: [(i - 512) >> 3, 0, i & 7] };
      return { kind: "storage", operand: "x", offset: i - 576 };
    };
    for (let i = from; i < from + n;) {
      const round = [];
      for (let j = 0; j < 50 && i < from + n; j++, i++) {
        switch (j % 10) {
          case 0: case 1: case 2: case 3:
            round.push(s.frame.hover(cell(i))); made.hover++; break;
          case 4: case 5:
            round.push(s.frame.show(`${base}&step=${i % 64}`)); made.show++; break;
          case 6: case 7:
            round.push(s.scene({ hash: `${base}&step=${i % 64}`, focus: cell(i) })); made.scene++; break;
          case 8:
            s.frame.act(keys[i % keys.length]); made.act++; break;
          case 9: { // a request that holds a Float32Array (64 KiB), sent to the compute worker
            const a = new Float32Array(16384).fill(i);
            round.push(globalThis.stridelabCompute("run", { kernel: "expand", backend: "cpu", a, shape: [16384, 1], arg: [16384, 1] }));
            made.run++; break;
          }
        }
      }
      await Promise.all(round);
    }
    return made;
  }, [base, from, n]);
}

try {
  await visit(page, url + base);
  await page.waitForFunction((h) => document.body.dataset.shown === h, base);

  // A hover is what the page shows: the focus in the frame's state and
  // its section in the results.
  const st = await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.hover({ kind: "cell", operand: "out", index: [3, 5, 6] }));
  check(JSON.stringify(st.hover?.index) === "[3,5,6]", `frame.hover lights a cell: the state's hover is ${JSON.stringify(st.hover)}`);

  const t0 = Date.now();
  await calls(0, WARMUP);
  const before = await measure();
  const t1 = Date.now();
  const made = await calls(WARMUP, CALLS);
  const ms = Date.now() - t1;
  const after = await measure();
  const n = Object.values(made).reduce((a, b) => a + b, 0);
  console.log(`     ${n} calls in ${(ms / 1e3).toFixed(1)} s after a warm-up of ${WARMUP} in ${((t1 - t0) / 1e3).toFixed(1)} s: ${Object.entries(made).map(([k, v]) => `${v} ${k}`).join(", ")}`);
  console.log(`     before: Go heap ${kib(before.go)} (in use ${kib(before.goInuse)}, ${before.objects} objects), the worker's ${kib(before.worker)} (${before.workerObjects} objects), JS heap ${kib(before.js)}, array buffers ${kib(before.buffers)}, wasm memory ${kib(before.wasm)}`);
  console.log(`     after:  Go heap ${kib(after.go)} (in use ${kib(after.goInuse)}, ${after.objects} objects), the worker's ${kib(after.worker)} (${after.workerObjects} objects), JS heap ${kib(after.js)}, array buffers ${kib(after.buffers)}, wasm memory ${kib(after.wasm)}`);
  check(n === CALLS, `made ${n} calls`);
  const grew = (k) => after[k] - before[k];
  check(grew("go") <= bounds.go, `the Go heap ends within ${kib(bounds.go)} of where it started: ${grew("go") >= 0 ? "+" : ""}${kib(grew("go"))} (${after.objects - before.objects} objects) over ${n} calls`);
  check(grew("worker") <= bounds.worker, `the compute worker's Go heap ends within ${kib(bounds.worker)} of where it started: ${grew("worker") >= 0 ? "+" : ""}${kib(grew("worker"))} (${after.workerObjects - before.workerObjects} objects) over ${made.run} runs`);
  check(grew("js") <= bounds.js, `the JS heap ends within ${kib(bounds.js)} of where it started: ${grew("js") >= 0 ? "+" : ""}${kib(grew("js"))} over ${n} calls`);
  check(grew("buffers") <= bounds.buffers, `the array buffers (${made.run} Float32Arrays of 64 KiB sent) end within ${kib(bounds.buffers)} of where they started: ${grew("buffers") >= 0 ? "+" : ""}${kib(grew("buffers"))}`);
  if (shots) await page.screenshot({ path: join(shots, "leaks.png") });
  check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
} finally {
  await finish({ browser, served, tally, what: "leak" });
}
