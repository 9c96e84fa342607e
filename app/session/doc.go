// Package session is the state of one person playing with one scene: the
// fields they typed (in the CLI's words), the last scene that built, where
// the animation stands, what they point at and pin, and how far they
// zoomed and panned. The interactive front ends (the desktop window and
// the playground's frame, both in app/live) feed it input and draw what it
// says; nothing here draws or imports Ebitengine, so every rule about
// input is tested headless and under GOOS=js.
//
// # Overview
//
// A Session holds a viz.Scene that always built: typing a bad shape sets
// an error (one line, naming the field where viz's message lets it) and
// keeps the last good scene on screen. The animation clock advances
// Speed steps a second while playing and stops on the last step. Hover
// and pin are viz.Focus values; the pin wins. Zoom and pan map the
// scene's frame to the viewport:
//
//	screen = pan + zoom·scene
//
// and HitTest undoes it before asking the scene what lies under a point.
//
// # Scripts
//
// A Script is a list of input events in a small line language (hover a
// cell, click, press a key, type into a field, wait, take a screenshot):
// tests and demos replay it through the same code paths a mouse and a
// keyboard take. ParseScript names the line of every mistake.
//
// # Computing
//
// StartComputing runs the scene's op (results.Compute, passed in by the
// front end) on a worker goroutine, one compute at a time: a new scene
// cancels the compute in flight and replaces any that waits, so a burst
// of keys runs at most the compute already started and the last key's,
// and Results shows only the latest scene's. Every compute's context derives from the worker's,
// which Close cancels under the lock the worker starts jobs under: once
// Close begins no compute starts, the running one stops at its next check
// (between kernel calls, and between slabs of a CPU kernel), and Close
// returns when the worker has.
//
// # Errors
//
// Errors are one line. Scene errors are viz's, which name the shapes.
package session
