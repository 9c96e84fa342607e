// browser.mjs: runs stridelab's kernels page (kernels.html,
// stridelab.wasm) in headless Chromium, whose WebGPU runs on SwiftShader
// here, and checks it as a user would: the
// page boots and finds an adapter, the worked examples agree with the CPU,
// the conformance suite passes on the browser's WebGPU, bad input is a
// clear error, the scene calls read links and export pictures (with --cli
// BIN, the very bytes `BIN draw` writes), and (with --bench FILE) the
// benchmark reports its figures. With --serve, `BIN serve` serves the page
// (embedded, precompressed) instead of this script's plain file server,
// and must stop cleanly on SIGINT at the end.
//
//   node test/browser.mjs SITE_DIR [--sizes 0,1,2] [--cli bin/stridelab [--serve]] [--bench FILE] [--screenshot FILE]
//
// playwright-core drives Debian's /usr/bin/chromium and never downloads a
// browser of its own.
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { promisify } from "node:util";
import { disableFeatures } from "./harness.mjs"; // a failure said in one line; Chromium's features as every suite has them

const args = process.argv.slice(2);
const site = args[0];
const opt = (name) => { const i = args.indexOf(name); return i > 0 ? args[i + 1] : undefined; };
if (!site) {
  console.error("usage: node test/browser.mjs SITE_DIR [--sizes 0,1,2] [--cli bin/stridelab [--serve]] [--bench FILE] [--screenshot FILE]");
  process.exit(2);
}

