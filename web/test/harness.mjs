// harness.mjs: what the Chromium tests share: a numbered check line,
// `stridelab serve` on a free loopback port, and Debian's Chromium through
// playwright-core (never a downloaded browser) with WebGPU and WebGL on
// SwiftShader.
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";

// checker prints "ok" or "FAIL" for each check with the seconds since it
// started, and counts the failures.
export function checker() {
  const t0 = Date.now();
  const c = { failed: 0 };
  c.check = (ok, what) => {
    console.log(`${ok ? "ok  " : "FAIL"} ${what} [${((Date.now() - t0) / 1e3).toFixed(1)} s]`);
    if (!ok) c.failed++;
  };
  return c;
}

// serve starts `cli serve` on a free loopback port and resolves with the
// process (its output so far in .output, its exit in .exited) and the URL
// it printed.
export async function serve(cli, addr = "127.0.0.1:0") {
  const served = spawn(cli, ["serve", "--addr", addr], { stdio: ["ignore", "pipe", "inherit"] });
  served.output = "";
  served.exited = new Promise((r) => served.on("exit", (code, signal) => r(code ?? signal)));
  const line = await new Promise((resolve, reject) => {
    served.stdout.on("data", (d) => { served.output += d; if (served.output.includes("\n")) resolve(served.output.split("\n")[0]); });
    served.exited.then((code) => reject(new Error(`stridelab serve exited (${code}) before it served`)));
  });
  console.log(`     ${line}`);
  return { served, url: line.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/)[1] };
}

// launch opens Debian's Chromium (CHROMIUM overrides the path).
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-quic", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--enable-unsafe-webgpu", "--use-angle=swiftshader"],
  });
}

// options reads a test's command line: --cli BIN (required) and
// --screenshots DIR; without --cli it prints the usage and exits 2.
export function options(script) {
  const args = process.argv.slice(2);
  const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
  const cli = opt("--cli");
  if (!cli) {
    console.error(`usage: node test/${script} --cli bin/stridelab [--screenshots DIR]`);
    process.exit(2);
  }
  return { cli, shots: opt("--screenshots") };
}

// finish closes the browser and stops the server, then exits 1 with a
// line saying how many checks failed, if any did.
export async function finish({ browser, served, tally, what }) {
  await browser.close();
  served.kill("SIGINT");
  await served.exited;
  if (tally.failed) {
    console.error(`${tally.failed} ${what} checks failed`);
    process.exit(1);
  }
}

// scaledRows edits a program as a user would, with more rows: x's first
// dim (or the first input's, where there is no x) times k, and with it
// every shape that starts with that size (a weight or a reduction's target
// that spells the same rows, a reshape of them), so the program still
// holds together. viz's doubleX is the same rule in Go.
export function scaledRows(src, k) {
  const rows = (src.match(/\bx = input (\d+),/) || src.match(/input (\d+)/))[1];
  return src.replace(new RegExp(`(^|\\s)${rows},`, "g"), (_, before) => `${before}${Number(rows) * k},`);
}
