// harness.mjs: what the Chromium tests share: a numbered check line,
// `stridelab serve` on a free loopback port, Debian's Chromium through
// playwright-core (never a downloaded browser) with WebGPU and WebGL on
// SwiftShader, timeouts scaled to the machine, the page's own ready
// signal, and a failure said in one line.
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";

// slow scales every timeout: the runner (run.mjs) sets STRIDELAB_SLOW to
// how many suites share each core, so a wait that takes 10 s on an idle
// core is given its share of a loaded one. 1 when a suite runs alone.
export const slow = Math.max(1, Number(process.env.STRIDELAB_SLOW) || 1);

// t is a timeout of ms on an idle machine, scaled by slow.
export const t = (ms) => Math.round(ms * slow);

const suite = basename(process.argv[1] || "test");
let lastCheck = "none yet";

// checker prints "ok" or "FAIL" for each check with the seconds since it
// started, and counts the failures.
export function checker() {
  const t0 = Date.now();
  const c = { failed: 0 };
  c.check = (ok, what) => {
    console.log(`${ok ? "ok  " : "FAIL"} ${what} [${((Date.now() - t0) / 1e3).toFixed(1)} s]`);
    if (!ok) c.failed++;
    lastCheck = what;
  };
  return c;
}

// A suite that throws (a wait that timed out, a page that crashed) ends
// with one line: where in the suite it was, the error's first line, and
// the last check it had passed; not a stack trace. Its browser and
// server are stopped by its own finally (finish) or, failing that, when
// the process exits.
function died(e) {
  const at = String(e?.stack || "").split("\n").map((l) => l.match(/\/test\/([\w.-]+\.mjs):(\d+)/)).find((m) => m && m[1] !== "harness.mjs");
  const first = String(e?.message ?? e).split("\n")[0];
  console.log(`FAIL ${suite}${at ? `:${at[2]}` : ""}: ${first} (after the check "${lastCheck.slice(0, 120)}")`);
  process.exit(1);
}
process.on("uncaughtException", died);
process.on("unhandledRejection", died);

// serve starts `cli serve` on a free loopback port and resolves with the
// process (its output so far in .output, its exit in .exited) and the URL
// it printed.
export async function serve(cli, addr = "127.0.0.1:0") {
  const served = spawn(cli, ["serve", "--addr", addr], { stdio: ["ignore", "pipe", "inherit"] });
  served.output = "";
  served.exited = new Promise((r) => served.on("exit", (code, signal) => r(code ?? signal)));
  process.on("exit", () => served.kill("SIGINT")); // never left running by a suite that died
  const line = await new Promise((resolve, reject) => {
    served.stdout.on("data", (d) => { served.output += d; if (served.output.includes("\n")) resolve(served.output.split("\n")[0]); });
    served.exited.then((code) => reject(new Error(`stridelab serve exited (${code}) before it served`)));
  });
  console.log(`     ${line}`);
  return { served, url: line.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/)[1] };
}

// chromeUI is Chromium's own UI that each new window starts and a
// learner's tab does not wait for: in Chromium 156 the omnibox's
// suggestion popup is a WebUI page, preloaded in a renderer of its own
// for every new window (every Playwright context is one), some 40
// modules and about a second of a core. On two cores it shared them with
// the page under test: five fresh loads of the playground, still median
// 579 → 331 ms, live frame 3.44 → 2.15 s (docs/performance.md). A learner's tab
// opens in a window already started, so the tests turn it off.
const chromeUI = ["WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup"];

// disableFeatures is the --disable-features switch for Chromium. Chromium
// takes the last such switch it is given, and Playwright gives its own
// list first, so this one repeats Playwright's (read from the
// playwright-core this runs) with chromeUI added.
export function disableFeatures() {
  const dir = dirname(createRequire(import.meta.url).resolve("playwright-core/package.json"));
  const bundle = readFileSync(join(dir, "lib", "coreBundle.js"), "utf8");
  const list = bundle.match(/disabledFeatures = \[([\s\S]*?)\]/)?.[1] ?? "";
  const theirs = [...list.matchAll(/^\s*"(\w+)",?\s*$/gm)].map((m) => m[1]);
  if (!theirs.length) throw new Error(`harness: Playwright's --disable-features list was not found in ${join(dir, "lib", "coreBundle.js")}; disableFeatures must learn where this playwright-core keeps it`);
  return `--disable-features=${[...theirs, ...chromeUI].join(",")}`;
}

// launch opens Debian's Chromium (CHROMIUM overrides the path), with
// WebGPU unless STRIDELAB_WEBGPU is off (run.mjs turns it off for the
// suites whose subject it is not); every
// context and page it makes waits t(30 s) for an action and t(60 s) for a
// navigation unless a call says otherwise.
export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-quic", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", ...(process.env.STRIDELAB_WEBGPU === "off" ? [] : ["--enable-unsafe-webgpu"]), "--use-angle=swiftshader", disableFeatures()],
    timeout: t(60000),
  });
  const scaled = (c) => { c.setDefaultTimeout(t(30000)); c.setDefaultNavigationTimeout(t(60000)); return c; };
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (o) => scaled(await newContext(o));
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (o) => { const p = await newPage(o); scaled(p.context()); return p; };
  return browser;
}

// goTo moves the playground in page to the link hash as the gallery menu
// or a pasted link does (no reload), and waits until the page shows it
// with its results. The page's "shown" is cleared first: the page sets
// it again once it has shown the new link (which it may spell otherwise).
export async function goTo(page, hash) {
  const moved = await page.evaluate((h) => {
    if (location.hash === h) return false;
    document.body.dataset.shown = "";
    location.hash = h;
    return true;
  }, hash);
  if (moved) await page.waitForFunction(() => document.body.dataset.shown === location.hash && document.body.dataset.state === "ready", null, { timeout: t(60000) });
}

// visit navigates page to url and waits for the page's own ready signal
// (globalThis.pageReady: the playground has shown its first scene, the
// kernels' page has run its examples), not for the load event, which
// waits on subresources the test does not need.
export async function visit(page, url) {
  await page.goto(url, { waitUntil: "commit" });
  await page.waitForFunction(() => globalThis.pageReady, null, { timeout: t(60000) });
  return page.evaluate(() => globalThis.pageReady);
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
