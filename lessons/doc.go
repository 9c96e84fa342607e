// Package lessons holds stridelab's lessons: the source documents turned
// into steps a learner walks through, each a short text, a scene at a given
// state, and sometimes a question the learner answers by clicking the scene.
//
// # Overview
//
// A lesson is a file, lessons/ID.md, so a teacher writes one without Go:
//
//	---
//	id: expand-repeat            (the file's name; URLs use it: #/lesson/expand-repeat/3)
//	order: 1                     (menus sort by it)
//	title: Expand and repeat
//	source: OneFlow, "Adding expand and repeat ops" (000_ccf240b9293945d6.txt)
//	summary: one or two sentences for the lessons menu
//	---
//
//	## Expand copies nothing       (each ## heading starts a step)
//
//	Text for the learner: paragraphs, - lists, 1. lists, *emphasis*,
//	**strong** and `code` (see TextHTML).
//
//	scene: expand --shape 4,1,3 --size 4,2,3 --step 5
//	ask: reads out[2,1,2]
//	right: Yes: {why}.
//	wrong x[5]: {clicked} is where out[1,1,2] reads.
//	wrong: You clicked {clicked}.
//
// The scene: line is a scene in the CLI's words, with the flags of
// `stridelab draw` (viz.Keys and --step; quote values holding spaces), as
// viz.ParseCommand reads it. The
// ask: line is a Question; right: and wrong: are the feedback, one line of
// plain text each, and may use the placeholders {about}, {answer}, {why}
// and {clicked}, filled from the scene's model. Lines starting with those keys are directives wherever
// they stand in the step; everything else is the step's text.
//
// Answers are never written in a lesson: Question.Answer computes them
// from the scene's model (viz.IndexModel: every drawn output cell's reads;
// viz.ShardModel: every rank's ranges; viz.ProgramModel: the program's
// plan, its boxings and gradients), the offset formula from tensor's
// trace of the operand's layout, and Question.Judge compares the viz.Hot
// a click hit with them. A program scene's questions name a tensor of the
// program (ask: boxes w, ask: grad-sbp w) and are answered by clicking a
// step's column.
//
// # Front ends
//
// Builtin returns the embedded lessons, so the wasm playground and the
// desktop app carry them; it parses them once and every caller shares
// them, read-only (the package's tests Check them, so a front end lists
// them without building every step's scene first). A front end shows Step.Text (TextHTML renders
// it), builds the scene with Step.Build and draws it at Step.Scene.Step
// (at Size or larger), shows Question.Prompt, passes the Hot under a
// click to Question.Judge, and then moves the scene to Answer.Reveal.
// Route reads and writes the playground's hash, #/lesson/ID/STEP?done=….
//
// # Errors
//
// Load parses every file and Checks every step (Builtin only parses: its
// files are checked by this package's tests): the scene must
// build, the question must be one the scene can answer, its answer must be
// drawn (not elided) at the step's state so the learner can click it, the
// step must not already show it, and every "wrong TARGET:" must name a
// wrong click the scene draws. The first trouble comes back as an *Error
// naming the file and the step, "lessons/expand-repeat.md: step 3: scene:
// viz: scene expand needs --size", and wraps ErrLesson.
//
// # Platform support
//
// The package uses the standard library, tensor, sbp (its program
// package for a program scene's plan) and viz only, and builds for
// GOOS=js GOARCH=wasm.
package lessons
