// Package viz is stridelab's scene model: what a picture of a tensor view,
// a broadcast, a sharded tensor or a program's plan on a mesh shows, at
// every step of its animation, as data any renderer can draw and any
// front end can ask about.
//
// # Overview
//
// A [Spec] names a scene and its parameters in the CLI's words: the keys
// of [Keys] are `stridelab draw`'s flags, the desktop app's fields and the
// playground's URL hash ([Spec.Hash], [ParseHash]); [Spec.String] spells
// a command line and [ParseSpec] checks one. [Build] turns a spec into a
// [Scene]: a timeline of Steps frames. [Scene.Frame] returns the display
// list of a step at a size — a [Frame] of rects, lines and texts in pixel
// coordinates — and every renderer draws that one list: viz/render as
// SVG, PNG and GIF, app/live in a window. So the exports, the desktop app
// and the playground cannot tell different stories.
//
// The kinds of scene are one table, [Kinds]: each names its keys, what
// a person can point at in it ([FocusKind]), its worked example
// ([Example]) and its builder. Adding a scene is a row there and the
// scene's own files; the front ends, the hash and the lessons read the
// table. The index scenes (expand, repeat, binary, reduce, view) draw
// which storage offsets every output cell reads; the shard scenes
// (placement, plan, boxing) draw a global tensor on a mesh of simulated
// devices, each device's shard, and the collectives of boxing; the
// program scene draws a whole program's plan (sbp/program) as a column
// per step, every device's shard under it and each boxing's collective
// and bytes, with a running total of the bytes sent. Planning is the
// dearest part of building a scene, so a program is planned once per
// text: Build keeps the last few plans, and the scenes of one program
// (the playground page's and its frame's, a lesson's) share one plan,
// which nobody changes.
//
// viz is the scene model, not the application. What a person does with a
// scene (fields, steps, hover and pin, lessons, scripts) is app/session;
// the window and the playground's frame that draw it are app/live; what a
// scene's op computes is run by results. All of them sit above viz: viz
// imports tensor, sbp and sbp/program and never results, lessons or app,
// so every import points down.
//
// # Truth
//
// A scene computes no mapping of its own: the offsets it draws come from
// tensor's layouts (Layout.Offset, stride 0 on broadcast dims), the shards
// and boxing steps from sbp's plans, a program's steps, signatures and
// bytes from sbp/program's plan. [Scene.Model] (and [Scene.JSON]) is the
// scene's meaning as data — [IndexModel] lists what every drawn cell
// reads, [ShardModel] what every rank holds, [ProgramModel] is the plan
// itself — and the tests check it against the CPU kernels (index
// scenes), sbp's shards and boxing plans (shard scenes), and the plan's
// steps and sbp's shards for each step's SBP (the program scene). A scene
// draws and describes; it never runs its op: [Scene.Work] describes the
// op as data ([KernelWork], [ShardWork], [ProgramWork]) and the package
// results, above viz, runs it.
//
// # Focus and hit testing
//
// A [Focus] is what a person points at, pins, or a lesson asks about: a
// cell of an operand or of the output, a storage element, a device, or a
// step of a program's plan; [SameFocus] says whether two name the same
// thing.
// [Scene.HitTest] says what lies under a point of a frame (a [Hot]: a
// region and its focus), [Scene.FrameFocus] lights a focus and what it
// maps to, and [Scene.Report] describes the scene and the focus for a
// results panel as a [Report] of titled sections, the same words in every
// front end. [Scene.Describe] says what a focus means in one line — what
// a live region speaks and a desktop app reads aloud: out[2,1,2] reads
// x[8]; [13,5] is on rank 2 (coord [2]), shard [6 33] at rows 13–18;
// step 3: box w from S(0) to B: all-gather, 6.00 KiB. [Focus.String]
// and [ParseFocus] spell a focus as lessons do: out[1,2,0], x[5], [5,2],
// rank 2, step 3.
//
// # Size
//
// Views, scenes and frames are metadata: a scene of a 10¹⁸-element expand
// is built and drawn in well under a millisecond. Along each axis a grid
// draws at most a budget of indices ([Visible], [DefaultBudget]) and
// elides the middle with a gap mark, keeping every drawn cell's true
// index; ranks above 2 are faceted into tiles, never refused.
//
// # Errors
//
// A spec that does not build returns an error in one line naming the
// values involved, in the words of whoever found the fault (viz, tensor or
// sbp). An error about one field's value is a [*FieldError] carrying that
// field's key, read with errors.As; [Blame] picks the field a front end
// shows it under. A frame size outside 320×240 to 4096×4096, a step out of
// range or a focus that names nothing in the scene is an error too.
//
// # Concurrency
//
// A built Scene may be used from several goroutines: its frame cache has
// a lock, and text is measured under viz's one lock of faces
// ([LockFaces]). A Spec is a value.
//
// # Platform support
//
// Pure Go over tensor, sbp, sbp/program and golang.org/x/image's fonts:
// no cgo, no window and no GPU binding, so it builds and is tested under
// GOOS=js GOARCH=wasm as natively. Ebitengine is never imported here
// (app/live imports it).
package viz
