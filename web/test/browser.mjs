// browser.mjs: runs stridelab's wasm build in headless Chromium, whose
// WebGPU runs on SwiftShader here, and checks it as a user would: the
// page boots and finds an adapter, the worked examples agree with the CPU,
// the conformance suite passes on the browser's WebGPU, bad input is a
// clear error, and (with --bench FILE) the benchmark reports its figures.
//
//   node test/browser.mjs SITE_DIR [--sizes 0,1,2] [--bench FILE] [--screenshot FILE]
//
// playwright-core drives Debian's /usr/bin/chromium and never downloads a
// browser of its own.
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

const args = process.argv.slice(2);
const site = args[0];
const opt = (name) => { const i = args.indexOf(name); return i > 0 ? args[i + 1] : undefined; };
if (!site) {
  console.error("usage: node test/browser.mjs SITE_DIR [--sizes 0,1,2] [--bench FILE] [--screenshot FILE]");
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
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-quic", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--enable-unsafe-webgpu", "--enable-features=Vulkan", "--use-vulkan=swiftshader",
    "--use-webgpu-adapter=swiftshader", "--disable-vulkan-surface"],
});
let failed = 0;
const check = (ok, what) => { console.log(`${ok ? "ok  " : "FAIL"} ${what}`); if (!ok) failed++; };
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(url);
  const devices = await page.evaluate(() => globalThis.pageReady);
  check(devices.length === 1, `the page found a WebGPU adapter: ${JSON.stringify(devices[0]?.name)}`);

  const verdicts = await page.$$eval("#examples tbody tr", (rows) => rows.map((r) => [r.cells[0].textContent, r.cells.item(3)?.textContent ?? r.cells[1].textContent]));
  check(verdicts.length === 6, `${verdicts.length} worked examples ran`);
  for (const [call, verdict] of verdicts) check(verdict === "yes", `${call}: GPU agrees with CPU (${verdict})`);

  const sizes = (opt("--sizes") || "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,33,65,257").split(",").map(Number);
  const conf = await page.evaluate((s) => runConformance(s), sizes);
  check(conf.backend === "gpu" && conf.failures.length === 0,
    `conformance on the browser's WebGPU: ${conf.cases} cases, ${conf.failures.length} failures, ${conf.seconds.toFixed(1)} s`);
  for (const f of conf.failures.slice(0, 20)) console.log("     " + f);

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

  const benchFile = opt("--bench");
  if (benchFile) {
    const r = await page.evaluate(() => runBench(5));
    await writeFile(benchFile, JSON.stringify(r, null, 2));
    check(r.results.length === 7 && r.results.every((x) => x.kernel_s > 0 && x.copy_kernel_s > 0 && x.buffer_copy_s > 0),
      `benchmark: 7 cases timed on ${r.device.name}, written to ${benchFile}`);
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
}
if (failed) {
  console.error(`${failed} browser checks failed`);
  process.exit(1);
}
