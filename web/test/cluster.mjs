// cluster.mjs: the program scene's cluster field end to end in headless
// Chromium (Debian's /usr/bin/chromium through playwright-core), against
// `BIN serve` on a free loopback port:
//
//   - URL → scene: the gallery's 2-D mesh program's link with
//     cluster=two-h100-nodes, cost=bytes and memory=show sets the menu,
//     the toggles and the frame's scene: it plans on that cluster (the
//     report's time, the frame's words for the all-reduce across the
//     nodes: its mesh dim, α, β, time), draws the time axis and the memory
//     lines (the frame's texts), and its smallest text is at least 11 CSS
//     px at a laptop's width and a phone's;
//   - the fields → URL → scene: the cost toggle back to its default drops
//     cost from the URL and replans (13.1 µs); none in the menu hides the
//     cost, drops cluster and cost from the URL and draws no time;
//   - a bad cluster's error in place: a two-node cluster picked for a 1-D
//     placement shows its error under the menu (aria-invalid) while the
//     last good URL and scene stay; a link naming no preset says which;
//   - a cluster's JSON in a link (as `stridelab draw --cluster FILE`
//     spells one) is an entry of the menu and plans there;
//   - the sweep: a program scene's sweep gives stridelab sweep's table,
//     cell for cell, and its two charts; bad counts give the CLI's line;
//   - no page errors.
//
//   node test/cluster.mjs --cli bin/stridelab [--screenshots DIR]
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { checker, finish, goTo, launch, options, serve, t, visit } from "./harness.mjs";

const { cli, shots } = options("cluster.mjs");
const tally = checker();
const check = tally.check;
const { served, url } = await serve(cli);
const browser = await launch();
const errors = [];

const mesh = "placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s";
const flat = "placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; s = sum y 1,1; grad s";

// open loads the playground at hash in a fresh page of a viewport and
// waits until it shows it.
async function open(hash, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error" && !(/status of 400/.test(m.text()) && /\/scene\.svg\?/.test(m.location().url))) errors.push(m.text()); });
  await visit(page, url + (hash || ""));
  await page.waitForFunction(() => document.body.dataset.shown === location.hash, null, { timeout: t(60000) });
  return { context, page };
}

// ready waits until the page has settled on what it shows.
const ready = (page) => page.waitForFunction(() => document.body.dataset.shown === location.hash && document.body.dataset.state === "ready", null, { timeout: t(60000) });
const frameState = (page) => page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.state());
const texts = (page) => page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.texts());
// hashOf spells a command line as a link, as the wasm does.
const hashOf = (page, command) => page.evaluate((c) => document.getElementById("frame").contentWindow.stridelab.spec({ command: c }).then((r) => r.hash), command);
const hashNow = (page) => page.evaluate(() => location.hash);
const costShown = (page) => page.evaluate(() => !document.getElementById("f-cost").closest(".field").hidden);

