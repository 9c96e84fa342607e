package viz

import "strings"

// A program's text (the src key) is statements, one a line or several
// separated by ';', and '#' starts a comment that runs to the end of its
// line, as sbp/program's parser reads it. The front ends show it two
// ways: the playground's text area one statement a line, the desktop
// app's one-line field with "; " between the statements. Neither changes
// what the program says: its statements, in order, are the same.

// ProgramLines writes a program one statement a line: the statements a
// line holds go on lines of their own, a line's comment stays on the
// line of its last statement (or on a line of its own), blank lines
// stay, and spaces at the ends of lines go.
func ProgramLines(src string) string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		code, comment, hasComment := strings.Cut(line, "#")
		var stmts []string
		for _, st := range strings.Split(code, ";") {
			if st = strings.TrimSpace(st); st != "" {
				stmts = append(stmts, st)
			}
		}
		if hasComment {
			c := "#" + strings.TrimRight(comment, " \t\r")
			if len(stmts) == 0 {
				stmts = []string{strings.TrimSpace(code) + c}
			} else {
				stmts[len(stmts)-1] += "  " + c
			}
		}
		if len(stmts) == 0 {
			stmts = []string{""}
		}
		out = append(out, stmts...)
	}
	return strings.Join(out, "\n")
}

// ProgramOneLine writes a program on one line, its statements separated
// by "; ". The comments are left out: on one line a comment would run
// over the statements after it.
func ProgramOneLine(src string) string {
	var stmts []string
	for _, line := range strings.Split(src, "\n") {
		code, _, _ := strings.Cut(line, "#")
		for _, st := range strings.Split(code, ";") {
			if st = strings.TrimSpace(st); st != "" {
				stmts = append(stmts, st)
			}
		}
	}
	return strings.Join(stmts, "; ")
}
