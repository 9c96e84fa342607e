// lessons.mjs: every step of every lesson in the playground, in headless
// Chromium (Debian's /usr/bin/chromium through playwright-core; WebGL
// and WebGPU on SwiftShader), against `BIN serve` on a free loopback port.
// Each step opens from its link (#/lesson/ID/STEP) and shows its text; a
// step with a question is answered by clicking the frame with the real
// pointer, once on a wrong cell (the explanation shows, the step stays
// unanswered) and once on the right one (judged right, the step joins the
// done list in the URL); until the right click the results panel, the
// Computed panel and the scene (its drawn texts, stridelab.frame.texts)
// hide what would answer the question, and after it they show it; the
// first question of each lesson is screenshot open and answered.
//
//   node test/lessons.mjs --cli bin/stridelab [--screenshots DIR]
import { join } from "node:path";
import { checker, finish, launch, options, serve, t, visit } from "./harness.mjs";

const { cli, shots } = options("lessons.mjs");

const tally = checker();
const check = tally.check;
const { served, url } = await serve(cli);
const browser = await launch();
const errors = [];
const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
page.on("pageerror", (e) => errors.push(e.message));
page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });

const api = (fn, arg) => page.evaluate(([fn, arg]) => document.getElementById("frame").contentWindow.stridelab[fn](arg), [fn, arg]);

// clickCell clicks where the frame draws focus, with the real pointer
// held long enough for the frame's next tick to see the press.
async function clickCell(focus) {
  const at = await page.evaluate((f) => document.getElementById("frame").contentWindow.stridelab.frame.locate(f), focus);
  const box = await page.locator("#frame").boundingBox();
  await page.mouse.move(box.x + at.x, box.y + at.y);
  await page.waitForTimeout(t(150));
  await page.mouse.down();
  await page.waitForTimeout(t(250));
  await page.mouse.up();
}

// panels reads the results panel (its lines and table cells) and the
// Computed panel as the page shows them.
const panels = () => page.evaluate(() => ({
  report: [...document.querySelectorAll("#report p, #report td")].map((e) => e.textContent),
  computed: document.getElementById("computed").textContent,
}));

// answerLines are the lines and cells of a scene's report (stridelab.scene's
// sections) that are there when shown and not when its answers are hidden.
async function answerLines(hash) {
  const cells = (r) => r.sections.flatMap((s) => [...(s.Lines || []), ...(s.Table || []).slice(1).flat()]);
  const hidden = new Set(cells(await api("scene", { hash, hideAnswers: true })));
  return cells(await api("scene", { hash })).filter((l) => !hidden.has(l));
}

const hiddenWords = "hidden until you answer";
const questionMarks = async () => (await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.texts())).filter((t) => t === "?").length;

// feedback waits for the frame to judge click number tries.
async function feedback(tries) {
  await page.waitForFunction((n) => document.getElementById("lesson-feedback").dataset.tries === String(n), tries, { timeout: t(20000) });
  return { text: await page.locator("#lesson-feedback").textContent(), cls: await page.locator("#lesson-feedback").getAttribute("class") };
}

