// run.mjs: runs the Chromium suites, a few at a time, and says which
// failed. `make test-browser` calls it:
//
//   node test/run.mjs --cli ../bin/stridelab [--jobs N] [--only a,b]
//
// Each suite is its own Node process, with its own `stridelab serve` and
// Chromium; each of its lines is prefixed with its name. JOBS suites run
// at once: by default one per core (the measurements that chose it are in
// docs/testing.md: on 2 cores, all seven at once starved each other past
// their timeouts, and two at a time took no longer than three). Each
// suite's timeouts are scaled by STRIDELAB_SLOW, the suites sharing a
// core, so a wait that fits an idle core fits a shared one. At the end it
// prints each suite's wall time and verdict, and each failing suite's
// FAIL lines again, one line each; it exits 1 if any suite failed.
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";

// The suites, with their arguments (--cli BIN is added to each), the
// longest first (as make test measured them on 2 cores), so that the
// last to start are short and the cores finish together. The
// kernels' conformance suite runs in the browser at the sizes that hit
// each kind of edge (empty, one, below a vec4, past 16, and past 32, 64
// and 256 at once: 1,970 cases, some 60 ms each on SwiftShader); the full
// suite runs natively on lavapipe (the shaders package's tests) against
// the same WGSL.
// The suites whose subject is not WebGPU (the lessons, the screens, the
// accessibility audit, the leaks of the frame's calls, the cluster
// field) run in a Chromium without it (STRIDELAB_WEBGPU=off: the page
// computes on the CPU, as it says it does where a browser has no
// WebGPU): SwiftShader's WebGPU took a fifth of their time (the lessons
// alone, 127 s against 105), and the playground and kernels suites test
// WebGPU itself.
const noWebGPU = new Set(["lessons", "screens", "a11y", "leaks", "cluster"]);
const suites = {
  playground: ["test/playground.mjs", "--screenshots", "../bin"],
  lessons: ["test/lessons.mjs", "--screenshots", "../bin"],
  kernels: ["test/browser.mjs", "site", "--serve", "--sizes", "0,1,17,257", "--screenshot", "../bin/screenshot.png"],
  screens: ["test/screens.mjs", "--screenshots", "../bin"],
  a11y: ["test/a11y.mjs", "--screenshots", "../bin"],
  leaks: ["test/leaks.mjs"],
  cluster: ["test/cluster.mjs", "--screenshots", "../bin"],
};

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const cli = opt("--cli");
if (!cli) {
  console.error("usage: node test/run.mjs --cli bin/stridelab [--jobs N] [--only a,b]");
  process.exit(2);
}
const cores = availableParallelism();
const jobs = Math.max(1, Number(opt("--jobs")) || cores);
const names = opt("--only") ? opt("--only").split(",") : Object.keys(suites);
for (const n of names) if (!suites[n]) { console.error(`run.mjs: no suite ${n} (suites: ${Object.keys(suites).join(", ")})`); process.exit(2); }
const slow = Math.max(1, Math.min(jobs, names.length) / cores);
console.log(`test-browser: ${names.length} suites, ${jobs} at a time on ${cores} cores (timeouts ×${slow.toFixed(2)})`);

// run starts one suite and resolves with its verdict once it exits.
function run(name) {
  return new Promise((resolve) => {
    const start = Date.now();
    const [script, ...rest] = suites[name];
    const child = spawn(process.execPath, [script, ...rest, "--cli", cli], {
      env: { ...process.env, STRIDELAB_SLOW: String(slow), ...(noWebGPU.has(name) ? { STRIDELAB_WEBGPU: "off" } : {}) }, stdio: ["ignore", "pipe", "pipe"],
    });
    const fails = [];
    let buf = "";
    const line = (l) => {
      console.log(`[${name}] ${l}`);
      if (l.startsWith("FAIL")) fails.push(l);
    };
    const take = (d) => {
      buf += d;
      const lines = buf.split("\n");
      buf = lines.pop();
      for (const l of lines) line(l);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("exit", (code, signal) => {
      if (buf) line(buf);
      resolve({ name, code: code ?? signal, seconds: (Date.now() - start) / 1e3, fails });
    });
  });
}

const start = Date.now();
const queue = [...names];
const done = [];
await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, async () => {
  while (queue.length) done.push(await run(queue.shift()));
}));

done.sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name));
console.log(`test-browser: ${((Date.now() - start) / 1e3).toFixed(0)} s in all, ${jobs} at a time:`);
for (const r of done) console.log(`  ${r.name.padEnd(10)} ${r.seconds.toFixed(0).padStart(4)} s  ${r.code === 0 ? "pass" : `FAIL (exit ${r.code})`}`);
const failed = done.filter((r) => r.code !== 0);
for (const r of failed) {
  if (!r.fails.length) console.log(`test-browser: ${r.name} failed (exit ${r.code}) without a FAIL line`);
  for (const f of r.fails) console.log(`test-browser: ${r.name}: ${f}`);
}
if (failed.length) {
  console.log(`test-browser: failed: ${failed.map((r) => r.name).join(" ")}`);
  process.exit(1);
}
console.log(`test-browser: ${names.join(", ")} pass`);
