// still.js: the first scene at once. The live frame (frame.html) draws
// only once its wasm is fetched, compiled and started, over a second
// after navigation; until then the page shows a still of the same scene
// in exactly the frame's box: an SVG drawn natively by `stridelab serve`
// for the frame's CSS size (GET scene.svg?w=&h=&hash=, laid out as the
// live frame lays it out), or, on a static host that cannot draw (a 404),
// the nearest of the stills `serve --write` drew beforehand
// (scenes/index.json). The still lies over the frame, so nothing moves
// when it goes: it goes once the live frame has drawn its first scene
// (the frame's globalThis.stridelabFirstDraw). A new hash or a new frame
// size before then draws it again; a hash with no still drops it.
//
// main.js imports this module first, so it runs before the page waits for
// the frame. performance.mark("stridelab-still-shown") times the first
// still; the img's data-source says where it came from (serve, gallery).
import { $ } from "./dom.js";

// stridelabStillSettled (made by index.html's head, so it is there
// before the frame's scripts run) resolves once the first still is shown
// (decoded whole and unhidden: the next paint draws it) or is known not
// to come: the frame (frame.js) asks for its wasm only then (or after
// 2 s), so the still always shows first.
const settle = globalThis.stridelabSettleStill ?? (() => {});

const frame = $("frame");
const img = $("still");
let seq = 0;      // counts draws: only the latest shows
let live = false; // the live frame has drawn: no more stills
let gallery;      // scenes/index.json, once fetched (null: none)

// draw asks for the still of the hash at the frame's size and shows it.
async function draw() {
  const my = ++seq;
  const [w, h, hash] = [frame.clientWidth, frame.clientHeight, location.hash];
  let still = null;
  try {
    still = await fromServer(hash, w, h);
    if (still === undefined) still = await fromGallery(hash, w, h);
  } catch { /* no still: the frame's own background until it draws */ }
  if (my !== seq || live) return drop(still);
  if (!still) return drop(null, true);
  const old = img.getAttribute("src");
  Object.assign(img, { src: still.url, alt: still.title });
  Object.assign(img.dataset, { source: still.source, hash });
  const decoded = await img.decode().then(() => true, () => false); // shown whole, never half-decoded
  if (old?.startsWith("blob:")) URL.revokeObjectURL(old);
  if (my !== seq || live) return; // a later still, or the live frame, has the img now
  if (!decoded) return drop(null, true);
  img.hidden = false;
  if (!performance.getEntriesByName("stridelab-still-shown").length) performance.mark("stridelab-still-shown");
  settle();
}

// fromServer asks stridelab serve to draw the still: {url, title,
// source}; null when the hash has none (204: a lesson's, whose answers
// the live frame hides; 400: a link that does not build), or undefined
// when the host does not draw (a 404, or a page instead of an SVG).
async function fromServer(hash, w, h) {
  const r = await fetch(`scene.svg?w=${w}&h=${h}&hash=${encodeURIComponent(hash)}`);
  if (r.status === 404) return undefined;
  if (r.status !== 200) return null;
  // (A host that answers every path with its page is one that does not draw.)
  if (!r.headers.get("Content-Type")?.startsWith("image/svg+xml")) return undefined;
  const title = decodeURIComponent(r.headers.get("X-Scene-Title") || "");
  return { url: URL.createObjectURL(await r.blob()), title, source: "serve" };
}

// fromGallery finds the hash among the stills drawn for a static host and
// takes the one drawn for the frame size nearest this one in shape, then
// in size (the SVG keeps its aspect in a box of another shape).
async function fromGallery(hash, w, h) {
  if (gallery === undefined) {
    const r = await fetch("scenes/index.json");
    gallery = r.ok ? await r.json() : null;
  }
  const item = gallery?.scenes[hash];
  if (!item) return null;
  const off = ([sw, sh]) => Math.abs(Math.log((sw / sh) / (w / h))) + Math.abs(Math.log(sw / w)) / 4;
  const [sw, sh] = gallery.sizes.reduce((a, b) => (off(b) < off(a) ? b : a));
  return { url: `scenes/${item.n}-${sw}x${sh}.svg`, title: item.title, source: "gallery" };
}

// drop lets a still go (its blob, if it was one); with hide, the one on
// screen too.
function drop(still, hide = false) {
  if (still?.url.startsWith("blob:")) URL.revokeObjectURL(still.url);
  if (!hide) return;
  if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
  img.hidden = true;
  img.removeAttribute("src");
  img.alt = "";
}

// watch removes the still once the live frame has drawn, checking every
// animation frame (a property read).
function watch() {
  if (typeof frame.contentWindow?.stridelabFirstDraw === "number") {
    live = true;
    drop(null, true);
    removeEventListener("hashchange", draw);
    resized.disconnect();
    return;
  }
  requestAnimationFrame(watch);
}

// A new frame size (a rotated phone, an embed link's full-window frame)
// draws the still again for that size, once the box has settled.
let sizeTimer;
let lastSize = "";
const resized = new ResizeObserver(() => {
  const size = `${frame.clientWidth}x${frame.clientHeight}`;
  if (size === lastSize) return;
  const first = lastSize === "";
  lastSize = size;
  if (first) return; // the first report is the size draw() below used
  clearTimeout(sizeTimer);
  sizeTimer = setTimeout(() => { if (!live) draw(); }, 100);
});

addEventListener("hashchange", draw);
resized.observe(frame);
watch();
// Settled once the first still is shown (draw settles it), or once the
// first draw is over without one.
draw().finally(settle);
