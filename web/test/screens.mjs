// screens.mjs: the playground on every screen, in headless Chromium
// (Debian's /usr/bin/chromium through playwright-core; WebGL and WebGPU
// on SwiftShader), against `BIN serve` on a free loopback port:
//
//   - the width sweep, 360 to 1920 CSS px, portrait and landscape: the
//     page never scrolls sideways; the frame fills the width it is given
//     (on a narrow screen the whole column, tall on a portrait phone);
//     the scene is laid out for the frame's CSS size divided by the scale
//     it is drawn at, and no text of it is drawn smaller than 11 CSS px
//     (stridelab.frame.state().layout); on a narrow screen the page is
//     one column (the scene right under the header, then its fields, then
//     the results; in a lesson its text above the scene) and the controls
//     are 44 px tall for a finger; screenshots at 390×844,
//     768×1024, 1280×800 and 1920×1080 (and a lesson on a phone);
//   - the first scene at once: the still (still.js, drawn by serve's
//     /scene.svg) shows before the live frame has drawn, in exactly the
//     frame's box, and goes when the frame draws, and the frame's box does
//     not move; a new link before the wasm has started draws its still
//     again, and a lesson's link (no still: its answers are hidden) drops
//     it;
//   - a static copy (`BIN serve --write`, served by a plain file server
//     that has no /scene.svg) shows the pre-drawn still of a gallery
//     link, and its stills were drawn at the frame sizes this style sheet
//     gives at those viewports;
//   - no page errors.
//
//   node test/screens.mjs --cli bin/stridelab [--screenshots DIR]
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { promisify } from "node:util";
import { checker, finish, launch, options, serve, t } from "./harness.mjs";

const { cli, shots } = options("screens.mjs");

const tally = checker();
const check = tally.check;
const { served, url } = await serve(cli);
const browser = await launch();
const errors = [];
const watch = (p) => {
  p.on("pageerror", (e) => errors.push(e.message));
  p.on("console", (m) => { if (m.type() === "error" && !/404 \(Not Found\)/.test(m.text())) errors.push(m.text()); });
};

// The viewports of the sweep: phones, tablets and laptops in portrait and
// landscape, and a projector.
const sweep = [[360, 740], [390, 844], [412, 915], [844, 390], [600, 960], [768, 1024], [1024, 768], [1280, 800],
  [1440, 900], [1920, 1080], [1080, 1920]];
const shotSizes = ["390x844", "768x1024", "1280x800", "1920x1080"];
const boxing = "#/boxing?shape=25,33&from=S(0)&to=S(1)&placement=4&step=1";
// A gallery program: its caption comes with the wasm, and must not move the frame.
const program = "#/program?src=placement%204;%20x%20%3D%20input%2064,32%20S(0);%20w%20%3D%20input%2032,16%20B;%20y%20%3D%20matmul%20x%20w;%20s%20%3D%20sum%20y%201,1;%20grad%20s&strategy=exact&step=8";

// open loads base + hash in a fresh context of that viewport and waits
// until the page shows it.
async function open(base, hash, [width, height], { before } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  watch(page);
  if (before) await before(page);
  await page.goto(base + hash);
  return { context, page };
}

async function ready(page) {
  await page.evaluate(() => globalThis.pageReady);
  await page.waitForFunction(() => document.body.dataset.shown === location.hash && document.body.dataset.state === "ready", null, { timeout: t(60000) });
  await page.waitForTimeout(t(300)); // a few of the frame's ticks at SwiftShader's 10-20 fps
}

