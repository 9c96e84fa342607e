// lessons.js: the playground's lessons (package lessons, through
// stridelab.lessons/lessonRoute and the frame's lesson mode). A lesson's
// place is the URL hash, #/lesson/ID/STEP?done=…, read and written by the
// wasm (lessons.Route). The step's text and question take the fields'
// place; the frame shows the step's scene and judges a click on it as the
// answer (the question's own model), and the page shows the feedback.
// main.js hands it the frame's API and the playground it shows lessons
// in (loadLessons).
import { $, hide } from "./dom.js";

let api;              // the frame's globalThis.stridelab
let playground;       // what main.js lends: see loadLessons
let lessonList = [];  // stridelab.lessons().lessons
let lesson = null;    // while in a lesson: {id, step, done, hash}

// loadLessons fills the lessons menu. playground is the page around the
// lessons: {latest(my): whether my is still the latest link or edit,
// goodHash(): the hash of the last scene that built, shown(info, state,
// my): show a scene that built (stridelab.scene's info) and the frame's
// state as the page's}.
export async function loadLessons(frameAPI, page) {
  api = frameAPI;
  playground = page;
  lessonList = (await api.lessons()).lessons;
  const menu = $("lessons");
  for (const l of lessonList) {
    const { hash } = await api.lessonRoute({ id: l.id, step: 1 });
    menu.add(new Option(`${l.title} (${l.steps.length} steps)`, hash));
  }
  menu.onchange = () => { if (menu.value) location.hash = menu.value; menu.value = ""; };
}

// showLesson shows a lesson's step: its text beside the frame, the frame
// in the lesson at that step, the step's scene in the results.
export async function showLesson(route, my) {
  const l = lessonList.find((x) => x.id === route.id);
  const st = l.steps[route.step - 1];
  lesson = route;
  document.body.classList.add("in-lesson");
  $("lesson").hidden = false;
  $("lesson-title").textContent = l.title;
  $("lesson-step").textContent = `step ${route.step} of ${l.steps.length}` + (route.done.length ? ` · answered: ${route.done.join(", ")}` : "");
  $("lesson-heading").textContent = st.title;
  $("lesson-text").innerHTML = st.html; // lessons.TextHTML escapes the file's text
  hide($("lesson-feedback"));
  $("lesson-prompt").hidden = true;
  $("lesson-prev").disabled = route.step <= 1;
  $("lesson-next").disabled = route.step >= l.steps.length;
  const shown = await api.frame.lesson(route.id, route.step);
  if (!playground.latest(my)) return;
  // The step's report, its answers hidden while its question is open.
  const info = await api.scene({ hash: st.hash, hideAnswers: Boolean(shown.lesson?.prompt && !shown.lesson.right), json: false });
  if (!playground.latest(my)) return;
  await playground.shown(info, shown, my);
}

// inLesson reports whether the page shows a lesson.
export function inLesson() { return lesson !== null; }

export function leaveLesson() {
  if (!lesson) return;
  lesson = null;
  document.body.classList.remove("in-lesson");
  $("lesson").hidden = true;
}

// lessonState mirrors the frame's lesson: the question, the feedback on
// the last click, and a step answered right joins the done list in the URL.
export async function lessonState(st) {
  if (!lesson || document.body.dataset.state === "busy") return;
  const ls = st.lesson;
  if (!ls) { // the frame left the lesson (escape there): so does the page
    if (playground.goodHash()) location.hash = playground.goodHash();
    return;
  }
  if (ls.id !== lesson.id || ls.step !== lesson.step) { // n or b pressed in the frame
    location.hash = (await api.lessonRoute({ id: ls.id, step: ls.step, done: lesson.done })).hash;
    return;
  }
  const prompt = $("lesson-prompt");
  prompt.hidden = !ls.prompt;
  prompt.textContent = ls.prompt ? `Question: ${ls.prompt}` + (ls.right ? "" : " Click your answer in the scene.") : "";
  const fb = $("lesson-feedback");
  if (ls.feedback) {
    fb.hidden = false;
    fb.className = ls.right ? "right" : "wrong";
    fb.textContent = (ls.right ? "Right. " : "Not yet. ") + ls.feedback;
    fb.dataset.tries = String(ls.tries);
  }
  if (ls.right && !lesson.done.includes(lesson.step)) {
    const r = await api.lessonRoute({ id: lesson.id, step: lesson.step, done: [...lesson.done, lesson.step] });
    lesson = r;
    $("lesson-step").textContent = $("lesson-step").textContent.replace(/ · answered: .*$/, "") + ` · answered: ${r.done.join(", ")}`;
    writeLessonHash();
  }
}

export function writeLessonHash() {
  if (location.hash !== lesson.hash) history.replaceState(null, "", lesson.hash);
  document.body.dataset.shown = location.hash;
}

async function moveLesson(by) {
  if (!lesson) return;
  const l = lessonList.find((x) => x.id === lesson.id);
  const step = Math.min(Math.max(lesson.step + by, 1), l.steps.length);
  if (step === lesson.step) return;
  const r = await api.lessonRoute({ id: lesson.id, step, done: lesson.done });
  location.hash = r.hash;
}

$("lesson-prev").onclick = () => moveLesson(-1);
$("lesson-next").onclick = () => moveLesson(1);
$("lesson-exit").onclick = () => { if (playground?.goodHash()) location.hash = playground.goodHash(); };
document.addEventListener("keydown", (e) => {
  if (!lesson || e.ctrlKey || e.altKey || e.metaKey || e.target.closest?.("input, select, textarea")) return;
  if (e.key === "n") moveLesson(1);
  if (e.key === "b") moveLesson(-1);
});
