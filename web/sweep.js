// sweep.js: the playground's sweep: `stridelab sweep` for the program in
// the text area. Under a program scene's results it offers a cluster
// family, the device counts and the strategy; the compute worker plans
// the program on each count (stridelab.sweep, package sweep: the rows
// and the table the CLI prints), and this module shows the table and
// two charts drawn from the rows: the step time (compute and
// communication beside it) and each rank's peak against the device's
// memory, both against the devices on log axes, with each change of the
// inputs' layouts marked where it happens.
import * as compute from "./compute.js";
import { $, hide, show } from "./dom.js";

let program;  // the program scene on screen: {src, command}, or null
let swept;    // the src the table and charts are of
let seq = 0;  // the latest sweep asked for

// showSweep shows the panel for a scene that built (main.js's good),
// hidden but for the program scene; the last sweep stays while its
// program does, and goes when the program changes.
export function showSweep(good) {
  const panel = $("sweep");
  if (good?.scene !== "program" || !good.fields.src) {
    panel.hidden = true;
    program = null;
    return;
  }
  program = { src: good.fields.src, command: good.command };
  panel.hidden = false;
  const family = /^tpu-v5e/.test(good.fields.cluster || "") ? "tpu-v5e" : "h100-nodes";
  if (swept === undefined) $("sweep-cluster").value = family; // the scene's cluster, until the reader picks one
  if (swept !== undefined && swept !== program.src) clear("");
}

function clear(status) {
  swept = undefined;
  $("sweep-chart").replaceChildren();
  $("sweep-table").replaceChildren();
  hide($("sweep-command"));
  hide($("sweep-error"));
  $("sweep-status").textContent = status;
}

// run sweeps the program on screen with the form's choices.
async function run() {
  if (!program) return;
  const my = ++seq;
  const req = { src: program.src, cluster: $("sweep-cluster").value, devices: $("sweep-devices").value.trim(), strategy: $("sweep-strategy").value };
  clear(`planning the program on ${req.devices.split(",").length} device counts…`);
  $("sweep").dataset.state = "busy";
  $("sweep-devices").removeAttribute("aria-invalid");
  const start = performance.now();
  try {
    const r = await compute.call("sweep", req);
    if (my !== seq) return;
    swept = req.src;
    $("sweep-status").textContent = `${r.rows.length} counts planned in ${((performance.now() - start) / 1000).toFixed(1)} s. ${r.table.notes.join(" ")}`;
    $("sweep-chart").replaceChildren(timeChart(r.rows), memoryChart(r.rows));
    $("sweep-table").replaceChildren(table(r.table));
    show($("sweep-command"), commandLine(req));
    $("sweep").dataset.state = "ready";
  } catch (e) {
    if (my !== seq) return;
    clear("");
    show($("sweep-error"), e.message);
    if (/^--devices/.test(e.message)) $("sweep-devices").setAttribute("aria-invalid", "true");
    $("sweep").dataset.state = "error";
  }
}
$("sweep-form").addEventListener("submit", (e) => { e.preventDefault(); run(); });

// commandLine is the sweep as `stridelab sweep` runs it: the program as
// the scene's own command line quotes it.
function commandLine(req) {
  const src = /--src ('(?:[^']|'\\'')*')/.exec(program.command)?.[1] ?? "'…'";
  return `stridelab sweep --src ${src} --cluster ${req.cluster} --devices ${req.devices} --strategy ${req.strategy}`;
}

function table(t) {
  const el = document.createElement("table");
  for (const [i, row] of [t.header, ...t.rows].entries()) {
    const tr = el.insertRow();
    for (const cell of row) {
      const c = document.createElement(i ? "td" : "th");
      c.textContent = cell;
      tr.append(c);
    }
  }
  return el;
}

// The charts: 480 × 270 user units, drawn at the panel's width.
const W = 480, H = 280, left = 64, right = 14, top = 40, bottom = 44;
const colours = { time: "#0072b2", compute: "#009e73", comm: "#d55e00", peak: "#0072b2", capacity: "#4a5468" };

function timeChart(rows) {
  const ok = rows.filter((r) => !r.error);
  return chart("step time", rows, [
    { name: "step time", colour: colours.time, points: ok.map((r) => [r.devices, r.time_s]) },
    { name: "compute", colour: colours.compute, dash: "5 3", points: ok.map((r) => [r.devices, r.compute_time_s]) },
    { name: "communication", colour: colours.comm, dash: "2 3", points: ok.map((r) => [r.devices, r.comm_time_s]) },
  ], seconds);
}

function memoryChart(rows) {
  const ok = rows.filter((r) => !r.error);
  return chart("peak held on the fullest rank", rows, [
    { name: "peak held", colour: colours.peak, points: ok.map((r) => [r.devices, r.peak_held_bytes]) },
    { name: "device memory", colour: colours.capacity, dash: "6 4", points: ok.map((r) => [r.devices, r.capacity_bytes]) },
  ], bytes);
}

