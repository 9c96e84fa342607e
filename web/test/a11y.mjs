// a11y.mjs: axe-core (web/node_modules/axe-core, pinned in package.json)
// finds no accessibility violation — WCAG 2.0 and 2.1, levels A and AA,
// and axe's best practices — in headless Chromium (Debian's
// /usr/bin/chromium through playwright-core; WebGL and WebGPU on
// SwiftShader), against `BIN serve` on a free loopback port, on:
//
//   - the playground as it opens (#/expand…), its scene frame included
//     (axe runs in the same-origin frame.html too);
//   - a lesson step whose question is open;
//   - a program scene (the gallery's data-parallel program);
//   - the phone layout (390×844, touch);
//   - the kernels' page, and the static lesson pages of `BIN lessons`.
//
// Each violation prints its rule, its impact, the nodes it found (their
// CSS targets, a frame's path first) and axe's help text and link. The
// page is fixed, not the rules: none is disabled here.
//
//   node test/a11y.mjs --cli bin/stridelab [--screenshots DIR]
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { checker, finish, goTo, launch, options, serve, t, visit } from "./harness.mjs";

const { cli, shots } = options("a11y.mjs");
const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

const tally = checker();
const check = tally.check;
const { served, url } = await serve(cli);
const browser = await launch();
const errors = [];

// audit runs axe on a page and every frame in it (axe reaches a frame's
// document through the axe copy injected there) and checks that it found
// no violation; each one found is printed.
async function audit(page, what) {
  for (const f of page.frames()) await f.addScriptTag({ path: axePath });
  const r = await page.evaluate((tags) => globalThis.axe.run(document, {
    runOnly: { type: "tag", values: tags },
    iframes: true,
  }), TAGS);
  const nodes = r.violations.reduce((n, v) => n + v.nodes.length, 0);
  // A node in a frame has a target of two selectors (the iframe's, then
  // the node's in the frame): that axe ran in the scene's frame too.
  const framed = page.frames().length > 1
    ? ` (the frame: ${r.passes.concat(r.violations).filter((x) => x.nodes.some((n) => n.target.length > 1)).length} rules)` : "";
  check(r.violations.length === 0 && (page.frames().length === 1 || framed !== " (the frame: 0 rules)"),
    `${what}: axe ${r.testEngine.version} finds ${r.violations.length} violations (${nodes} nodes) of ${r.passes.length + r.violations.length} rules that apply${framed}`);
  if (r.incomplete.length) console.log(`       for a person to review (axe could not decide): ${r.incomplete.map((v) => `${v.id} ×${v.nodes.length}`).join(", ")}`);
  for (const v of r.violations) {
    console.log(`       ${v.id} (${v.impact}): ${v.help} — ${v.helpUrl}`);
    for (const n of v.nodes.slice(0, 8)) {
      console.log(`         ${n.target.map((t) => [].concat(t).join(" ")).join(" >> ")}: ${n.failureSummary.replace(/\s+/g, " ").slice(0, 240)}`);
    }
    if (v.nodes.length > 8) console.log(`         … and ${v.nodes.length - 8} more`);
  }
  return r;
}

// open loads the playground at hash in a fresh page of context and waits
// until it shows it (its fields, the frame, the results) and the frame has
// drawn a few ticks.
async function open(context, hash) {
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await visit(page, url + (hash || ""));
  await page.waitForFunction(() => document.body.dataset.shown === location.hash && document.body.dataset.state === "ready", null, { timeout: t(30000) });
  await page.waitForTimeout(t(400)); // a few of the frame's ticks at SwiftShader's 10-20 fps
  return page;
}

// canvasNamed checks the scene's canvas (Ebitengine's, in frame.html):
// in the Tab order, an application named by the scene's title as the
// results show it.
async function canvasNamed(page, what) {
  const c = await page.evaluate(() => {
    const canvas = document.getElementById("frame").contentDocument.querySelector("canvas");
    return { tabindex: canvas.getAttribute("tabindex"), role: canvas.getAttribute("role"), label: canvas.getAttribute("aria-label"),
      title: document.getElementById("report-title").textContent.replace(/ — step \d+ of \d+$/, "") };
  });
  check(c.tabindex === "0" && c.role === "application" && c.label && c.label === c.title,
    `${what}: the scene's canvas is in the Tab order (tabindex ${c.tabindex}), role ${c.role}, named "${c.label}" (the scene's title: "${c.title}")`);
}

// rings walks the page with Tab from its start and checks that every
// control it reaches shows a focus ring (:focus-visible with an outline
// of at least 2 px); in the scene's frame the ring is the canvas's.
async function rings(page, what) {
  await page.evaluate(() => { document.activeElement?.blur(); window.focus(); });
  const seen = [];
  const bare = [];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press("Tab");
    const f = await page.evaluate(() => {
      let el = document.activeElement;
      let name = el?.id || el?.getAttribute("aria-label") || el?.textContent.trim().slice(0, 20) || el?.tagName;
      if (el?.tagName === "IFRAME") {
        el = el.contentDocument.activeElement;
        name = `#frame >> ${el?.tagName.toLowerCase()}`;
      }
      if (!el || el === document.body) return null;
      const cs = getComputedStyle(el);
      return { name: `${el.tagName.toLowerCase()} ${name}`, ring: el.matches(":focus-visible") && cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) >= 2,
        outline: `${el.matches(":focus-visible") ? "" : "not :focus-visible, "}${cs.outlineStyle} ${cs.outlineWidth}` };
    });
    if (!f) continue;
    if (seen.includes(f.name)) break; // round again
    seen.push(f.name);
    if (!f.ring) bare.push(`${f.name} (${f.outline})`);
    if (shots && /canvas|button play/.test(f.name)) await page.screenshot({ path: join(shots, `a11y-ring-${f.name.split(" ").pop()}.png`) });
  }
  check(seen.length > 10 && bare.length === 0,
    `${what}: Tab reaches ${seen.length} controls, each with a focus ring${bare.length ? `; without one: ${bare.join(", ")}` : ""}`);
}