try {
  await visit(page, url);
  const { lessons } = await api("lessons");
  check(lessons.length === 6 && lessons.some((l) => l.id === "tensor-parallel"), `the lessons menu lists ${lessons.length} lessons: ${lessons.map((l) => l.id).join(", ")}`);
  for (const l of lessons) {
    let done = [];
    for (const st of l.steps) {
      const { hash } = await api("lessonRoute", { id: l.id, step: st.n, done });
      await page.evaluate((h) => { location.hash = h; }, hash);
      await page.waitForFunction((h) => document.body.dataset.shown === h && document.body.dataset.state === "ready", hash, { timeout: t(30000) });
      const heading = await page.locator("#lesson-heading").textContent();
      const text = await page.locator("#lesson-text").textContent();
      const ok = heading === st.title && text.length > 40 && await page.locator("#lesson").isVisible() && !(await page.locator("#fields").isVisible());
      if (!st.question) {
        check(ok, `${l.id} step ${st.n}: "${heading}" shows its text`);
        continue;
      }
      // The clicks, among what the frame draws at the size it laid the scene out for.
      const { layout } = await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.state());
      const { right, wrong } = await api("lessonAnswers", { id: l.id, step: st.n, width: layout?.width, height: layout?.height });
      // While the question is open: the panels and the scene hide its answer.
      const answers = await answerLines(st.hash);
      await page.waitForFunction((w) => document.getElementById("computed").textContent.includes(w), hiddenWords, { timeout: t(20000) }).catch(() => {});
      const open = await panels();
      const prompt = await page.locator("#lesson-prompt").isVisible() ? await page.locator("#lesson-prompt").textContent() : "";
      check(prompt.startsWith("Question: "), `${l.id} step ${st.n}: the question shows as the step opens, before the pointer moves: "${prompt.slice(0, 70)}"`);
      const leaked = answers.filter((a) => open.report.includes(a));
      const marksOpen = await questionMarks();
      check(leaked.length === 0 && open.computed.includes(hiddenWords) && !/matches|equal/.test(open.computed),
        `${l.id} step ${st.n}: with the question open the results hide the ${answers.length} lines that answer it${leaked.length ? ", but show " + leaked.slice(0, 3).join(" | ") : ""}, and the Computed panel says "${open.computed.slice(0, 80)}"`);
      const first = st.n === l.steps.find((s) => s.question).n;
      if (shots && first) await page.screenshot({ path: join(shots, `lesson-${l.id}-open.png`) });
      // Both clicks must be drawn at the frame's size (a narrow frame may
      // leave some of a scene out): say so and go on rather than stop.
      const missing = [];
      for (const f of [wrong, right]) {
        await page.evaluate((f) => document.getElementById("frame").contentWindow.stridelab.frame.locate(f), f).catch((e) => missing.push(e.message));
      }
      if (missing.length) {
        check(false, `${l.id} step ${st.n}: the frame does not draw the clicks the test answers with: ${missing.join("; ")}`);
        continue;
      }
      await clickCell(wrong);
      const w = await feedback(1);
      const stayed = !(await page.evaluate(() => location.hash)).includes(`done=`) || !new RegExp(`[=,]${st.n}(,|$)`).test(await page.evaluate(() => location.hash));
      await clickCell(right);
      const r = await feedback(2);
      // Once answered: the panels show everything, and the scene draws fewer "?".
      const shown = await page.waitForFunction((w) => !document.getElementById("computed").textContent.includes(w) && /\S/.test(document.getElementById("computed").textContent)
        && ![...document.querySelectorAll("#report p")].some((p) => p.textContent.includes(w)), hiddenWords, { timeout: t(20000) }).then(() => true, () => false);
      const marksAfter = await questionMarks();
      const answered = await page.evaluate(() => document.getElementById("frame").contentWindow.stridelab.frame.state());
      check(shown, `${l.id} step ${st.n}: after the right click the results and the Computed panel show the answer ("${(await panels()).computed.slice(0, 60)}…")`);
      // A program draws the steps it has not reached as "?" (shown or
      // not): its reveal is the answer's step, now reached.
      const revealed = answered.scene === "program" ? answered.step === right.offset : marksAfter < marksOpen;
      check(marksOpen > 0 && revealed,
        `${l.id} step ${st.n}: the scene draws its answers as "?" while the question is open (${marksOpen} of them), and the right click reveals them (${answered.scene === "program" ? "the scene moved to step " + (answered.step + 1) : marksAfter + " left"})`);
      await page.waitForFunction((n) => new RegExp(`done=([0-9,]*,)?${n}(,|$)`).test(location.hash), st.n, { timeout: t(10000) }).catch(() => {});
      const after = await page.evaluate(() => location.hash);
      done = (await api("lessonRoute", { hash: after }))?.done || done;
      check(ok && w.cls === "wrong" && w.text.length > 20 && stayed && r.cls === "right" && done.includes(st.n),
        `${l.id} step ${st.n}: "${heading}": a wrong click explains ("${w.text.slice(0, 70)}…"), the right one is judged right; the URL records it: ${after}`);
      if (shots && first) {
        await page.screenshot({ path: join(shots, `lesson-${l.id}.png`) });
      }
    }
  }
  // A lesson's link opened in a fresh page keeps its place and progress
  // (the walk's page closed first: two SwiftShader frames at once are
  // more than headless Chromium keeps alive here).
  await page.close();
  const fresh = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  fresh.on("pageerror", (e) => errors.push(e.message));
  fresh.on("crash", () => errors.push("the fresh page crashed"));
  const link = `#/lesson/${lessons[0].id}/2?done=1`;
  await visit(fresh, url + link);
  await fresh.waitForFunction((h) => document.body.dataset.shown === h, link, { timeout: t(30000) });
  check(await fresh.locator("#lesson-heading").textContent() === lessons[0].steps[1].title && /answered: 1/.test(await fresh.locator("#lesson-step").textContent()),
    `the link ${link} opens step 2 with step 1 answered`);
  await fresh.locator("#lesson-exit").click().catch(() => {});
  check(errors.length === 0, `no page errors${errors.length ? ": " + errors.join("; ") : ""}`);
} finally {
  await finish({ browser, served, tally, what: "lesson" });
}