// chart draws series of [devices, value] points on log-log axes (values
// of 0 left out), a tick at each count swept, and a dotted line with the
// new scheme's name where the layouts change between two counts.
function chart(title, rows, series, unit) {
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img" });
  const values = series.flatMap((s) => s.points.map((p) => p[1])).filter((v) => v > 0);
  const counts = rows.map((r) => r.devices);
  svg.setAttribute("aria-label", `${title} against the devices, ${counts[0]} to ${counts[counts.length - 1]}`);
  svg.append(el("title", {}, `${title} against the devices`));
  if (!values.length) return svg;
  const [x0, x1] = [Math.log2(Math.min(...counts)), Math.log2(Math.max(...counts))];
  // the values' decades, with room above the highest for the layouts' names
  const y0 = Math.log10(Math.min(...values)) - 0.15, y1 = Math.max(Math.log10(Math.max(...values)) + 0.45, y0 + 1);
  const x = (n) => left + (x1 === x0 ? 0.5 : (Math.log2(n) - x0) / (x1 - x0)) * (W - left - right);
  const y = (v) => H - bottom - (Math.log10(v) - y0) / (y1 - y0) * (H - top - bottom);
  svg.append(el("text", { x: left, y: 14, "font-weight": 600 }, title));
  // axes: a tick at each count, a grid line at each of the unit's round values
  for (const n of counts) {
    svg.append(el("line", { x1: x(n), x2: x(n), y1: H - bottom, y2: H - bottom + 4, stroke: "#1d2330" }));
    svg.append(el("text", { x: x(n), y: H - bottom + 16, "text-anchor": "middle" }, String(n)));
  }
  svg.append(el("text", { x: (left + W - right) / 2, y: H - 8, "text-anchor": "middle" }, "devices"));
  for (const v of unit.ticks.filter((v) => Math.log10(v) >= y0 && Math.log10(v) <= y1)) {
    svg.append(el("line", { x1: left, x2: W - right, y1: y(v), y2: y(v), stroke: "#d8dce6" }));
    svg.append(el("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" }, unit(v)));
  }
  svg.append(el("line", { x1: left, x2: left, y1: top - 6, y2: H - bottom, stroke: "#1d2330" }));
  svg.append(el("line", { x1: left, x2: W - right, y1: H - bottom, y2: H - bottom, stroke: "#1d2330" }));
  // the layout changes
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    if (a.error || b.error || a.scheme === b.scheme) continue;
    const at = (x(a.devices) + x(b.devices)) / 2;
    svg.append(el("line", { x1: at, x2: at, y1: top - 6, y2: H - bottom, stroke: "#4a5468", "stroke-dasharray": "1 3" }));
    svg.append(el("text", { x: at + 3, y: top + 4, fill: "#4a5468", "font-size": 11 }, b.scheme));
  }
  // the series, and a legend under the title
  let lx = left;
  for (const s of series) {
    const pts = s.points.filter((p) => p[1] > 0);
    const attrs = { fill: "none", stroke: s.colour, "stroke-width": 2, points: pts.map(([n, v]) => `${x(n).toFixed(1)},${y(v).toFixed(1)}`).join(" ") };
    if (s.dash) attrs["stroke-dasharray"] = s.dash;
    svg.append(el("polyline", attrs));
    for (const [n, v] of pts) svg.append(el("circle", { cx: x(n), cy: y(v), r: 2.5, fill: s.colour }, `${n} devices: ${unit(v)}`));
    const key = { x1: lx, x2: lx + 18, y1: 26, y2: 26, stroke: s.colour, "stroke-width": 2 };
    if (s.dash) key["stroke-dasharray"] = s.dash;
    svg.append(el("line", key), el("text", { x: lx + 22, y: 30, "font-size": 11 }, s.name));
    lx += 30 + 6.2 * s.name.length;
  }
  return svg;
}

// el makes an SVG element; text, when given, is its text (a circle's
// becomes its tooltip).
function el(name, attrs, text) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) {
    if (name === "circle") e.append(el("title", {}, text));
    else e.textContent = text;
  }
  return e;
}

// seconds and bytes spell an axis's values, as the table does (three
// significant digits, the unit that keeps them small); their ticks are
// 1, 10 and 100 of each unit.
const secondUnits = [["s", 1], ["ms", 1e-3], ["µs", 1e-6], ["ns", 1e-9], ["ps", 1e-12]];
const byteUnits = [["TiB", 2 ** 40], ["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10], ["B", 1]];
function spell(units, v) {
  const [u, f] = units.find(([, f]) => v >= f) ?? units[units.length - 1];
  return `${+(v / f).toPrecision(3)} ${u}`;
}
const roundValues = (units) => units.flatMap(([, f]) => [f, 10 * f, 100 * f]);
const seconds = Object.assign((v) => spell(secondUnits, v), { ticks: roundValues(secondUnits) });
const bytes = Object.assign((v) => spell(byteUnits, v), { ticks: roundValues(byteUnits) });