const api = (page, fn, arg) => page.evaluate(([fn, arg]) => document.getElementById("frame").contentWindow.stridelab[fn](arg), [fn, arg]);
const shot = async (page, name) => { if (shots) await page.screenshot({ path: join(shots, `a11y-${name}.png`), fullPage: true }); };

try {
  const desk = await browser.newContext({ viewport: { width: 1280, height: 900 } });

  // 1. The playground as a learner opens it.
  let page = await open(desk, "");
  check(/^#\/expand/.test(await page.evaluate(() => location.hash)), `the playground opens on ${await page.evaluate(() => location.hash)}`);
  await audit(page, "the playground as it opens");
  await canvasNamed(page, "the playground");
  await rings(page, "the playground");
  // The report is rewritten at every hover and step: inside a live region
  // a screen reader would read all of it each time, over the scene's words.
  const loud = await page.evaluate(() => [...document.querySelectorAll("[aria-live], [role=status], [role=log]")]
    .filter((el) => el.getAttribute("aria-live") !== "off" && el.contains(document.getElementById("report"))).map((el) => el.className || el.tagName));
  check(loud.length === 0, `the results' report is in no live region${loud.length ? `: it is in ${loud.join(", ")}` : ""}; the scene's words are (#scene-status: ${await page.locator("#scene-status").getAttribute("role")})`);
  await shot(page, "playground");

  // 2. A lesson step whose question is open (not yet answered).
  const { lessons } = await api(page, "lessons");
  const l = lessons.find((x) => x.steps.some((s) => s.question));
  const st = l.steps.find((s) => s.question);
  const { hash: lessonHash } = await api(page, "lessonRoute", { id: l.id, step: st.n });
  await page.evaluate((h) => { location.hash = h; }, lessonHash);
  await page.waitForFunction((h) => document.body.dataset.shown === h && document.body.dataset.state === "ready", lessonHash, { timeout: t(30000) });
  await page.waitForFunction(() => !document.getElementById("lesson-prompt").hidden, null, { timeout: t(10000) });
  check(await page.locator("#lesson").isVisible() && /Question:/.test(await page.locator("#lesson-prompt").textContent()),
    `${lessonHash} shows its question: "${(await page.locator("#lesson-prompt").textContent()).slice(0, 80)}…"`);
  await audit(page, `a lesson step with its question open (${l.id} step ${st.n})`);
  await shot(page, "lesson");

  // 3. A program: the gallery's data-parallel example.
  const gallery = await (await fetch(url + "gallery.txt")).text();
  const line = gallery.split("\n").find((x) => x.startsWith("program-data-parallel|"));
  const [, args, at] = line.split("|");
  const { hash: programHash } = await api(page, "spec", { command: `${args} --step ${at}` });
  const { hash: embedHash } = await api(page, "spec", { command: "boxing --shape 25,33 --from S(0) --to S(1) --placement 4", embed: true });
  // The program and the embed by their links in the same page (as the
  // gallery menu and a pasted link open them), sparing a fresh load.
  const go = async (h) => {
    await goTo(page, h);
    await page.waitForTimeout(t(400)); // a few of the frame's ticks at SwiftShader's 10-20 fps
  };
  await go(programHash);
  check((await page.evaluate(() => location.hash)).startsWith("#/program"), `the program opens: ${programHash.slice(0, 60)}…`);
  await audit(page, "a program scene");
  await canvasNamed(page, "a program");
  await shot(page, "program");

  // The scene alone (&embed=1, for teaching pages): the controls hidden.
  await go(embedHash);
  check(await page.evaluate(() => document.body.classList.contains("embed")) && !(await page.locator("#fields").isVisible()), `${embedHash} shows the scene alone`);
  await audit(page, "the scene alone (&embed=1)");
  await shot(page, "embed");
  await page.close();
  await desk.close();

  // 4. The phone layout: 390×844, touch.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  page = await open(phone, "");
  await audit(page, "the phone layout (390×844, touch)");
  await shot(page, "phone");
  await page.close();
  await phone.close();

  // 5. The kernels' page, once its examples have run.
  const plain = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await plain.newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url + "kernels.html");
  await page.waitForFunction(() => !/loading/.test(document.getElementById("device").textContent) && document.querySelectorAll("#examples tbody tr").length > 0, null, { timeout: t(60000) });
  await audit(page, "the kernels' page");
  await page.close();

  // 6. The static lesson pages (`BIN lessons`: no wasm): the index and
  // each lesson.
  const dir = await mkdtemp(join(tmpdir(), "stridelab-a11y-"));
  try {
    await promisify(execFile)(cli, ["lessons", "-o", dir]);
    const pages = (await readdir(dir)).filter((f) => f.endsWith(".html")).sort();
    check(pages.includes("index.html") && pages.length > 1, `${cli} lessons wrote ${pages.length} pages`);
    for (const f of pages) {
      page = await plain.newPage();
      await page.goto(pathToFileURL(join(dir, f)).href);
      await audit(page, `the static lesson page ${f}`);
      await page.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
} catch (e) {
  check(false, `the walk stopped: ${e.stack || e}`);
} finally {
  await finish({ browser, served, tally, what: "accessibility" });
}