const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".svg": "image/svg+xml" };
const server = createServer(async (req, res) => {
  let path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
  if (path.endsWith("/")) path += "index.html";
  try {
    const body = await readFile(join(site, path));
    res.writeHead(200, { "content-type": types[extname(path)] || "application/octet-stream" });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
let url = `http://127.0.0.1:${server.address().port}/`;
let served;
if (args.includes("--serve")) {
  served = spawn(opt("--cli"), ["serve", "--addr", ":0"], { stdio: ["ignore", "pipe", "inherit"] });
  served.output = "";
  served.stdout.on("data", (d) => { served.output += d; });
  served.exited = new Promise((r) => served.on("exit", (code, signal) => r(code ?? signal)));
  const line = await new Promise((resolve, reject) => {
    served.stdout.on("data", () => { if (served.output.includes("\n")) resolve(served.output.split("\n")[0]); });
    served.exited.then((code) => reject(new Error(`stridelab serve exited (${code}) before it served`)));
  });
  console.log(`     ${line}`);
  url = line.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/)[1];
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-quic", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--enable-unsafe-webgpu", "--enable-features=Vulkan", "--use-vulkan=swiftshader",
    "--use-webgpu-adapter=swiftshader", "--disable-vulkan-surface", disableFeatures()],
});
let failed = 0;
const check = (ok, what) => { console.log(`${ok ? "ok  " : "FAIL"} ${what}`); if (!ok) failed++; };
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const wasmHeaders = [];
  page.on("response", async (r) => { if (r.url().endsWith(".wasm")) wasmHeaders.push(await r.allHeaders()); });
  await page.goto(url + "kernels.html");
  const devices = await page.evaluate(() => globalThis.pageReady);
  check(devices.length === 1, `the page found a WebGPU adapter: ${JSON.stringify(devices[0]?.name)}`);
  if (served) {
    const h = wasmHeaders[0] || {};
    check(h["content-type"] === "application/wasm" && h["content-encoding"] === "br" && h.vary === "Accept-Encoding",
      `stridelab serve sent the wasm as ${h["content-type"]}, ${h["content-encoding"]}, ${h["content-length"]} bytes`);
  }

  const verdicts = await page.$$eval("#examples tbody tr", (rows) => rows.map((r) => [r.cells[0].textContent, r.cells.item(3)?.textContent ?? r.cells[1].textContent]));
  check(verdicts.length === 6, `${verdicts.length} worked examples ran`);
  for (const [call, verdict] of verdicts) check(verdict === "yes", `${call}: GPU agrees with CPU (${verdict})`);

  const sizes = (opt("--sizes") || "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,33,65,257").split(",").map(Number);
  const conf = await page.evaluate((s) => runConformance(s), sizes);
  check(conf.backend === "gpu" && conf.failures.length === 0,
    `conformance on the browser's WebGPU: ${conf.cases} cases, ${conf.failures.length} failures, ${conf.seconds.toFixed(1)} s`);
  for (const f of conf.failures.slice(0, 20)) console.log("     " + f);
  // A discrete GPU's sums and softmax (workgroup trees, subgroup
  // shuffles, chunks with lanes, a workgroup per line) through this
  // browser's WGSL compiler, whose checks (uniformity of barriers and
  // subgroup operations) are not naga's. Max and min are the sum's
  // kernel with another combine; the elementwise kernels have no
  // barrier, and their GPU tuning differs in constants alone.
  const gpuSizes = (opt("--gpu-tuned-sizes") || "65").split(",").map(Number);
  const tuned = await page.evaluate((s) => runConformance(s, "gpu", ["sum", "softmax"]), gpuSizes);
  check(tuned.tuning === "gpu" && tuned.failures.length === 0,
    `conformance with a GPU's tuning (${tuned.tuning}, ${tuned.subgroups ? "with" : "without"} subgroups) on the browser's WebGPU: ${tuned.cases} cases, ${tuned.failures.length} failures, ${tuned.seconds.toFixed(1)} s`);
  for (const f of tuned.failures.slice(0, 20)) console.log("     " + f);

  const bad = await page.evaluate(async () => {
    const tries = [
      { kernel: "expand", a: new Float32Array(6), shape: [2, 3], arg: [4, 3] },
      { kernel: "binary", op: "add", a: new Float32Array(6), shape: [2, 3], b: new Float32Array(4), bShape: [4] },
      { kernel: "expand", a: new Float32Array(5), shape: [2, 3], arg: [2, 3] },
      { kernel: "reduce", op: "mean", a: new Float32Array(6), shape: [2, 3], arg: [1, 3] },
      { kernel: "repeat", a: new Float64Array(6), shape: [2, 3], arg: [1, 1] },
    ];
    const out = [];
    for (const t of tries) {
      try { await stridelab.run(t); out.push("resolved"); } catch (e) { out.push(e.message); }
    }
    return out;
  });
  for (const msg of bad) check(msg !== "resolved" && msg.length > 10, `bad input is a clear error: ${msg}`);

  // Oversized results are refused before anything is allocated: the
  // Promise rejects with the bytes and the tab's limit, and the tab lives.
  const oversized = await page.evaluate(async () => {
    const one = { a: new Float32Array([1]), shape: [1] };
    const six = { a: new Float32Array(6), shape: [2, 3] };
    const tries = [
      { kernel: "expand", ...one, arg: [1000000000], backend: "gpu" },
      { kernel: "expand", ...one, arg: [300000000], backend: "cpu" },
      { kernel: "expand", ...one, arg: [100000, 100000, 100000], backend: "gpu" },
      { kernel: "repeat", ...six, arg: [100000, 100000], backend: "cpu" },
      { kernel: "repeat", ...six, arg: [100000, 100000], backend: "gpu" },
      { kernel: "binary", op: "add", a: new Float32Array(100000), shape: [100000, 1], b: new Float32Array(100000), bShape: [1, 100000], backend: "gpu" },
      { kernel: "expand", ...one, arg: [2 ** 40, 2 ** 40], backend: "cpu" },
    ];
    const out = [];
    for (const t of tries) {
      try { await stridelab.run(t); out.push(["resolved", t]); } catch (e) { out.push([e.message, t]); }
    }
    const after = await stridelab.run({ kernel: "expand", ...one, arg: [3, 2], backend: "gpu" });
    return { out, alive: Array.from(after.data).join(",") };
  });
  for (const [msg, t] of oversized.out) {
    const what = `${t.kernel} ${JSON.stringify(t.shape)}${t.bShape ? " and " + JSON.stringify(t.bShape) : " → " + JSON.stringify(t.arg)}`;
    check(/needs [\d.]+ [KMGTPE]iB .*(the limit is 1.00 GiB|the device's maxBufferSize is [\d.]+ [KMGTPE]iB)|overflows int64/.test(msg),
      `oversized ${what} on ${t.backend} rejects: ${msg}`);
  }
  check(oversized.alive === "1,1,1,1,1,1", `the tab still computes after the refusals (${oversized.alive})`);

  // Scenes from links, as the playground asks for them.
  const scene = await page.evaluate(() => stridelab.scene({ hash: "#/boxing?shape=25,33&from=S(0)&to=S(1)&placement=4&embed=1&colour=red" }));
  check(scene.spec === "#/boxing?shape=25,33&from=S(0)&to=S(1)&placement=4&embed=1" && scene.embed === true && scene.steps > 1 &&
    scene.json.scene === "boxing" && scene.report.length > 20 && scene.sections.length > 0 && scene.command.startsWith("stridelab draw boxing --shape '25,33'"),
  `scene from a link: ${JSON.stringify(scene.spec)}, ${scene.steps} steps, "${scene.title}"`);
  const badScenes = await page.evaluate(async () => {
    const out = [];
    for (const req of [{ hash: "#/expand?shape=4,1,3" }, { hash: "#/spiral?shape=2" }, { hash: "#/expand?shape=4,1,3&size=4,2,3", step: 99, format: "svg" },
      { hash: "#/expand?shape=4,1,3&size=4,2,3", format: "bmp" }, { hash: "#/expand?shape=1&size=9,9", format: "gif", width: 4096, height: 4096 }]) {
      try { await (req.format ? stridelab.export(req) : stridelab.scene(req)); out.push("resolved"); } catch (e) { out.push(e.message); }
    }
    const after = await stridelab.export({ hash: "#/expand?shape=1&size=9,9", format: "png", width: 320, height: 240 });
    return { out, alive: after.length };
  });
  const wantBad = [/needs --size/, /unknown scene "spiral"/, /step 99 is out of range/, /unknown format "bmp"/, /the animation needs 1.27 GiB \(81 steps of 4096×4096\); the limit is 1.00 GiB/];
  badScenes.out.forEach((msg, i) => check(wantBad[i].test(msg), `a bad scene or export is a clear error: ${msg}`));
  check(badScenes.alive > 1000, `the tab still exports after the refusals (a ${badScenes.alive}-byte PNG)`);

  // Exports are the bytes `stridelab draw` writes of the same scene.
  const exports = await page.evaluate(async () => {
    const out = [];
    for (const hash of ["#/expand?shape=4,1,3&size=4,2,3&step=5", "#/placement?shape=8,6&sbp=S(0),P&placement=[[0,1],[2,3]]"]) {
      const { command } = await stridelab.scene({ hash });
      for (const format of ["svg", "png", "gif", "json"]) {
        const bytes = await stridelab.export({ hash, format, width: 640, height: 360 });
        const sum = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
        out.push({ hash, command, format, length: bytes.length, sum });
      }
    }
    return out;
  });
  const cli = opt("--cli");
  const dir = cli && await mkdtemp(join(tmpdir(), "stridelab-export-"));
  for (const x of exports) {
    if (!cli) {
      check(x.length > 100, `export ${x.hash} as ${x.format}: ${x.length} bytes`);
      continue;
    }
    const file = join(dir, `scene.${x.format}`);
    await promisify(execFile)("sh", ["-c", `"$0" ${x.command.replace(/^stridelab /, "")} --width 640 --height 360 -o "$1"`, cli, file]);
    const want = createHash("sha256").update(await readFile(file)).digest("hex");
    check(x.sum === want, `export ${x.hash} as ${x.format}: ${x.length} bytes, the same as ${x.command} writes`);
  }
  if (dir) await rm(dir, { recursive: true });

  const benchFile = opt("--bench");
  if (benchFile) {
    const r = await page.evaluate(() => runBench(5));
    await writeFile(benchFile, JSON.stringify(r, null, 2));
    check(r.results.length === 9 && r.results.every((x) => x.kernel_s > 0 && x.copy_kernel_s > 0 && x.buffer_copy_s > 0),
      `benchmark: 9 cases timed on ${r.device.name}, written to ${benchFile}`);
    for (const x of r.results) {
      console.log(`     ${x.case.padEnd(34)} kernel ${(x.kernel_s * 1e3).toFixed(3).padStart(8)} ms ${x.kernel_gb_per_s.toFixed(2).padStart(6)} GB/s  copy kernel ${x.copy_kernel_gb_per_s.toFixed(2).padStart(6)}  copyBufferToBuffer ${x.buffer_copy_gb_per_s.toFixed(2).padStart(6)}  ratio ${x.ratio_of_copy_kernel.toFixed(2)} (target ${x.target_ratio})`);
    }
  }
  const shot = opt("--screenshot");
  if (shot) await page.screenshot({ path: shot, fullPage: true });
  check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
} finally {
  await browser.close();
  server.close();
  if (served) {
    served.kill("SIGINT");
    const code = await served.exited;
    check(code === 0 && served.output.trimEnd().endsWith("stopped"), `stridelab serve stops on SIGINT (exit ${code})`);
  }
}
if (failed) {
  console.error(`${failed} browser checks failed`);
  process.exit(1);
}
