// playground.mjs: the playground end to end in headless Chromium (Debian's
// /usr/bin/chromium through playwright-core; WebGL and WebGPU on
// SwiftShader), against `BIN serve` on a free loopback port:
//
//   - every gallery example (web/site/gallery.txt) opens from its URL,
//     draws a scene that is not blank (the frame's pixels) and computes on
//     WebGPU a result that agrees with the CPU reference;
//   - editing a field updates the URL and the scene; the URL opened in a
//     fresh page shows the same state (fields, scene, step);
//   - a program: its text area shows it one statement a line, typing
//     there changes the URL and the scene, a bad program's error (its
//     line named) shows under the field while the last good scene stays,
//     the greedy/exact toggle changes the scene and the URL, and a step
//     column clicked shows its section (signature, candidates) in the
//     results;
//   - each export button downloads a valid SVG, PNG and GIF, the very
//     bytes `BIN draw` writes of that scene;
//   - bad input in every field of every scene shows an error beside that
//     field, the last good scene and URL stay, and the page keeps working;
//     an oversized scene's compute is refused in place;
//   - the keyboard: Tab reaches the scene's frame (with a focus ring) and
//     leaves it; the arrows walk the cells of an index scene, a binary op,
//     a reduce, a shard scene and a program, and after each key the live
//     region says what `BIN draw … -o x.json` says of that cell; Enter pins;
//   - &embed=1 hides the controls and starts paused;
//   - no page errors.
//
// It prints the budget (a benchmark, not an assertion): the gzip and
// brotli bytes of every wasm the page loads (the scene frame's, and the
// compute worker's, fetched once the frame has drawn), and the medians of
// three fresh loads of the time from navigation to the first scene (the
// still, still.js; the issue's limit is 0.5 s on localhost) and to the
// live frame's first draw (globalThis.stridelabFirstDraw in the frame;
// the limit is 3 s); it checks that in each load the still showed before
// the frame even asked for its wasm, and the frame drew before the
// compute worker's wasm was asked for.
//
//   node test/playground.mjs --cli bin/stridelab [--screenshots DIR]
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompressSync, constants as zlibConstants, gzipSync } from "node:zlib";
import { checker, finish, goTo, launch, options, scaledRows, serve, t, visit } from "./harness.mjs";

const { cli, shots } = options("playground.mjs");

const tally = checker();
const check = tally.check;
const { served, url } = await serve(cli);
const browser = await launch();
const errors = [];
const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
context.on("page", (p) => {
  p.on("pageerror", (e) => errors.push(e.message));
  // (A link that does not build has no still: scene.svg's 400 is the
  // page asking, not an error of the page.)
  p.on("console", (m) => { if (m.type() === "error" && !(/status of 400/.test(m.text()) && /\/scene\.svg\?/.test(m.location().url))) errors.push(m.text()); });
});

// open loads the playground at hash in a fresh page and waits until it
// shows it; it returns the page and the wasm responses it loaded.
async function open(hash) {
  const page = await context.newPage();
  const wasm = [];
  page.on("response", (r) => { if (r.url().endsWith(".wasm")) wasm.push(r); });
  const start = Date.now();
  await visit(page, url + (hash || ""));
  await page.waitForFunction(() => document.body.dataset.shown === location.hash);
  return { page, wasm, ms: Date.now() - start };
}

// settle waits until the page shows hash (its fields, the frame, the
// results), after a gallery pick or a typed link.
async function settle(page, hash) {
  await page.waitForFunction((h) => document.body.dataset.shown === h && location.hash === h, hash, { timeout: t(30000) });
  await page.waitForTimeout(t(400)); // a few of the frame's ticks at SwiftShader's 10-20 fps
}

const frameState = (page) => page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.state());

// ink looks at the frame's pixels: the share of pixels that are not the
// most common colour, and how many colours there are.
async function ink(page) {
  const png = await page.locator("#frame").screenshot();
  return { png, ...await page.evaluate(async (b64) => {
    const img = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
    const c = new OffscreenCanvas(img.width, img.height).getContext("2d");
    c.drawImage(img, 0, 0);
    const px = new Uint32Array(c.getImageData(0, 0, img.width, img.height).data.buffer);
    const counts = new Map();
    for (const p of px) counts.set(p, (counts.get(p) || 0) + 1);
    const top = Math.max(...counts.values());
    return { share: 1 - top / px.length, colours: counts.size };
  }, png.toString("base64")) };
}

const sha = (b) => createHash("sha256").update(b).digest("hex");

// computedOK: the results say the op equals or agrees with the CPU
// reference (tensor.Agreement.Words), or, for a program, that every
// tensor and gradient agrees with the single-device run.
const agreesWithCPU = /(equals|agrees with) the CPU reference/;
function computedOK(text) {
  const program = /(\d+) of (\d+) tensors and gradients agree with the single-device run/.exec(text);
  return !/differs/.test(text) && (agreesWithCPU.test(text) || (program !== null && program[1] === program[2] && +program[1] > 0));
}

// drawn is the scene's meaning as `stridelab draw … -o x.json` writes it,
// for the scene the frame shows (its spec, in the CLI's words, is parsed
// back into arguments by sh).
async function drawn(spec) {
  const dir = await mkdtemp(join(tmpdir(), "stridelab-keys-"));
  try {
    const file = join(dir, "x.json");
    await promisify(execFile)("sh", ["-c", `"$0" draw ${spec.replace(/^stridelab (draw )?/, "")} -o "$1"`, cli, file]);
    return JSON.parse(await readFile(file, "utf8"));
  } finally {
    await rm(dir, { recursive: true });
  }
}