try {
  // URL → scene.
  let { context, page } = await open("");
  const timed = await hashOf(page, `program --src '${mesh}' --strategy exact --cluster two-h100-nodes --cost bytes --memory show --step 9`);
  await page.evaluate((h) => { location.hash = h; }, timed);
  await ready(page);
  let st = await frameState(page);
  check(await page.locator("#f-cluster").evaluate((el) => el.tagName === "SELECT" && el.value) === "two-h100-nodes" &&
    await page.locator("#f-cost input[value=bytes]").isChecked() && await page.locator("#f-memory input[value=show]").isChecked() && await costShown(page),
    `the link ${timed.slice(0, 60)}… sets the cluster menu (two-h100-nodes), the cost toggle (bytes, shown) and memory (show)`);
  check(st.fields.cluster === "two-h100-nodes" && st.fields.cost === "bytes" && / --cluster two-h100-nodes --cost bytes --memory show/.test(st.spec) && st.step === 9,
    `the frame shows the link's scene: ${st.spec.slice(-70)} at step ${st.step + 1}`);
  const report = await page.locator("#report").textContent();
  check(/on two-h100-nodes, exact by bytes: 23\.0 µs/.test(report) && /8192 B/.test(report), "the report gives the plan of fewest bytes on two-h100-nodes: 8192 B in 23.0 µs");
  const drawn = await texts(page);
  const need = ["each step's time", "compute", "communication", "what each device holds", "r0–r3 peak 13.0 KiB at step 8", "20.0 µs", "Σ 23.0 µs"];
  check(need.every((t) => drawn.includes(t)), `the frame draws the time axis and the memory lines: ${need.filter((t) => !drawn.includes(t)).join(", ") || "all of " + need.join(", ")}`);
  st = await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.click({ kind: "step", offset: 9 }));
  check(st.words === "step 10 (backward): box grad_w.y from (P(sum), B) to (B, S(1)): local-slice + all-reduce, 4.00 KiB; all-reduce across mesh dim 0 (2 devices; α 10.0 µs, β 50 GB/s): 20.0 µs; each device holds 12.0 KiB",
    `the boxing's column, clicked, says its collective, the mesh dim it crosses, α, β and the time: "${st.words}"`);
  st = await frameState(page);
  check(st.layout?.minTextPx >= 11, `at 1280 px the frame's smallest text is ${st.layout?.minTextPx} CSS px (at least 11)`);
  if (shots) await page.locator(".stage").screenshot({ path: join(shots, "cluster-1280.png") });

  // The cost toggle to its default (time): the URL drops cost, the plan is the fastest.
  await page.locator("#f-cost label", { hasText: "time" }).click();
  await page.waitForFunction(() => !/cost=/.test(location.hash) && document.body.dataset.shown === location.hash && document.body.dataset.state === "ready", null, { timeout: t(60000) });
  check(/cluster=two-h100-nodes/.test(await hashNow(page)) && /on two-h100-nodes, exact by time: 13\.1 µs/.test(await page.locator("#report").textContent()),
    `cost time, the default, drops cost from the URL and plans the fastest (13.1 µs): ${(await hashNow(page)).slice(-60)}`);

  // none: the cost hides, the URL drops cluster and cost, no time is drawn.
  await page.selectOption("#f-cluster", "none");
  await page.waitForFunction(() => !/cluster=/.test(location.hash) && document.body.dataset.shown === location.hash && document.body.dataset.state === "ready", null, { timeout: t(60000) });
  const plain = await texts(page);
  check(!await costShown(page) && !/cost=/.test(await hashNow(page)) && !plain.includes("each step's time") && plain.includes("what each device holds"),
    `cluster none hides the cost, drops cluster and cost from the URL, draws no time and keeps the memory lines: ${(await hashNow(page)).slice(-50)}`);
  await page.selectOption("#f-cluster", "tpu-v5e");
  await page.waitForFunction(() => /cluster=tpu-v5e/.test(location.hash) && document.body.dataset.shown === location.hash && document.body.dataset.state === "ready", null, { timeout: t(60000) });
  check(await costShown(page) && /on tpu-v5e/.test(await page.locator("#report").textContent()), "picking tpu-v5e shows the cost again and plans there");
  const flatLink = await hashOf(page, `program --src '${flat}' --cluster h100-node`);

  // The rest in the same page, by its links (as the gallery menu and a
  // pasted link change it), which spares a fresh load of its two wasm
  // each time. A bad cluster's error in place: two nodes' links for a
  // 1-D placement.
  const go = (h) => goTo(page, h);
  await go(flatLink);
  const good = await hashNow(page);
  const spec = (await frameState(page)).spec;
  await page.selectOption("#f-cluster", "two-h100-nodes");
  await page.waitForFunction(() => document.body.dataset.state === "error" && !document.getElementById("f-cluster-error").hidden, null, { timeout: t(60000) }).catch(() => {});
  const msg = await page.locator("#f-cluster-error").textContent();
  check(/cluster two-h100-nodes: links: 2 links for cpu:\[0, 1, 2, 3\], a 1-D mesh/.test(msg) && await page.locator("#f-cluster").getAttribute("aria-invalid") === "true" &&
    await hashNow(page) === good && (await frameState(page)).spec === spec,
    `two-h100-nodes for placement 4 shows its error under the cluster menu, the last good URL and scene stay: ${msg}`);
  if (shots) await page.locator("#fields").screenshot({ path: join(shots, "cluster-error.png") });
  await page.selectOption("#f-cluster", "h100-node");
  await page.waitForFunction(() => document.body.dataset.state === "ready" && document.getElementById("f-cluster-error").hidden, null, { timeout: t(60000) });
  check(await page.locator("#f-cluster").getAttribute("aria-invalid") === null, "h100-node again clears the error");

  // A link naming no preset says which, and shows the worked example.
  await page.evaluate((h) => { location.hash = h; }, `#/program?src=${encodeURIComponent(flat)}&cluster=dgx-9000`);
  await page.waitForFunction(() => !document.getElementById("link-error").hidden && document.body.dataset.state === "ready", null, { timeout: t(60000) });
  const linkError = await page.locator("#link-error").textContent();
  check(/cluster dgx-9000: no preset of that name; the presets are h100-node, two-h100-nodes, tpu-v5e, loopback, h100-nodes:N/.test(linkError), `a link with cluster=dgx-9000 says why it does not open: ${linkError}`);

  // A cluster's JSON in a link: an entry of the menu of its own.
  const json = JSON.stringify({ name: "my-nodes", links: [{ alpha_s: 1e-5, beta_bytes_per_s: 5e10 }, { alpha_s: 3e-6, beta_bytes_per_s: 4.5e11 }], device: { flops_per_s: 6.7e13, mem_bytes_per_s: 3.35e12, mem_capacity_bytes: 8e10 } });
  const custom = await hashOf(page, `program --src '${mesh}' --strategy exact --cluster '${json}'`);
  await go(custom);
  check(await page.locator("#f-cluster").inputValue() === json && /on my-nodes, exact by time: 13\.1 µs/.test(await page.locator("#report").textContent()),
    "a cluster's JSON in a link is the menu's choice and plans there (my-nodes, 13.1 µs)");

  // A phone: the time axis and the memory lines at 11 CSS px or more
  // (the page turned to a phone's viewport, the frame laid out again).
  await go(timed);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => {
    const frame = document.getElementById("frame");
    const L = frame.contentWindow.stridelab.frame.state().layout;
    return L && Math.abs(L.width - frame.clientWidth / L.scale) <= 1;
  }, null, { timeout: t(10000) }).catch(() => {});
  await page.waitForTimeout(t(400)); // a few of the frame's ticks at SwiftShader's 10-20 fps
  st = await frameState(page);
  const phone = await texts(page);
  check(st.layout?.minTextPx >= 11 && phone.includes("each step's time") && phone.includes("r0–r3 peak 13.0 KiB at step 8"),
    `at 390×844 the frame (${st.layout?.width}×${st.layout?.height}) draws the time axis and the memory lines, its smallest text ${st.layout?.minTextPx} CSS px`);
  if (shots) await page.screenshot({ path: join(shots, "cluster-390.png"), fullPage: true });

  // The sweep: the program in the text area on a growing cluster, the
  // table `stridelab sweep` prints, cell for cell, and its two charts.
  await page.setViewportSize({ width: 1280, height: 900 });
  const wide = "placement 8; optimizer adam; x = const 8192,4096 S(0) bf16; w1 = input 4096,16384 auto bf16; w2 = input 16384,4096 auto bf16; h = matmul x w1; a = relu h; y = matmul a w2; s = sum y 1,1; grad s";
  await go(await hashOf(page, `program --src '${wide}' --cluster h100-node`));
  check(!await page.locator("#sweep").isHidden(), "a program scene offers its sweep");
  await page.fill("#sweep-devices", "1,2,8,16");
  await page.click("#sweep-run");
  await page.waitForFunction(() => ["ready", "error"].includes(document.getElementById("sweep").dataset.state), null, { timeout: t(120000) });
  const cells = await page.locator("#sweep-table tr").evaluateAll((trs) => trs.slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)));
  const cliRows = execFileSync(cli, ["sweep", "--src", wide, "--cluster", "h100-nodes", "--devices", "1,2,8,16", "--strategy", "exact"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
    .split("\n").slice(1, 5).map((l) => l.trim().split(/\s{2,}/));
  check(cells.length === 4 && cells.every((row, i) => row.slice(0, 8).join("|") === cliRows[i].slice(0, 8).join("|")),
    `the sweep's table is stridelab sweep's, cell for cell: ${cells.map((r) => r.slice(0, 4).join(" ")).join("; ")}`);
  const charts = await page.locator("#sweep-chart svg").evaluateAll((svgs) => svgs.map((s) => ({ lines: [...s.querySelectorAll("polyline")].map((p) => p.getAttribute("points").split(" ").length), text: s.textContent })));
  check(charts.length === 2 && charts[0].lines[0] === 4 && charts[1].lines[0] === 4 && /tensor parallel/.test(charts[0].text) && /step time/.test(charts[0].text) && /device memory/.test(charts[1].text),
    `two charts, step time and the peak, a point a count and the layout change marked: ${JSON.stringify(charts.map((c) => c.lines))}`);
  check(/^stridelab sweep --src 'placement 8; optimizer adam;.*' --cluster h100-nodes --devices 1,2,8,16 --strategy exact$/.test(await page.locator("#sweep-command").textContent()),
    "the sweep's command line is shown");
  if (shots) await page.locator("#sweep").screenshot({ path: join(shots, "sweep.png") });
  await page.fill("#sweep-devices", "1,x");
  await page.click("#sweep-run");
  await page.waitForFunction(() => document.getElementById("sweep").dataset.state === "error", null, { timeout: t(30000) });
  check(await page.locator("#sweep-error").textContent() === '--devices "1,x": give device counts from 1, comma-separated (1,2,4,8)' &&
    await page.locator("#sweep-devices").getAttribute("aria-invalid") === "true", "bad device counts: the CLI's one line, under the form");
  await go(await hashOf(page, "expand --shape 4,1,3 --size 4,2,3"));
  check(await page.locator("#sweep").isHidden(), "a scene with no program offers no sweep");
  await context.close();

  check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join(" | ") : ""}`);
} catch (e) {
  check(false, `the cluster test stopped: ${String(e?.message ?? e).split("\n")[0]}`);
}
await finish({ browser, served, tally, what: "cluster" });
