// main.js: the playground. The scene frame (frame.html: app/live on
// Ebitengine, with globalThis.stridelab's scene methods beside it in one
// wasm) draws; this page holds the HTML controls and the results and
// talks to the frame's window: stridelab.scenes/spec/scene and
// stridelab.frame.show/act, and the frame's "stridelab-state" messages.
// The results and the exports are computed in a worker of their own
// (compute.js: stridelab.compute/export/devices there), started once the
// frame has drawn its first scene. The URL hash is the state, in viz's
// grammar, written and read only by the wasm (stridelab.spec and
// stridelab.scene), never here. lessons.js shows the lessons in this
// page; still.js shows the first scene before the frame can; sweep.js
// sweeps a program scene's program over device counts.
import "./still.js"; // the scene's still shows while the frame's wasm starts (index.html runs it first, async)
import * as compute from "./compute.js";
import { $, hide, show } from "./dom.js";
import { inLesson, leaveLesson, lessonState, loadLessons, showLesson, writeLessonHash } from "./lessons.js";
import { showSweep } from "./sweep.js";

const frameEl = $("frame");

let api;            // the frame's globalThis.stridelab
let catalog;        // stridelab.scenes(): {version, scenes: [{name, keys, example}]}
let gallery = new Map(); // a gallery example's hash (no step) → {name, caption}
let laidOut = {};   // key → {shown, value}: a program as its text area shows it and as it came
let good;           // the last scene that built: {hash (no step, no embed), scene, fields, command}
let step = 0;       // the step the frame shows
let focus = null;   // what the pointer is on in the frame, or what it pinned
let steps = 1;
let embed = false;
let nav = 0;        // counts links and edits: each async step checks it is still the latest
let backend = "cpu";
let adapter = "";
let gpuFound;       // findGPU's promise: the backend is known once it settles
let hideAnswers = false; // a lesson's question is open: the report and the computed values hide its answer

// pageReady resolves once the page shows its first scene; the tests wait on it.
globalThis.pageReady = boot();
// The compute worker's calls, for the tests (the leak test runs kernels there).
globalThis.stridelabCompute = compute.call;

async function boot() {
  // The frame loads as the page parses it, on the page's hash; wait for its wasm.
  while (!frameEl.contentWindow.frameReady) await new Promise((r) => setTimeout(r, 20));
  await frameEl.contentWindow.frameReady;
  api = frameEl.contentWindow.stridelab;
  catalog = await api.scenes();
  for (const s of catalog.scenes) $("scene").add(new Option(s.name, s.name));
  // The frame starts on its own hash; the page's work (the menus, the
  // compute worker's wasm) waits until it has drawn, so none of it holds
  // up the first scene on the thread the two share.
  await firstDraw();
  gpuFound = findGPU(); // the worker starts; results wait for it, the fields and menus do not
  await Promise.all([loadGallery(), loadLessons(api, playground)]);
  window.addEventListener("message", (e) => {
    if (e.source === frameEl.contentWindow && e.data?.type === "stridelab-state") onState(e.data.state);
  });
  window.addEventListener("hashchange", () => apply(location.hash));
  await apply(location.hash);
  return { scenes: catalog.scenes.length, backend, adapter };
}

// firstDraw resolves once the frame has drawn its first scene
// (globalThis.stridelabFirstDraw), or after firstDrawWait should it never
// draw (no WebGL: the page still works, without the scene).
const firstDrawWait = 10000;
async function firstDraw() {
  const start = performance.now();
  while (typeof frameEl.contentWindow.stridelabFirstDraw !== "number" && performance.now() - start < firstDrawWait) {
    await new Promise((r) => setTimeout(r, 50));
  }
}

// findGPU asks the compute worker for the browser's WebGPU; without it
// (a page without navigator.gpu has none in its workers either) the page
// computes on the CPU and says so.
async function findGPU() {
  try {
    const list = navigator.gpu ? await compute.call("devices") : [];
    if (list.length) [backend, adapter] = ["gpu", list[0].name || "unnamed adapter"];
  } catch { /* no WebGPU: the CPU computes */ }
  $("backend").textContent = backend === "gpu" ? `on WebGPU (${adapter}), checked against the CPU reference` : "no WebGPU: computed on the CPU";
}

