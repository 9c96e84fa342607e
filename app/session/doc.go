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
// # Errors
//
// Errors are one line. Scene errors are viz's, which name the shapes.
package session