// The words a screen reader hears for a focus, built here from the JSON
// model's fields (never from the page): an output cell what it reads (a
// reduce: what it sums), a storage element how many cells read it and the
// first of them, a cell of a sharded tensor its rank, coordinate, shard and
// rows or columns, a device its shard, a program's step what it does.
const listed = 8; // a description lists this many, then "…"
const cut = (names, total) => names.slice(0, listed).join(", ") + (total > listed ? ", …" : "");
const outName = (idx) => `out[${idx.join(",")}]`;
const goList = (v) => `[${v.join(" ")}]`;
function expectedWords(model, f) {
  if (model.cells) { // an index scene
    if (f.kind === "storage") {
      const readers = model.cells.filter((c) => c.reads.some(([op, off]) => op === f.operand && off === f.offset));
      return `${f.operand}[${f.offset}] is read by ${readers.length} output cell${readers.length === 1 ? "" : "s"}: ${cut(readers.map((c) => outName(c.index)), readers.length)}`;
    }
    const cell = model.cells.find((c) => c.index.join() === f.index.join());
    const names = cell.reads.map(([op, off]) => `${op}[${off}]`);
    if (model.scene === "reduce") return `${outName(f.index)} sums ${cut(names, names.length)} (${names.length} cell${names.length === 1 ? "" : "s"})`;
    return `${outName(f.index)} reads ${names.length > 1 ? names.slice(0, -1).join(", ") + " and " + names.at(-1) : names[0]}`;
  }
  if (model.ranks) { // a shard scene (one rank holds each cell: an S(0) or S(1) layout)
    const axisWords = (r) => [...r.sbp.matchAll(/S\((\d+)\)/g)].map((m) => +m[1]).map((d) => {
      const [lo, hi] = r.ranges[d];
      const [one, many] = d === 0 ? ["row", "rows"] : ["column", "columns"];
      return hi - lo === 1 ? `${one} ${lo}` : `${many} ${lo}–${hi - 1}`;
    }).join(", ");
    const name = (r) => `rank ${r.rank} (coord ${goList(r.coord)})`;
    if (f.kind === "device") {
      const r = model.ranks.find((x) => x.rank === f.rank);
      return `${name(r)} holds ${goList(r.shape)}, ${axisWords(r)}`;
    }
    const r = model.ranks.find((x) => x.ranges.every(([lo, hi], d) => f.index[d] >= lo && f.index[d] < hi));
    return `[${f.index.join(",")}] is on ${name(r)}, shard ${goList(r.shape)} at ${axisWords(r)}`;
  }
  const st = model.steps[f.offset]; // a program's step
  const head = `step ${f.offset + 1}${st.pass === "backward" ? " (backward)" : ""}`;
  if (st.kind === "input") return `${head}: input ${st.name} ${goList(st.shape)} as ${st.sbp}`;
  if (st.kind === "boxing") return `${head}: box ${st.tensor} from ${st.from} to ${st.to}: ${st.collectives.join(" + ") || "no collective"}, ${st.send_bytes} B`;
  return `${head}: ${st.name} = ${[st.op, ...st.inputs].join(" ")} under ${st.signature}`;
}