// loadGallery fills the gallery menu from gallery.txt, the list of
// docs/gallery/gallery.sh (name|stridelab draw flags|step|gif|caption),
// each line spelled as a hash by the wasm; an example's caption shows
// above its fields while its scene is on screen.
async function loadGallery() {
  const text = await (await fetch("gallery.txt")).text();
  const menu = $("gallery");
  for (const line of text.split("\n")) {
    const [name, args, at, , caption = ""] = line.split("|");
    if (!name || !args) continue;
    // Spelled, not built: the scene is built (its program planned) when it is opened.
    const { hash } = await api.spec({ command: `${args} --step ${at || 0}`, check: false });
    gallery.set((await api.spec({ command: args, check: false })).hash, { name, caption });
    const label = `${name} — ${args}`;
    const option = new Option(label.length > 100 ? label.slice(0, 99) + "…" : label, hash);
    option.title = caption || args;
    menu.add(option);
  }
  menu.onchange = () => { if (menu.value) location.hash = menu.value; menu.value = ""; };
}

// apply shows the state a hash names: the fields, the frame, the results.
// A link that does not build shows its error and the scene's worked
// example.
async function apply(hash) {
  const my = ++nav;
  document.body.dataset.state = "busy";
  const route = hash && await api.lessonRoute({ hash });
  if (my !== nav) return;
  if (route) return showLesson(route, my);
  leaveLesson();
  let info;
  try {
    info = await api.scene({ hash: hash || example("expand"), json: false });
    hide($("link-error"));
  } catch (e) {
    const name = /^#?\/?([a-z]+)/.exec(hash || "")?.[1];
    show($("link-error"), `This link does not open (${e.message}); here is the worked example of ${catalog.scenes.some((s) => s.name === name) ? name : "expand"}.`);
    info = await api.scene({ hash: example(name), json: false });
  }
  if (my !== nav) return; // a later link or edit answers
  embed = info.embed;
  document.body.classList.toggle("embed", embed);
  setScene(info.scene, info.fields, info.shown);
  step = info.step;
  const shown = await api.frame.show(info.spec);
  if (my !== nav) return;
  onState(shown);
  await took(info, shown.step, my);
}

// playground is what lessons.js may do with this page.
const playground = {
  latest: (my) => my === nav,
  goodHash: () => good?.hash,
  async shown(info, state, my) {
    setScene(info.scene, info.fields, info.shown);
    onState(state);
    await took(info, state.step, my);
    // The lesson's question: the state above came while the page was busy.
    if (playground.latest(my)) lessonState(api.frame.state());
  },
};

function example(name) {
  return (catalog.scenes.find((s) => s.name === name) || catalog.scenes[0]).example;
}

// took makes a scene that built the page's state: the URL, the command
// line, the results; unless a later link or edit (nav) overtook it.
async function took(info, at, my) {
  const { hash } = await api.spec({ scene: info.scene, fields: info.fields });
  if (my !== nav) return;
  good = { hash, scene: info.scene, fields: info.fields, command: info.command.replace(/ --step \d+$/, "") };
  step = at;
  $("command").textContent = good.command;
  const g = !inLesson() && gallery.get(hash); // a caption would answer a lesson's question
  if (g?.caption) show($("caption"), `${g.name}: ${g.caption}`);
  else hide($("caption"));
  await writeHash();
  if (my !== nav) return;
  showReport(info);
  showSweep(inLesson() ? null : good); // a lesson's program is the lesson's: no sweep beside its questions
  await computeResults();
  if (my !== nav) return;
  document.body.dataset.shown = location.hash; // what the tests wait for
  document.body.dataset.state = "ready";
}

