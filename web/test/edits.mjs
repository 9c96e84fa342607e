// edits.mjs: times an edit of every gallery program and of Megatron's MLP
// in the playground (headless Chromium, as playground.mjs), a benchmark,
// not a test: from the end of the page's 250 ms pause to the frame
// holding the new scene (main.js's "stridelab-edit-shown" measure), and
// to the page ready with its results. Each program is opened from its
// gallery link (Megatron's MLP from the data-parallel one) and typed with
// a new first input shape per edit, so no plan is at hand; the first
// edit of each warms up and is left out. With --marks it also prints,
// per edit, the marks main.js sets between (stridelab-edit-checked: the
// fields checked, the program planned); with --profile DIR it writes
// there a CPU profile (Chrome DevTools' .cpuprofile) of each timed edit,
// from before the typing to the edit shown (the pause included, the
// results not). After each program's edits it prints the frame's Go heap
// (stridelab.memStats, after a collection) and the memory the Go runtime
// holds (sys). make bench-edit runs it.
//
//   node test/edits.mjs --cli bin/stridelab [--edits 5] [--marks] [--profile DIR] [--json FILE] [--only PATTERN]
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { launch, options, scaledRows, serve, t, visit } from "./harness.mjs";

const { cli } = options("edits.mjs");
const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const edits = Number(opt("--edits", 5));
const profileDir = opt("--profile");
const jsonFile = opt("--json");
const marks = args.includes("--marks");
const only = opt("--only"); // a pattern: time only the programs whose label it matches

const megatron = "placement 4\nx = input 8,16 B\nw1 = input 16,32 S(1)\nh = matmul x w1\nzero = input 1 B\nr = max h zero\nw2 = input 32,16 S(0)\ny = matmul r w2\ns = sum y 1,1\ngrad s";
const srcOf = (h) => new URLSearchParams(h.replace(/^#\/program\?/, "").replace(/\+/g, "%2B")).get("src");

const { served, url } = await serve(cli);
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });

async function open(hash) {
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
  await visit(page, url + (hash || ""));
  await page.waitForFunction(() => document.body.dataset.shown === location.hash);
  return page;
}

const first = await open("");
const gallery = await first.$$eval("#gallery option", (os) => os.filter((o) => o.value).map((o) => [o.textContent, o.value]));
await first.close();
const programs = gallery.filter(([, h]) => h.startsWith("#/program")).map(([label, h]) => [label.split(" — ")[0], srcOf(h).replaceAll("; ", "\n"), h]);
const dpHash = programs.find(([label]) => label === "program-data-parallel")[2];
programs.push(["Megatron's MLP", megatron, dpHash]);
if (only) programs.splice(0, programs.length, ...programs.filter(([label]) => new RegExp(only).test(label)));

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const out = [];
for (const [label, src, hash] of programs) {
  const page = await open(hash);
  const field = page.locator("textarea#f-src");
  const cdp = profileDir && await context.newCDPSession(page);
  const shown = [], ready = [], split = [];
  for (let n = 1; n <= edits + 1; n++) {
    if (cdp && n > 1) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
      await cdp.send("Profiler.start");
    }
    const edited = scaledRows(src, n + 1);
    const start = await page.evaluate(() => performance.now());
    await field.fill(edited);
    if (cdp && n > 1) { // the profile ends with the edit shown, before the results are computed
      await page.waitForFunction((t) => performance.getEntriesByName("stridelab-edit-shown").some((m) => m.startTime > t), start, { timeout: 30000, polling: 1 });
      const { profile } = await cdp.send("Profiler.stop");
      await writeFile(join(profileDir, `${label.replace(/[^A-Za-z0-9-]+/g, "_")}-${n - 1}.cpuprofile`), JSON.stringify(profile));
    }
    await page.waitForFunction((t) => document.body.dataset.state === "ready" && performance.getEntriesByName("stridelab-edit-shown").some((m) => m.startTime > t), start, { timeout: t(30000) });
    const [ms, toReady, between] = await page.evaluate((t) => {
      const m = performance.getEntriesByName("stridelab-edit-shown").filter((e) => e.startTime > t).pop();
      const between = performance.getEntriesByType("mark").filter((e) => e.startTime >= m.startTime && e.name.startsWith("stridelab-edit"))
        .map((e) => `${e.name.replace("stridelab-edit-", "")} ${(e.startTime - m.startTime).toFixed(0)}`);
      return [m.duration, performance.now() - m.startTime, between.join(", ")];
    }, start);
    if (n === 1) continue; // the warm-up
    shown.push(ms);
    ready.push(toReady);
    split.push(between);
  }
  const { heapAlloc: heap, sys } = await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.memStats());
  await page.close();
  out.push({ program: label, shown, ready, heap, sys });
  console.log(`${label}: shown ${shown.map((x) => x.toFixed(0)).join(" ")} ms (median ${median(shown).toFixed(0)}); ready ${ready.map((x) => x.toFixed(0)).join(" ")} ms; Go heap after ${(heap / 2 ** 20).toFixed(1)} MiB (sys ${(sys / 2 ** 20).toFixed(0)} MiB)`);
  if (marks) for (const s of split) console.log(`    ${s}`);
}
if (jsonFile) await writeFile(jsonFile, JSON.stringify(out, null, 1));
await browser.close();
served.kill("SIGINT");
await served.exited;