// keyboardWalk: Tab from the control before the scene's frame reaches it
// (a focus ring shows it), and the arrow keys — real key presses — walk
// the cells of an index scene, a binary op, a reduce, a shard scene and a
// program: after each key the live region says what the frame focused, in
// the words built from `stridelab draw … -o x.json`; Enter pins the cell,
// and Tab leaves the frame for the next control.
async function keyboardWalk(page) {
  await goTo(page, "#/expand?shape=4,1,3&size=4,2,3");
  const fstate = () => frameState(page);
  // tabIn focuses the control before the frame, then presses Tab.
  const tabIn = async () => {
    await page.evaluate(() => {
      const all = [...document.querySelectorAll("a[href], button, input, select, textarea, iframe, [tabindex]:not([tabindex='-1'])")]
        .filter((el) => !el.disabled && !el.hidden && el.offsetParent !== null);
      all[all.indexOf(document.getElementById("frame")) - 1].focus();
    });
    await page.keyboard.press("Tab");
    await page.waitForFunction(() => document.activeElement?.id === "frame" &&
      document.getElementById("frame").contentDocument.activeElement?.tagName === "CANVAS", null, { timeout: t(5000) }).catch(() => {});
    return page.evaluate(() => document.activeElement?.id === "frame" &&
      document.getElementById("frame").contentDocument.activeElement?.tagName === "CANVAS");
  };
  // press presses key in the frame and waits for the focus it moves to.
  const press = async (key) => {
    const before = JSON.stringify((await fstate()).hover);
    await page.keyboard.press(key);
    await page.waitForFunction((b) => JSON.stringify(document.getElementById("frame").contentWindow.stridelab.frame.state().hover) !== b,
      before, { timeout: t(5000) }).catch(() => {});
    return (await fstate()).hover;
  };
  // said checks the live region against the model's words for focus f.
  const said = async (what, model, f) => {
    const want = expectedWords(model, f);
    await page.waitForFunction((w) => document.getElementById("scene-status").textContent === w, want, { timeout: t(5000) }).catch(() => {});
    const got = await page.locator("#scene-status").textContent();
    check(got === want, `${what}: the live region says "${got}"${got === want ? "" : `, want "${want}"`}`);
  };
  const name = (f) => f ? (f.kind === "cell" ? (f.operand === "global" ? "" : f.operand) + `[${f.index.join(",")}]` : f.kind === "storage" ? `${f.operand}[${f.offset}]` : f.kind === "device" ? `rank ${f.rank}` : `step ${f.offset + 1}`) : "nothing";

  const inFrame = await tabIn();
  const ring = await page.evaluate(() => { const cs = getComputedStyle(document.getElementById("frame")); return { style: cs.outlineStyle, width: parseFloat(cs.outlineWidth) }; });
  check(inFrame && ring.style !== "none" && ring.width >= 2, `Tab from the control before the scene gives the frame's canvas the keyboard (${inFrame}), with a focus ring (${ring.style} ${ring.width} px)`);
  await page.keyboard.press("Home"); // pauses on the first step
  await page.waitForFunction(() => { const st = document.getElementById("frame").contentWindow.stridelab.frame.state(); return st.step === 0 && !st.playing; }, null, { timeout: t(5000) }).catch(() => {});

  // expand: out cells row by row, down into the storage strip, up again.
  let model = await drawn((await fstate()).spec);
  const want = ["out[0,0,0]", "out[0,0,1]", "out[0,0,2]", "out[0,1,0]"];
  for (const [i, w] of want.entries()) {
    const f = await press("ArrowRight");
    check(name(f) === w, `expand: right arrow ${i + 1} focuses ${name(f)}, want ${w}${i === 3 ? " (the next row)" : ""}`);
    await said(`expand ${w}`, model, f);
  }
  if (shots) await page.screenshot({ path: join(shots, "playground-keys.png") });
  let f = await press("ArrowDown");
  check(f?.kind === "storage", `expand: down from the grid's last row focuses the storage strip: ${name(f)}`);
  if (f?.kind === "storage") await said(`expand ${name(f)}`, model, f);
  f = await press("ArrowUp");
  check(f?.kind === "cell" && f.index[1] === 1, `expand: up from the strip goes back into the grid's last row: ${name(f)}`);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("frame").contentWindow.stridelab.frame.state().pinned !== null, null, { timeout: t(5000) }).catch(() => {});
  let st = await fstate();
  check(name(st.pinned) === name(f), `Enter pins the focused cell: pinned ${name(st.pinned)}`);
  if (st.pinned) await said(`the pinned ${name(f)}`, model, st.pinned);
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => document.getElementById("frame").contentWindow.stridelab.frame.state().pinned === null, null, { timeout: t(5000) }).catch(() => {});
  await page.keyboard.press("Tab");
  const next = await page.evaluate(() => document.activeElement?.id);
  const ringLeft = await page.evaluate(() => getComputedStyle(document.getElementById("frame")).outlineStyle);
  check(next === "first" && ringLeft === "none", `Tab leaves the frame for the next control (${next}), and the frame's focus ring goes (${ringLeft})`);

  // A binary op, a reduce, a shard scene and a program.
  const walks = [
    ["binary", "#/binary?shape=3,1&op=add&b-shape=1,4", 3],
    ["reduce", "#/reduce?shape=2,3,4&op=sum&to=1,3,1", 3],
    ["placement", "#/placement?shape=8,6&sbp=S(0)&placement=4", 3],
  ];
  const programHash = await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.scenes().then((r) => r.scenes.find((x) => x.name === "program").example));
  walks.push(["program", programHash, 4]);
  for (const [scene, hash, n] of walks) {
    await page.evaluate((h) => { location.hash = h; }, hash);
    // (The page writes the link's keys in its own order.)
    await page.waitForFunction((sc) => document.body.dataset.shown === location.hash && location.hash.startsWith(`#/${sc}?`), scene, { timeout: t(30000) });
    await page.waitForTimeout(t(400));
    const tabbed = await tabIn();
    await page.keyboard.press("Home");
    await page.waitForFunction(() => { const st = document.getElementById("frame").contentWindow.stridelab.frame.state(); return st.step === 0 && !st.playing; }, null, { timeout: t(5000) }).catch(() => {});
    model = await drawn((await fstate()).spec);
    const seen = [];
    for (let i = 0; i < n; i++) {
      f = await press("ArrowRight");
      seen.push(name(f));
      if (f) await said(`${scene} ${name(f)}`, model, f);
    }
    const wantFirst = { binary: ["out[0,0]", "out[0,1]", "out[0,2]"], reduce: ["out[0,0,0]", "out[0,1,0]", "out[0,2,0]"],
      placement: ["[0,0]", "[0,1]", "[0,2]"], program: ["step 1", "step 2", "step 3", "step 4"] }[scene];
    check(tabbed && seen.join() === wantFirst.join(), `${scene}: Tab in, then ${n} right arrows focus ${seen.join(", ")}`);
    if (shots) await page.locator(".stage").screenshot({ path: join(shots, `playground-keys-${scene}.png`) });
    if (scene === "placement") { // on to the devices, after the tensor's last cell
      for (let i = 0; i < 60 && f?.kind !== "device"; i++) f = await press("ArrowRight");
      check(f?.kind === "device" && f.rank === 0, `placement: the walk goes on from the last cell to the devices: ${name(f)}`);
      if (f?.kind === "device") await said(`placement ${name(f)}`, model, f);
    }
    if (scene === "program") { // on to the first boxing, and the bytes it sends
      // (The scene draws the steps around the animation's step: End shows
      // the last ones, the boxings of the gradients among them.)
      await page.keyboard.press("End");
      await page.waitForFunction(() => { const st = document.getElementById("frame").contentWindow.stridelab.frame.state(); return st.step === st.steps - 1; }, null, { timeout: t(5000) }).catch(() => {});
      const box = model.steps.findIndex((x) => x.kind === "boxing");
      for (let i = 0; i < 30 && f?.offset !== box; i++) f = await press("ArrowRight");
      check(f?.kind === "step" && f.offset === box, `program: the walk reaches the first boxing, step ${box + 1}: ${name(f)}`);
      if (f?.offset === box) await said(`program ${name(f)}`, model, f);
    }
  }
}