// setScene draws the fields of a scene: one labelled control per key,
// with the key's help and an error line (aria-describedby both). A key
// with rows (a program) is a text area, one statement a line as the wasm
// lays it out (shown); a key with choices is a toggle, a radio group
// whose first choice, the default, is written as no value, or with
// menuAt choices or more a menu (a select); any other key is a line of
// text. A key that needs another (viz.Key.Needs: a cost needs a cluster)
// is hidden while that one has no value (showNeeded).
function setScene(name, fields, shown = {}) {
  $("scene").value = name;
  const entry = catalog.scenes.find((s) => s.name === name);
  const list = $("field-list");
  if (list.dataset.scene !== name) {
    list.textContent = "";
    list.dataset.scene = name;
    for (const k of entry.keys) list.append(control(k));
  }
  laidOut = {};
  for (const k of entry.keys) {
    const value = fields[k.name] ?? "";
    if (k.choices?.length >= menuAt) {
      const menu = $(`f-${k.name}`);
      const v = value || k.choices[0];
      // A value no choice names (a cluster's JSON, from a command line's
      // link) is an entry of its own.
      if (![...menu.options].some((o) => o.value === v)) menu.add(new Option(v.length > 40 ? v.slice(0, 39) + "…" : v, v));
      menu.value = v;
    } else if (k.choices?.length) {
      for (const r of document.querySelectorAll(`#f-${k.name} input`)) r.checked = r.value === (value || k.choices[0]);
    } else {
      $(`f-${k.name}`).value = shown[k.name] ?? value;
      if (k.rows) laidOut[k.name] = { shown: shown[k.name] ?? value, value };
    }
  }
  showNeeded();
  clearErrors();
}

// menuAt is how many choices make a key's toggle a menu: a row of more
// radio buttons than this wraps in the fields' column.
const menuAt = 4;

// showNeeded hides each field that needs another (k.needs) while that one
// has no value (its default is written as none), as the wasm leaves such
// a key out when it checks the fields (viz.Key.Applies).
function showNeeded() {
  const entry = catalog.scenes.find((s) => s.name === $("scene").value);
  const fields = fieldValues();
  for (const k of entry.keys) if (k.needs) $(`f-${k.name}`).closest(".field").hidden = !fields[k.needs];
}

// control is the field of key k.
function control(k) {
  const div = document.createElement("div");
  div.className = "field";
  const id = `f-${k.name}`;
  const tail = `<small id="${id}-help" class="help"></small><p id="${id}-error" class="error" role="alert" hidden></p>`;
  const described = `aria-describedby="${id}-error ${id}-help"`;
  if (k.choices?.length >= menuAt) {
    div.innerHTML = `<label for="${id}"></label><select id="${id}" name="${k.name}" ${described}></select>` + tail;
    div.querySelector("label").textContent = `--${k.name}`;
    const menu = div.querySelector("select");
    for (const c of k.choices) menu.add(new Option(c, c));
    menu.addEventListener("change", () => edited(k.name));
  } else if (k.choices?.length) {
    div.innerHTML = `<fieldset id="${id}" class="toggle" ${described}><legend></legend></fieldset>` + tail;
    div.querySelector("legend").textContent = `--${k.name}`;
    for (const c of k.choices) {
      const label = document.createElement("label");
      label.innerHTML = `<input type="radio" name="${k.name}">`;
      label.querySelector("input").value = c;
      label.append(c);
      label.querySelector("input").addEventListener("change", () => edited(k.name));
      div.querySelector("fieldset").append(label);
    }
  } else {
    const tag = k.rows ? `<textarea id="${id}" name="${k.name}" rows="${k.rows}" spellcheck="false" ${described}></textarea>`
      : `<input id="${id}" name="${k.name}" spellcheck="false" ${described}>`;
    div.innerHTML = `<label for="${id}"></label>${tag}` + tail;
    div.querySelector("label").textContent = `--${k.name}`;
    div.querySelector(`#${id}`).addEventListener("input", () => edited(k.name));
  }
  div.querySelector("small").textContent = k.help;
  return div;
}

// fieldValues reads the fields as the wasm takes them: a toggle's or a
// menu's default as no value, a field hidden by showNeeded as none, and a
// program as it came when its text area still shows it as laid out.
function fieldValues() {
  const fields = {};
  const entry = catalog.scenes.find((s) => s.name === $("scene").value);
  for (const k of entry.keys) {
    if (k.choices?.length) {
      const v = (k.choices.length >= menuAt ? $(`f-${k.name}`).value : document.querySelector(`#f-${k.name} input:checked`)?.value) ?? "";
      fields[k.name] = v === k.choices[0] ? "" : v;
      continue;
    }
    const v = $(`f-${k.name}`).value;
    fields[k.name] = laidOut[k.name]?.shown === v ? laidOut[k.name].value : v;
  }
  for (const k of entry.keys) if (k.needs && !fields[k.needs]) fields[k.name] = ""; // not shown: no value
  return fields;
}

