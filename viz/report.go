package viz

import (
	"fmt"
	"strings"
)

// The results panel: what every front end (the CLI, the desktop app, the
// playground) shows beside a scene, as data, so that they show the same
// words. Report describes the layouts, the bytes and the focus; the
// package results runs the scene's Work and describes what it computed.

// Report is what a results panel shows beside a scene, in every front end.
type Report struct{ Sections []Section }

// Section is a titled block of lines and an optional table whose first row is the header.
type Section struct {
	Title string
	Lines []string
	Table [][]string
}

// String writes the report as plain text: each title, its lines indented,
// its table in aligned columns.
func (r Report) String() string {
	var b strings.Builder
	for i, s := range r.Sections {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s.String())
	}
	return b.String()
}

// String writes the section as plain text.
func (s Section) String() string {
	var b strings.Builder
	b.WriteString(s.Title + "\n")
	for _, l := range s.Lines {
		b.WriteString("  " + l + "\n")
	}
	width := map[int]int{}
	for _, row := range s.Table {
		for j, cell := range row {
			width[j] = max(width[j], len([]rune(cell)))
		}
	}
	for _, row := range s.Table {
		b.WriteString(" ")
		for j, cell := range row {
			fmt.Fprintf(&b, " %*s", width[j], cell)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Report describes the scene (and the focus, when f is not nil) for a
// results panel. A step out of range describes the last step; a focus
// that names nothing in the scene is reported as such in its section.
func (s *Scene) Report(step int, f *Focus) Report { return s.ReportLook(step, Look{Focus: f}) }

// ReportLook is the results panel as l says, as FrameLook draws the
// frame: l.Focus described, and with l.HideAnswers every line that would
// give a lesson's open question away says Hidden in its place (what an
// output cell reads and the offset formula, who reads a storage element,
// the ranges and values a rank holds and who holds a cell, the
// signatures, SBPs and boxings of a program's steps not yet reached), in
// every step, so that stepping through the scene gives nothing away
// either. The layouts, the strides and the question's own step stay: they
// are what the learner predicts from.
func (s *Scene) ReportLook(step int, l Look) Report {
	return s.impl.report(min(max(step, 0), s.Steps-1), l)
}

// Hidden is what a results panel says in place of what would answer an
// open question (Look.HideAnswers).
const Hidden = "hidden until you answer"

// focusSection is the report's section about f: what lines says, or why f
// names nothing in the scene.
func focusSection(f *Focus, check func(Focus) error, lines func() []string) []Section {
	if f == nil {
		return nil
	}
	if err := check(*f); err != nil {
		return []Section{{Title: "focus", Lines: []string{err.Error()}}}
	}
	return []Section{{Title: "focus", Lines: lines()}}
}