try {
  // The budget: three fresh loads (each its own browser context, so
  // nothing is cached; three, not five: each is some 5 s of a 2-core
  // machine's make test, docs/testing.md), as a learner opens a link: navigation → the still
  // of the scene shown (still.js), navigation → the live frame's first
  // draw (globalThis.stridelabFirstDraw in the frame), each the median.
  const loads = [];
  let first;
  for (let i = 0; i < 3; i++) {
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await fresh.newPage();
    p.on("pageerror", (e) => errors.push(e.message));
    const wasm = [];
    const asked = {}; // a wasm's name → when it was asked for (the epoch's ms: the page's timeOrigin is on the same clock)
    p.on("request", (r) => { if (r.url().endsWith(".wasm")) asked[r.url().split("/").pop()] ??= Date.now(); });
    p.on("response", (r) => { if (r.url().endsWith(".wasm")) wasm.push(r); });
    const start = Date.now();
    // A load is timed up to the frame's first draw and the compute
    // worker's request for its wasm (both wasm answered): what the budget
    // reads. Its compute, which the rest of the suite checks, is not
    // waited for.
    await p.goto(url, { waitUntil: "commit" });
    await p.waitForFunction(() => typeof document.getElementById("frame")?.contentWindow?.stridelabFirstDraw === "number", null, { timeout: t(60000) });
    for (const until = Date.now() + t(60000); wasm.length < 2 && Date.now() < until;) await p.waitForTimeout(50);
    const origin = await p.evaluate(() => performance.timeOrigin);
    loads.push(await p.evaluate(() => {
      const w = document.getElementById("frame").contentWindow;
      const at = (t) => (w.performance.timeOrigin + t - performance.timeOrigin).toFixed(0);
      const marks = w.performance.getEntriesByType("mark").map((m) => `${m.name.replace("stridelab-", "")} ${at(m.startTime)}`);
      const svg = performance.getEntriesByType("resource").find((e) => /scene\.svg/.test(e.name));
      const asked = w.performance.getEntriesByType("resource").find((e) => /playground\.wasm$/.test(e.name));
      return { still: performance.getEntriesByName("stridelab-still-shown")[0]?.startTime ?? NaN,
        wasmAsked: asked ? w.performance.timeOrigin + asked.startTime - performance.timeOrigin : NaN,
        svg: svg ? `scene.svg ${svg.startTime.toFixed(0)}–${svg.responseEnd.toFixed(0)} ms, status ${svg.responseStatus}` : "no scene.svg",
        draw: w.performance.timeOrigin + w.stridelabFirstDraw - performance.timeOrigin, marks: [`frame starts ${at(0)}`, ...marks].join(", ") };
    }));
    loads[i].workerAsked = asked["stridelab.wasm"] - origin;
    // Each load's page closes before the next starts, so that its
    // results, still computing, do not share the cores with the next
    // load; the first one's wasm responses are read below.
    if (i === 0) first = { wasm: wasm.map((r) => ({ url: r.url(), headers: r.headers() })), ms: Date.now() - start };
    await fresh.close();
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  let gz = 0, br = 0;
  const parts = [];
  for (const r of first.wasm) {
    // The bytes again from the server (the browser's copy may be gone
    // from the inspector's cache), compressed at the server's levels.
    const body = Buffer.from(await (await fetch(r.url)).arrayBuffer());
    const [g, b] = [gzipSync(body, { level: 6 }).length, brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 6 } }).length];
    gz += g;
    br += b;
    parts.push(`${r.url.split("/").pop()} ${(body.length / 2 ** 20).toFixed(1)} MiB, gzip ${(g / 2 ** 20).toFixed(2)} MiB, brotli ${(b / 2 ** 20).toFixed(2)} MiB, sent ${r.headers["content-encoding"]} ${(+r.headers["content-length"] / 2 ** 20).toFixed(2)} MiB`);
  }
  check(first.wasm.length >= 1 && loads.every((l) => Number.isFinite(l.draw)), `the playground loaded ${first.wasm.length} wasm and drew its first scene`);
  check(loads.every((l) => l.still < l.draw), `each of the three loads showed the scene's still before the live frame drew (${loads.map((l) => `${l.still.toFixed(0)} < ${l.draw.toFixed(0)} ms${l.still < l.draw ? "" : ` (${l.svg})`}`).join(", ")})`);
  // The still first: the frame's wasm is not even asked for until the still is shown.
  check(loads.every((l) => l.wasmAsked >= l.still), `in each load the frame asked for playground.wasm only once the still was shown (${loads.map((l) => `still ${l.still.toFixed(0)} ≤ asked ${l.wasmAsked.toFixed(0)} ms`).join(", ")})`);
  // The scene first: the compute worker's wasm waits until the frame has drawn.
  check(loads.every((l) => l.workerAsked >= l.draw), `in each load the compute worker's stridelab.wasm was asked for only after the frame drew (${loads.map((l) => `draw ${l.draw.toFixed(0)} ≤ asked ${l.workerAsked.toFixed(0)} ms`).join(", ")})`);
  const [still, live] = [median(loads.map((l) => l.still)), median(loads.map((l) => l.draw))];
  console.log(`     budget: wasm ${(gz / 2 ** 20).toFixed(2)} MiB gzip, ${(br / 2 ** 20).toFixed(2)} MiB brotli in all — ${parts.join("; ")}`);
  console.log(`     budget: first scene (the still) ${still.toFixed(0)} ms after navigation (limit 500 ms: ${still <= 500 ? "within" : "OVER"}), live frame's first draw ${live.toFixed(0)} ms (limit 3 s: ${live <= 3000 ? "within" : "OVER"}; medians of three fresh loads: still ${loads.map((l) => l.still.toFixed(0)).join(", ")}; live ${loads.map((l) => l.draw.toFixed(0)).join(", ")}); the first load's marks: ${loads[0].marks}; the frame drawn and both wasm answered ${first.ms} ms`);

  const { page } = await open("#/expand?shape=4,1,3&size=4,2,3&step=5");
  const boot = await page.evaluate(() => globalThis.pageReady);
  check(boot.backend === "gpu", `the page computes on WebGPU: ${boot.adapter}`);
  check(await page.locator("#backend").textContent() === `on WebGPU (${boot.adapter}), checked against the CPU reference`, "the results name the backend");
  {
    // A still scene's loop sleeps (web/frame.js): over 2 s the frame's
    // loop is given a few animation frames (one each wakeAfter, 500 ms),
    // not 120; a pointer over the scene wakes it at once.
    await page.waitForTimeout(t(1500)); // the ticks after a change (live.App's settleTicks)
    const loopFrames = () => page.evaluate(() => document.getElementById("frame").contentWindow.stridelabLoopFrames());
    const before = await loopFrames();
    await page.waitForTimeout(2000);
    const stillFrames = await loopFrames() - before;
    const box = await page.locator("#frame").boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.move(box.x + box.width / 2 + 5, box.y + box.height / 2 + 5);
    await page.waitForTimeout(300);
    const woken = await loopFrames() - before - stillFrames;
    check(stillFrames <= 12 && woken >= 2, `a still scene's loop sleeps: ${stillFrames} animation frames in 2 s (at most 12), then ${woken} in the 0.3 s after the pointer moved over it`);
  }
  const scenes = await page.$$eval("#scene option", (os) => os.map((o) => o.value));
  check(scenes.length === 9 && scenes.includes("program"), `the scene menu lists every scene: ${scenes.join(", ")}`);

  // Every gallery example from its URL.
  const gallery = await page.$$eval("#gallery option", (os) => os.filter((o) => o.value).map((o) => [o.textContent, o.value]));
  const lines = (await (await fetch(url + "gallery.txt")).text()).trim().split("\n");
  check(gallery.length === lines.length && gallery.length > 20, `the gallery menu holds the ${lines.length} examples of gallery.sh`);
  const seen = new Set();
  for (const [label, hash] of gallery) {
    await page.selectOption("#gallery", hash);
    await settle(page, hash);
    const { png, share, colours } = await ink(page);
    seen.add(sha(png));
    const computed = await page.locator("#computed").textContent();
    const computeError = await page.locator("#compute-error").textContent();
    const st = await frameState(page);
    const caption = await page.locator("#caption").textContent();
    const name = label.split(" — ")[0];
    check(share > 0.02 && colours > 8 && computedOK(computed) &&
      await page.locator("#computed").getAttribute("data-backend") === "gpu" && st.error === "" &&
      (!name.startsWith("program-") || (caption.startsWith(`${name}: `) && await page.locator("#caption").isVisible())),
    `gallery ${name}: ${hash} drawn (${(share * 100).toFixed(1)}% ink, ${colours} colours), WebGPU ${computedOK(computed) ? "agrees with the CPU" : "FAILS: " + computeError}${caption ? `; caption "${caption.slice(0, 60)}…"` : ""}`);
  }
  check(seen.size === gallery.length, `every gallery example draws a different picture (${seen.size} of ${gallery.length})`);
  const programs = gallery.filter(([label]) => label.startsWith("program-"));
  check(programs.length >= 6, `the gallery holds ${programs.length} programs: ${programs.map(([l]) => l.split(" — ")[0]).join(", ")}`);
  if (shots) {
    const dataParallel = gallery.find(([label]) => label.startsWith("program-data-parallel"))[1];
    for (const [name, hash] of [["boxing", "#/boxing?shape=25,33&from=S(0)&to=S(1)&placement=4&step=1"], ["placement", "#/placement?shape=8,6&sbp=S(0),P&placement=[[0,1],[2,3]]"], ["expand", "#/expand?shape=4,1,3&size=4,2,3&step=5"], ["program", dataParallel]]) {
      await page.evaluate((h) => { location.hash = h; }, hash);
      await settle(page, hash);
      await page.screenshot({ path: join(shots, `playground-${name}.png`), fullPage: true });
    }
  }

  // A program from its link, in a fresh page: its text area shows it one
  // statement a line.
  const [dpLabel, dpHash] = gallery.find(([label]) => label.startsWith("program-data-parallel"));
  await goTo(page, dpHash);
  const dp = { page };
  const area = dp.page.locator("textarea#f-src");
  const shownText = await area.inputValue();
  const srcOf = (h) => new URLSearchParams(h.replace(/^#\/program\?/, "").replace(/\+/g, "%2B")).get("src");
  check(await area.isVisible() && shownText.split("\n").length === 6 && shownText.startsWith("placement 4\nx = input 64,32 S(0)\n") &&
    await dp.page.getAttribute("#f-src", "aria-describedby") === "f-src-error f-src-help" && /monospace/.test(await area.evaluate((e) => getComputedStyle(e).fontFamily)) &&
    await area.evaluate((e) => getComputedStyle(e).resize) !== "none",
  `${dpLabel.split(" — ")[0]} from its link: the src text area shows the program one statement a line: ${JSON.stringify(shownText)}`);
  check(await dp.page.locator("#f-strategy input[value=exact]").isChecked() && !await dp.page.locator("#f-strategy input[value=greedy]").isChecked(),
    "the strategy toggle shows exact, as the gallery's link says (--strategy exact)");
  // Tab leaves the text area (it does not trap the keyboard).
  await area.focus();
  await dp.page.keyboard.press("Tab");
  check(await dp.page.evaluate(() => document.activeElement?.id !== "f-src" && document.activeElement?.name === "strategy"),
    `Tab leaves the program's text area for the next field (${await dp.page.evaluate(() => document.activeElement?.outerHTML.slice(0, 60))})`);
  // A step column clicked shows its section in the results: the op's
  // signature and the candidates it had.
  // (Step 7: x's gradient, grad_y · wᵀ, a matmul with transpose_b.)
  await dp.page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.click({ kind: "step", offset: 6 }));
  await dp.page.waitForFunction(() => [...document.querySelectorAll("#report .section")].some((s) => s.querySelector("h3").textContent === "focus" && s.textContent.includes("step 7")),
    null, { timeout: t(10000) }).catch(() => {});
  const stepText = await dp.page.$$eval("#report .section", (ss) => ss.filter((s) => s.querySelector("h3").textContent === "focus").map((s) => s.innerText).join(""));
  check(/step 7/.test(stepText) && /signature S\(0\) x B -> S\(0\)/.test(stepText) && /valid signatures/.test(stepText),
    `a step column clicked shows its signature and candidates in the results: ${stepText.replace(/\s+/g, " ").slice(0, 160)}`);
  await dp.page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.act("escape"));
  // Typing a program: the URL and the scene follow.
  const dpBefore = sha((await ink(dp.page)).png);
  const modelParallel = shownText.replace("x = input 64,32 S(0)", "x = input 64,32 B").replace("w = input 32,16 B", "w = input 32,16 S(1)");
  await area.fill(modelParallel);
  await dp.page.waitForFunction((h) => location.hash !== h && document.body.dataset.shown === location.hash && document.body.dataset.state === "ready", dpHash, { timeout: t(30000) });
  await dp.page.waitForTimeout(t(400));
  const typed = await dp.page.evaluate(() => location.hash);
  let pst = await frameState(dp.page);
  check(srcOf(typed) === modelParallel && pst.fields.src === modelParallel && sha((await ink(dp.page)).png) !== dpBefore &&
    computedOK(await dp.page.locator("#computed").textContent()),
  `typing model parallel into the program changes the URL (${typed.slice(0, 90)}…) and the scene (${pst.spec.slice(0, 60)}…)`);
  // A bad program: the error, its line named, under the field; the last
  // good URL and scene stay.
  const goodSpec = pst.spec;
  await area.fill(modelParallel.replace("y = matmul x w", "y = matmul x v"));
  await dp.page.waitForFunction(() => document.body.dataset.state === "error" && !document.getElementById("f-src-error").hidden, null, { timeout: t(10000) }).catch(() => {});
  const programError = await dp.page.locator("#f-src-error").textContent();
  check(/^program: line 4, column 1: y = matmul x v: .*v/.test(programError) && await area.getAttribute("aria-invalid") === "true" &&
    await dp.page.evaluate(() => location.hash) === typed && (await frameState(dp.page)).spec === goodSpec,
  `a bad program shows its error under the field, the line named, and the last good scene stays: ${programError}`);
  await area.fill(modelParallel);
  await dp.page.waitForFunction(() => document.body.dataset.state === "ready" && document.getElementById("f-src-error").hidden);
  // The greedy/exact toggle: the scene and the URL follow, and back.
  const exactPNG = sha((await ink(dp.page)).png);
  await dp.page.locator("#f-strategy label", { hasText: "greedy" }).click();
  await dp.page.waitForFunction(() => !/strategy=/.test(location.hash) && document.body.dataset.shown === location.hash && document.body.dataset.state === "ready", null, { timeout: t(30000) });
  await dp.page.waitForTimeout(t(400));
  pst = await frameState(dp.page);
  const greedyPNG = sha((await ink(dp.page)).png);
  check(!pst.fields.strategy && srcOf(await dp.page.evaluate(() => location.hash)) === modelParallel && exactPNG !== greedyPNG,
  `the toggle to greedy, the default, drops strategy from the URL (${(await dp.page.evaluate(() => location.hash)).slice(-40)}) and changes the scene (${(await dp.page.locator("#report-title").textContent()).slice(0, 70)})`);
  await dp.page.locator("#f-strategy label", { hasText: "exact" }).click();
  await dp.page.waitForFunction((h) => location.hash === h && document.body.dataset.shown === h && document.body.dataset.state === "ready", typed, { timeout: t(30000) });
  check((await frameState(dp.page)).fields.strategy === "exact" && /exact plan/.test(await dp.page.locator("#report").textContent()),
    `back to exact, the URL says so again: ${(await dp.page.evaluate(() => location.hash)).slice(-40)}`);
  // An edit of the first gallery program, of the widest (the 2-D mesh's)
  // and of Megatron's MLP: from the end of the page's pause to the frame
  // holding the new scene (main.js's "stridelab-edit-shown" measure), and
  // to the page ready with its results. Each program is typed with x's
  // rows scaled (scaledRows), so no plan is at hand. Reported, not
  // asserted: the figure is this machine's. make bench-edit (edits.mjs)
  // times every gallery program's edits; every program's own scene and
  // results are checked above, from its link.
  const megatron = "placement 4\nx = input 8,16 B\nw1 = input 16,32 S(1)\nh = matmul x w1\nzero = input 1 B\nr = max h zero\nw2 = input 32,16 S(0)\ny = matmul r w2\ns = sum y 1,1\ngrad s";
  const galleryPrograms = gallery.filter(([, h]) => h.startsWith("#/program"));
  const edits = [galleryPrograms[0], galleryPrograms.find(([label]) => label.includes("mesh")) || galleryPrograms[1]]
    .map(([label, h]) => [label.split(" — ")[0], srcOf(h).replaceAll("; ", "\n"), h]);
  edits.push(["Megatron's MLP", megatron, null]);
  // One page goes from program to program by its link (as the gallery
  // menu does), so each edit is cold for its own plan without a fresh
  // load of the page and its two wasm each time.
  const timings = [];
  const pg = page;
  const field = pg.locator("textarea#f-src");
  for (const [label, src, h] of edits) {
    await goTo(pg, h || dpHash);
    // one edit each, cold (make bench-edit times five, warm)
    const start = await pg.evaluate(() => performance.now());
    await field.fill(scaledRows(src, 2));
    await pg.waitForFunction((t) => document.body.dataset.state !== "busy" && performance.getEntriesByName("stridelab-edit-shown").some((m) => m.startTime > t), start, { timeout: t(30000) }).catch(() => {});
    timings.push([label, await pg.evaluate((t) => { const m = performance.getEntriesByName("stridelab-edit-shown").filter((e) => e.startTime > t).pop(); return m ? [m.duration, performance.now() - m.startTime] : null; }, start)]);
  }
  for (const [label, ms] of timings) {
    check(ms !== null, `an edit of ${label} shows its new scene ${ms ? ms[0].toFixed(0) : "?"} ms after the pause (the page ready with its results ${ms ? ms[1].toFixed(0) : "?"} ms after it)`);
  }

  // Editing a field: the URL and the scene follow.
  await page.evaluate(() => { location.hash = "#/expand?shape=4,1,3&size=4,2,3"; });
  await settle(page, "#/expand?shape=4,1,3&size=4,2,3");
  const before = sha((await ink(page)).png);
  await page.fill("#f-size", "4,5,3");
  await settle(page, "#/expand?shape=4,1,3&size=4,5,3");
  const after = await ink(page);
  let st = await frameState(page);
  check(st.fields.size === "4,5,3" && sha(after.png) !== before && after.share > 0.02,
    `typing --size 4,5,3 updates the URL (${await page.evaluate(() => location.hash)}) and the scene (${st.spec})`);
  // The transport steps the frame; the step goes to the URL.
  for (let i = 0; i < 3; i++) {
    await page.click("#forward");
    await page.waitForFunction((n) => /step=(\d+)/.exec(location.hash)?.[1] === String(n), i + 1);
  }
  const link = await page.evaluate(() => location.hash);
  check(link === "#/expand?shape=4,1,3&size=4,5,3&step=3", `three steps forward write the step into the URL: ${link}`);
  // A click gives the frame the keyboard: "." steps (the arrows walk the
  // cells), "," steps back.
  await page.click("#frame");
  await page.keyboard.press(".");
  await page.waitForFunction(() => location.hash.endsWith("step=4"), null, { timeout: t(5000) }).catch(() => {});
  check(await page.evaluate(() => location.hash.endsWith("step=4")), `after a click on the scene, "." steps it: ${await page.evaluate(() => location.hash)}`);
  await page.keyboard.press(",");
  await page.waitForFunction((h) => location.hash === h, link);
  await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.act("escape")); // the click pinned a cell

  // A pinned cell (frame.click, as a click on it) has its section in the
  // results, as the desktop app's panel shows it.
  await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.click({ kind: "cell", operand: "out", index: [1, 4, 2] }));
  // (The pointer, left on the frame by the click above, may show its own
  // hover first: wait for the pin's cell.)
  await page.waitForFunction(() => [...document.querySelectorAll("#report .section")].some((s) => s.querySelector("h3").textContent === "focus" && s.textContent.includes("[1 4 2]")),
    null, { timeout: t(10000) }).catch(() => {});
  const focusText = await page.$$eval("#report .section", (ss) => ss.filter((s) => s.querySelector("h3").textContent === "focus").map((s) => s.textContent).join(""));
  check(/\[1 4 2\]/.test(focusText), `a pinned cell shows in the results: ${focusText.replace(/^focus/, "").slice(0, 120)}`);
  // The live region says what the pinned cell means, in the session's words.
  await page.waitForFunction(() => document.getElementById("scene-status").textContent.startsWith("out[1,4,2] reads "), null, { timeout: t(10000) }).catch(() => {});
  const words = await page.locator("#scene-status").textContent();
  check(words.startsWith("out[1,4,2] reads ") && words === (await frameState(page)).words && await page.locator("#scene-status").getAttribute("role") === "status",
    `the live region says what the pinned cell means: "${words}"`);
  await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.act("escape"));
  // Tab leaves the scene's frame for the next control, shift+Tab for the
  // one before: the frame is no keyboard trap.
  await page.locator("#frame").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("Tab");
  const afterTab = await page.evaluate(() => document.activeElement?.id);
  await page.locator("#frame").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("Shift+Tab");
  const afterShiftTab = await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  check(afterTab === "first" && afterShiftTab !== "frame", `Tab in the scene moves to the next control (${afterTab}), shift+Tab to the one before (${afterShiftTab})`);

  // The URL in a fresh page reproduces the state.
  const fresh = await open(link);
  const [a, b] = [await frameState(page), await frameState(fresh.page)];
  const fieldsOf = (p) => p.$$eval("#field-list input", (is) => is.map((i) => `${i.name}=${i.value}`).join("&"));
  check(a.spec === b.spec && a.step === b.step && b.step === 3 && await fieldsOf(page) === await fieldsOf(fresh.page) &&
    await fresh.page.locator("#scrub").inputValue() === "3",
  `the link in a fresh page shows the same state: ${b.spec}, step ${b.step}, fields ${await fieldsOf(fresh.page)}`);
  await fresh.page.close();

  // Exports: valid files, the bytes `stridelab draw` writes.
  const dir = await mkdtemp(join(tmpdir(), "stridelab-playground-"));
  const command = (await page.locator("#command").textContent()).replace(/^stridelab /, "");
  const magic = { svg: (b) => /^(<\?xml[^>]*>\s*)?<svg[\s>]/.test(b.toString("utf8", 0, 200)) && b.toString().trimEnd().endsWith("</svg>"),
    png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) && b.includes("IEND"),
    gif: (b) => b.subarray(0, 6).toString() === "GIF89a" && b.at(-1) === 0x3b };
  for (const format of ["svg", "png", "gif"]) {
    const [download] = await Promise.all([page.waitForEvent("download", { timeout: t(60000) }), page.click(`.exports button[data-format=${format}]`)]);
    const got = await readFile(await download.path());
    const file = join(dir, `want.${format}`);
    const size = format === "gif" ? "--width 960 --height 540" : "--step 3 --width 1280 --height 720";
    await promisify(execFile)("sh", ["-c", `"$0" ${command} ${size} -o "$1"`, cli, file]);
    const want = await readFile(file);
    check(magic[format](got) && sha(got) === sha(want),
      `export ${format.toUpperCase()} downloads ${download.suggestedFilename()} (${got.length} bytes), a valid ${format} and the bytes stridelab draw writes`);
  }
  await rm(dir, { recursive: true });

  await keyboardWalk(page);

  // Bad input in every field of every scene: an error beside the field,
  // the last good URL and scene stay, and the good value brings it back.
  const examples = await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.scenes().then((r) => r.scenes.map((x) => x.example)));
  await page.selectOption("#scene", "binary");
  await settle(page, examples[scenes.indexOf("binary")]);
  check(await page.$$eval("#field-list input", (is) => is.map((i) => i.name).join(",")) === "shape,b-shape,op,offset",
    "picking binary in the scene menu shows its worked example and its fields (shape, b-shape, op, offset)");
  // The plan scene reads the fields its op needs, so its optional fields
  // are tried under an op that reads them.
  const cases = scenes.filter((s) => s !== "plan").map((s) => [examples[scenes.indexOf(s)], null]).concat([
    ["#/plan?op=expand&shape=4,3,1,2&sbp=S(3)&placement=2&size=2,4,3,4,2", ["op", "shape", "sbp", "placement", "size"]],
    ["#/plan?op=repeat&shape=3,1&sbp=S(0)&placement=2&times=1,2", ["times"]],
    ["#/plan?op=reduce&shape=4,6&sbp=S(1)&placement=2&to=4,1&reduce=max", ["to", "reduce"]],
    ["#/plan?op=matmul&shape=4,6&sbp=S(0)&placement=2&b-shape=6,8&b-sbp=B", ["b-shape", "b-sbp"]]]);
  for (const [hash, only] of cases) {
    const scene = /^#\/(\w+)/.exec(hash)[1];
    await page.evaluate((h) => { location.hash = h; }, hash);
    await settle(page, hash);
    const spec = (await frameState(page)).spec;
    // (A toggle has no bad value to type.)
    for (const name of only || await page.$$eval("#field-list input:not([type=radio]), #field-list textarea", (is) => is.map((i) => i.name))) {
      const input = page.locator(`#f-${name}`);
      const good = await input.inputValue();
      await input.fill("9,x!");
      await page.waitForFunction((n) => document.body.dataset.state === "error" && !document.getElementById(`f-${n}-error`).hidden, name, { timeout: t(5000) }).catch(() => {});
      const msg = await page.locator(`#f-${name}-error`).textContent();
      const invalid = await input.getAttribute("aria-invalid");
      const stay = await page.evaluate(() => location.hash) === hash && (await frameState(page)).spec === spec;
      check(msg.length > 10 && invalid === "true" && stay, `${scene} --${name} 9,x! shows beside the field: ${msg || "(nothing)"}`);
      await input.fill(good);
      await page.waitForFunction((n) => document.body.dataset.state === "ready" && document.getElementById(`f-${n}-error`).hidden, name);
    }
  }
  // Oversized: the scene is metadata and draws; its compute is refused in
  // place (the tab's 1 GiB budget), and the page keeps working.
  await page.evaluate(() => { location.hash = "#/expand?shape=1&size=1000,1000,1000"; });
  await page.waitForFunction(() => document.body.dataset.shown === location.hash && !document.getElementById("compute-error").hidden, null, { timeout: t(30000) });
  const refusal = await page.locator("#compute-error").textContent();
  check(/needs [\d.]+ GiB.*the limit is 1.00 GiB/.test(refusal), `an oversized compute is refused in place: ${refusal}`);
  await page.evaluate(() => { location.hash = "#/repeat?shape=3,1&times=2,1,3"; });
  await settle(page, "#/repeat?shape=3,1&times=2,1,3");
  check(agreesWithCPU.test(await page.locator("#computed").textContent()), "after the refusal the page computes again");
  // A bad link shows its error and the scene's worked example.
  await goTo(page, "#/reduce?shape=2,3,4");
  check(await page.locator("#link-error").isVisible() && /needs --to/.test(await page.locator("#link-error").textContent()) &&
    (await frameState(page)).scene === "reduce", `a bad link says why and shows the worked example: ${await page.locator("#link-error").textContent()}`);

  // &embed=1: no controls, paused.
  const embed = await open("#/boxing?shape=25,33&from=S(0)&to=S(1)&placement=4&step=1&embed=1");
  const e1 = await frameState(embed.page);
  await embed.page.waitForTimeout(t(1000));
  const e2 = await frameState(embed.page);
  const hidden = await embed.page.evaluate(() => ["#scene", "#fields", ".transport", ".results", ".exports"].every((s) => !document.querySelector(s).checkVisibility()));
  check(hidden && await embed.page.locator("#frame").isVisible() && !e1.playing && e1.step === 1 && e2.step === 1,
    `&embed=1 hides the controls and starts paused (step ${e2.step}, playing ${e2.playing})`);
  if (shots) await embed.page.screenshot({ path: join(shots, "playground-embed.png") });
  await embed.page.close();

  // Without WebGPU (navigator.gpu taken away in every frame) the page says
  // so and computes on the CPU.
  const noGPU = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await noGPU.addInitScript(() => { delete Navigator.prototype.gpu; });
  const plain = await noGPU.newPage();
  plain.on("pageerror", (e) => errors.push(e.message));
  await visit(plain, url + "#/reduce?shape=2,3,4&to=1,3,1&op=sum");
  await plain.waitForFunction(() => document.body.dataset.shown === location.hash);
  check(await plain.locator("#backend").textContent() === "no WebGPU: computed on the CPU" &&
    await plain.locator("#computed").getAttribute("data-backend") === "cpu" && agreesWithCPU.test(await plain.locator("#computed").textContent()),
  `without WebGPU the page says so and computes on the CPU: ${await plain.locator("#backend").textContent()}`);
  await noGPU.close();

  // The frame's keys work on the page where no field has the keyboard.
  await page.evaluate(() => { location.hash = "#/repeat?shape=5&times=3"; });
  await settle(page, "#/repeat?shape=5&times=3");
  await page.locator("h1").click();
  await page.keyboard.press("End");
  await page.waitForFunction(() => /step=\d+$/.test(location.hash), null, { timeout: t(5000) }).catch(() => {});
  const end = await frameState(page);
  check(end.step === end.steps - 1 && !end.playing, `End on the page goes to the last step: ${await page.evaluate(() => location.hash)}`);
  check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
} finally {
  await finish({ browser, served, tally, what: "playground" });
}