function clearErrors() {
  for (const el of document.querySelectorAll("#fields .error")) if (el.id !== "link-error") hide(el);
  for (const el of document.querySelectorAll("#fields [aria-invalid]")) el.removeAttribute("aria-invalid");
}

// edited checks the fields a moment after typing stops: a scene that
// builds goes to the frame and the URL; an error shows beside the field
// it is about and the last good scene stays.
let editTimer;
function edited(key) {
  showNeeded(); // at once: a cluster picked shows its cost
  clearTimeout(editTimer);
  editTimer = setTimeout(async () => {
    const my = ++nav;
    performance.mark("stridelab-edit"); // the pause is over: the edit is checked from here
    document.body.dataset.state = "busy";
    const fields = fieldValues();
    const scene = $("scene").value;
    const r = await api.spec({ scene, fields, changed: key });
    performance.mark("stridelab-edit-checked"); // the fields checked: the scene built, a program planned
    if (my !== nav) return; // a later edit or link answers
    clearErrors();
    if (r.error) {
      const line = r.field && $(`f-${r.field}-error`);
      show(line || $("form-error"), r.error);
      if (line) $(`f-${r.field}`).setAttribute("aria-invalid", "true");
      document.body.dataset.state = "error";
      return;
    }
    // The frame shows the scene at its next tick; the panel's data is
    // made meanwhile (both from the scene the check built).
    const [info, shown] = await Promise.all([api.scene({ hash: r.hash, json: false }), api.frame.show(r.hash)]);
    if (my !== nav) return;
    performance.measure("stridelab-edit-shown", "stridelab-edit"); // the frame holds the new scene
    onState(shown);
    await took(info, shown.step, my);
  }, 250);
}

// onState mirrors the frame: the transport, the step in the URL and the
// results of that step.
function onState(st) {
  lessonState(st);
  // While a lesson's question is open the results hide what would answer
  // it (the frame draws it as "?"); the right click shows them.
  const hide = Boolean(st.lesson?.prompt && !st.lesson.right);
  if (hide !== hideAnswers) {
    hideAnswers = hide;
    if (good && document.body.dataset.state !== "busy") {
      refreshReport();
      computeResults();
    }
  }
  steps = st.steps;
  $("play").textContent = st.playing ? "Pause" : "Play";
  $("play").setAttribute("aria-label", st.playing ? "pause" : "play");
  $("play").setAttribute("aria-pressed", String(st.playing));
  $("scrub").max = String(Math.max(st.steps - 1, 0));
  if (document.activeElement !== $("scrub")) $("scrub").value = String(st.step);
  $("step-out").textContent = `step ${st.step + 1} of ${st.steps}`;
  $("speed-out").textContent = `${+st.speed.toFixed(2)}/s`;
  // What the pointed cell means, in words (the session's State.words,
  // viz.Scene.Describe): the live region a screen reader speaks.
  if ($("scene-status").textContent !== (st.words || "")) $("scene-status").textContent = st.words || "";
  const f = JSON.stringify(st.pinned || st.hover || null);
  if (good && !st.error && document.body.dataset.state !== "busy" && (st.step !== step || f !== JSON.stringify(focus))) {
    focus = JSON.parse(f);
    step = st.step;
    writeHash();
    refreshReport();
  }
}

// hashAt is the hash of a scene that built (good, by default the last)
// at a step, with embed or not, as the wasm spells it (stridelab.spec:
// viz.Spec.HashWith).
async function hashAt(at, withEmbed = false, scene = good) {
  return (await api.spec({ scene: scene.scene, fields: scene.fields, step: at, embed: withEmbed })).hash;
}

// writeHash puts the state in the URL without a history entry per step;
// the latest call wins.
let hashSeq = 0;
async function writeHash() {
  if (inLesson()) return writeLessonHash(); // the lesson's place is the state
  const seq = ++hashSeq;
  const h = await hashAt(step, embed);
  if (seq !== hashSeq || inLesson()) return;
  if (location.hash !== h) history.replaceState(null, "", h);
}

let reportTimer;
function refreshReport() {
  clearTimeout(reportTimer);
  // The scene's own link at the step on screen (in a lesson, the URL is the lesson's place).
  const [scene, at] = [good, step]; // the step is this scene's
  reportTimer = setTimeout(async () => showReport(await api.scene({ hash: await hashAt(at, false, scene), focus, hideAnswers, json: false })), 120);
}