// measure reads what the sweep checks, in the page.
const measure = (page) => page.evaluate(() => {
  const frame = document.getElementById("frame");
  const box = (el) => { const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height, bottom: r.bottom + scrollY, top: r.top + scrollY }; };
  const stage = document.querySelector(".stage");
  const cs = getComputedStyle(stage);
  const small = [...document.querySelectorAll("button, select, .field input:not([type=radio]), .bar a")]
    .filter((el) => el.checkVisibility()).filter((el) => el.getBoundingClientRect().height < 43.5)
    .map((el) => el.id || el.textContent.trim().slice(0, 12) || el.tagName);
  const st = frame.contentWindow.stridelab.frame.state();
  return {
    scroll: document.documentElement.scrollWidth, inner: innerWidth, innerH: innerHeight,
    frame: box(frame), client: [frame.clientWidth, frame.clientHeight],
    stageWidth: stage.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
    header: box(document.querySelector(".bar")),
    fields: box(document.querySelector(document.body.classList.contains("in-lesson") ? "#lesson" : "#fields")),
    results: box(document.querySelector(".results")),
    small, layout: st.layout ?? null, error: st.error,
  };
});

const near = (a, b, tol = 1) => Math.abs(a - b) <= tol;

try {
  // The width sweep: one page, resized to each viewport in turn (as a
  // window is resized or a phone turned), each measured once the frame
  // has laid its scene out again for its new box.
  {
    const { context, page } = await open(url, boxing, sweep[0]);
    await ready(page);
    for (const vp of sweep) {
      await page.setViewportSize({ width: vp[0], height: vp[1] });
      await page.waitForFunction(() => {
        const frame = document.getElementById("frame");
        const L = frame.contentWindow.stridelab.frame.state().layout;
        return L && Math.abs(L.width - frame.clientWidth / L.scale) <= 1 && Math.abs(L.height - frame.clientHeight / L.scale) <= 1;
      }, null, { timeout: t(10000) }).catch(() => {});
      await page.waitForTimeout(t(300)); // a few of the frame's ticks at SwiftShader's 10-20 fps
      const m = await measure(page);
      const name = `${vp[0]}x${vp[1]}`;
      const narrow = vp[0] <= 900;
      check(m.scroll <= m.inner, `${name}: no sideways scrolling (the page is ${m.scroll} px wide in ${m.inner})`);
      check(near(m.frame.w, m.stageWidth), `${name}: the frame fills the width it is given (${m.frame.w.toFixed(0)} of ${m.stageWidth.toFixed(0)} px), ${m.frame.h.toFixed(0)} px tall`);
      const L = m.layout;
      check(L !== null && L.minTextPx >= 11 && near(L.width, m.client[0] / L.scale) && near(L.height, m.client[1] / L.scale),
        `${name}: the scene is laid out for the frame's ${m.client.join("×")} CSS px at its scale, its smallest text at least 11 CSS px: ` +
        (L ? `layout ${L.width}×${L.height} at scale ${L.scale}, smallest text ${L.minTextPx} px` : "frame.state() has no layout"));
      if (narrow) {
        check(m.frame.bottom <= m.fields.top && m.fields.bottom <= m.results.top && m.frame.top - m.header.bottom <= 24 && m.header.h <= 0.3 * m.innerH,
          `${name}: one column: the header (${m.header.h.toFixed(0)} px), the scene right under it (${m.frame.top.toFixed(0)}–${m.frame.bottom.toFixed(0)}), then its fields (${m.fields.top.toFixed(0)}–${m.fields.bottom.toFixed(0)}), then the results (from ${m.results.top.toFixed(0)})`);
        check(m.small.length === 0, `${name}: every control is at least 44 px tall for a finger${m.small.length ? ": not " + m.small.join(", ") : ""}`);
        const tall = vp[1] > vp[0] ? 0.7 * m.innerH : 0.9 * m.innerH;
        check(m.frame.h >= tall, `${name}: the frame is ${m.frame.h.toFixed(0)} px tall (at least ${tall.toFixed(0)} of the ${m.innerH} px screen)`);
      } else {
        check(m.frame.w / m.frame.h >= 1.5, `${name}: a slide-like frame, ${m.frame.w.toFixed(0)}×${m.frame.h.toFixed(0)}`);
      }
      if (shots && shotSizes.includes(name)) await page.screenshot({ path: join(shots, `screens-${name}.png`), fullPage: true });
  }
  await context.close();
  }
  // A lesson on a phone: its text above the scene.
  {
    const { context, page } = await open(url, "#/lesson/expand-repeat/2", [390, 844]);
    await ready(page);
    const m = await measure(page);
    check(m.scroll <= m.inner && m.fields.bottom <= m.frame.top && await page.locator("#lesson-heading").isVisible(),
      `390x844 lesson: the lesson's text (to ${m.fields.bottom.toFixed(0)}) sits above the scene (from ${m.frame.top.toFixed(0)}), no sideways scrolling`);
    if (shots) await page.screenshot({ path: join(shots, "screens-lesson-390x844.png"), fullPage: true });
    await context.close();
  }

  // The first scene at once, and no jump when the live frame takes over.
  // The wasm is held back until the still has been looked at, so the
  // still is seen whatever the machine's speed.
  let release;
  const held = new Promise((r) => { release = r; });
  const { context, page } = await open(url, boxing, [1280, 800], {
    before: (p) => p.route("**/playground.wasm", async (route) => { await held; await route.continue(); }),
  });
  await page.waitForFunction(() => !document.getElementById("still").hidden, null, { timeout: t(10000) }).catch(() => {});
  const still = (p = page) => p.evaluate(() => {
    const img = document.getElementById("still");
    const f = document.getElementById("frame").getBoundingClientRect();
    const i = img.getBoundingClientRect();
    return { shown: !img.hidden && img.complete && img.naturalWidth > 0, source: img.dataset.source, hash: img.dataset.hash, alt: img.alt,
      src: img.src, frame: [f.x, f.y, f.width, f.height], img: [i.x, i.y, i.width, i.height],
      at: performance.getEntriesByName("stridelab-still-shown")[0]?.startTime };
  });
  const s1 = await still();
  check(s1.shown && s1.source === "serve" && s1.hash === boxing && s1.alt.startsWith("boxing float32 [25 33]") && s1.img.join() === s1.frame.join(),
    `the still shows ${(s1.at ?? NaN).toFixed(0)} ms after navigation, before the frame's wasm: drawn by serve, alt "${s1.alt.slice(0, 40)}…", in the frame's box ${s1.frame.map((v) => v.toFixed(0)).join(",")}`);
  const svg = await page.evaluate(async (src) => (await (await fetch(src)).text()).slice(0, 300), s1.src);
  const client = await page.evaluate(() => [document.getElementById("frame").clientWidth, document.getElementById("frame").clientHeight]);
  check(svg.includes(`width="${client[0]}" height="${client[1]}" viewBox=`), `the still is drawn for the frame's ${client.join("×")} CSS px: ${/<svg[^>]*>/.exec(svg)?.[0]}`);
  // A new link before the wasm has started: the still follows it; a
  // lesson's link has none (its answers hide), so it is dropped.
  const repeat = "#/repeat?shape=3,1,5&times=5,3,1&step=12";
  await page.evaluate((h) => { location.hash = h; }, repeat);
  await page.waitForFunction((h) => document.getElementById("still").dataset.hash === h && !document.getElementById("still").hidden, repeat, { timeout: t(10000) }).catch(() => {});
  const s2 = await still();
  check(s2.shown && s2.hash === repeat && s2.alt.startsWith("repeat") && s2.src !== s1.src, `a new link before the frame has started shows its still: "${s2.alt}"`);
  await page.evaluate(() => { location.hash = "#/lesson/expand-repeat/2"; });
  await page.waitForFunction(() => document.getElementById("still").hidden, null, { timeout: t(10000) }).catch(() => {});
  check((await still()).shown === false, "a lesson's link drops the still (the live frame hides its answers)");
  await page.evaluate((h) => { location.hash = h; }, program);
  await page.waitForFunction((h) => document.getElementById("still").dataset.hash === h && !document.getElementById("still").hidden, program, { timeout: t(10000) }).catch(() => {});
  const before = await still();
  release();
  await page.waitForFunction(() => typeof document.getElementById("frame").contentWindow.stridelabFirstDraw === "number", null, { timeout: t(60000) });
  await page.waitForFunction(() => document.getElementById("still").hidden, null, { timeout: t(5000) }).catch(() => {});
  const after = await still();
  check(before.shown && !after.shown && !after.src, "the still goes once the live frame has drawn");
  check(after.frame.join() === before.frame.join(), `the frame's box does not move when the live frame takes over: ${before.frame.map((v) => v.toFixed(1)).join(",")} → ${after.frame.map((v) => v.toFixed(1)).join(",")}`);
  await ready(page);
  const done = await still();
  const caption = await page.locator("#caption").isVisible();
  check(!done.shown && await page.evaluate(() => location.hash) === program && caption && done.frame.join() === before.frame.join(),
    `no still once the frame is up; the page shows the link, its fields and its caption${caption ? "" : " (NO caption)"}, and the frame's box is where the still was: ${done.frame.map((v) => v.toFixed(1)).join(",")}`);
  await context.close();

  // A static copy: no /scene.svg, the pre-drawn stills instead.
  const dir = await mkdtemp(join(tmpdir(), "stridelab-screens-"));
  try {
    await promisify(execFile)(cli, ["serve", "--write", dir]);
    const index = JSON.parse(await readFile(join(dir, "scenes", "index.json"), "utf8"));
    // The stills were drawn at the frame sizes this style sheet gives.
    const sized = await open(url, "", [390, 844]);
    for (const [[w, h], want] of [[[390, 844], index.sizes[0]], [[768, 1024], index.sizes[1]], [[1280, 800], index.sizes[2]], [[1920, 1080], index.sizes[3]]]) {
      await sized.page.setViewportSize({ width: w, height: h });
      const got = await sized.page.evaluate(() => [document.getElementById("frame").clientWidth, document.getElementById("frame").clientHeight]);
      check(got.join() === want?.join(), `at ${w}×${h} the frame is ${got.join("×")} CSS px, a size the static copy's stills were drawn at (${want?.join("×")}; still.go's stillSizes)`);
    }
    await sized.context.close();
    const host = await staticHost(dir);
    const gallery = Object.keys(index.scenes).find((h) => h.startsWith("#/placement"));
    const { context, page } = await open(host.url, gallery, [390, 844], {
      before: (p) => p.route("**/playground.wasm", async (route) => { await new Promise((r) => setTimeout(r, 1500)); await route.continue(); }),
    });
    await page.waitForFunction(() => !document.getElementById("still").hidden, null, { timeout: t(10000) }).catch(() => {});
    const s = await still(page);
    check(s.shown && s.source === "gallery" && s.src.endsWith(`scenes/${index.scenes[gallery].n}-${index.sizes[0].join("x")}.svg`) && s.alt === index.scenes[gallery].title,
      `a static host (no scene.svg) shows the pre-drawn still of ${gallery}: ${s.src.split("/").slice(-2).join("/")}, "${s.alt}"`);
    await ready(page);
    check((await still(page)).shown === false, "and the live frame replaces it there too");
    await context.close();
    host.server.close();
  } finally {
    await rm(dir, { recursive: true });
  }
  check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
} finally {
  await finish({ browser, served, tally, what: "screens" });
}

// staticHost serves dir as a plain static host would: its files as they
// are, a 404 for anything else (such as scene.svg).
async function staticHost(dir) {
  const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml", ".txt": "text/plain" };
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^\/+/, "") || "index.html";
    try {
      const body = await readFile(join(dir, path));
      res.writeHead(200, { "Content-Type": types[extname(path)] || "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end("not found");
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}