function showReport(info) {
  $("report-title").textContent = `${info.title} — step ${info.step + 1} of ${info.steps}`;
  frameEl.contentWindow.nameScene?.(info.title); // the canvas's accessible name (frame.js)
  $("report").replaceChildren(...info.sections.map(section));
}

// section renders a viz.Section: its title, lines and table.
function section(s) {
  const div = document.createElement("div");
  div.className = "section";
  const h = document.createElement("h3");
  h.textContent = s.Title;
  div.append(h);
  for (const line of s.Lines || []) {
    const p = document.createElement("p");
    p.className = "mono";
    p.textContent = line;
    div.append(p);
  }
  if (s.Table?.length) {
    const t = document.createElement("table");
    s.Table.forEach((row, i) => {
      const tr = t.insertRow();
      for (const cell of row) {
        const c = document.createElement(i ? "td" : "th");
        c.textContent = cell;
        tr.append(c);
      }
    });
    div.append(t);
  }
  return div;
}

// computeResults runs the scene's op on WebGPU (or the CPU) and shows
// whether it agrees with the CPU reference; a refusal shows in place.
let computeSeq = 0;
async function computeResults() {
  const seq = ++computeSeq;
  const hash = good.hash;
  await gpuFound;
  if (seq !== computeSeq) return;
  try {
    const r = await compute.call("compute", { hash, backend, hideAnswers });
    if (seq !== computeSeq) return;
    hide($("compute-error"));
    $("computed").replaceChildren(section(r.section));
    $("computed").dataset.backend = r.backend;
  } catch (e) {
    if (seq !== computeSeq) return;
    $("computed").replaceChildren();
    show($("compute-error"), e.message);
  }
}

// The transport: each button is a key of the frame's session.
for (const b of document.querySelectorAll(".transport button[data-key]")) b.onclick = () => api.frame.act(b.dataset.key);

// The frame's keys work on the page too, where no field or menu has the
// keyboard: space plays, , and . step, [ and ] change the speed, + - 0
// zoom, shift+arrows pan, escape unpins. The arrows, which walk the
// scene's cells, and page up / page down stay the page's (they scroll it)
// until the scene has the keyboard.
const pageKeys = { " ": "space", ",": ",", ".": ".", Home: "home", End: "end", "[": "[", "]": "]",
  "+": "+", "-": "-", "0": "0", Escape: "escape" };
document.addEventListener("keydown", (e) => {
  if (!api || e.ctrlKey || e.altKey || e.metaKey || e.target.closest?.("input, select, textarea, button, a")) return;
  let key = pageKeys[e.key];
  if (e.shiftKey && e.key.startsWith("Arrow")) key = "shift+" + e.key.slice(5).toLowerCase();
  if (!key) return;
  e.preventDefault();
  api.frame.act(key);
});

let scrubTimer;
$("scrub").addEventListener("input", () => {
  clearTimeout(scrubTimer);
  scrubTimer = setTimeout(async () => api.frame.show(await hashAt(+$("scrub").value)), 60);
});

$("scene").addEventListener("change", () => { location.hash = example($("scene").value); });

// Exports: the bytes `stridelab draw` writes, drawn in the compute worker
// and saved through a Blob and a download link; the frame's keys (s, p,
// g) ask for them through stridelabExport.
const exportTypes = { svg: "image/svg+xml", png: "image/png", gif: "image/gif" };
async function exportScene(format, at = step) {
  const status = $("export-status");
  status.className = "status";
  status.textContent = `drawing ${format.toUpperCase()}…`;
  try {
    const size = format === "gif" ? { width: 960, height: 540 } : { width: 1280, height: 720 };
    if (format === "gif") at = 0;
    const bytes = await compute.call("export", { hash: good.hash, format, step: at, ...size });
    const name = `${good.scene}${format === "gif" ? "" : "-step" + at}.${format}`;
    const url = URL.createObjectURL(new Blob([bytes], { type: exportTypes[format] }));
    const a = Object.assign(document.createElement("a"), { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    status.textContent = `saved ${name} (${bytes.length} bytes)`;
  } catch (e) {
    status.className = "error";
    status.textContent = e.message;
  }
}
for (const b of document.querySelectorAll(".exports button")) b.onclick = () => exportScene(b.dataset.format);
globalThis.stridelabExport = (format, at) => { if (good) exportScene(format, at); };
