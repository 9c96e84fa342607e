package lessons

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// TestHiddenAnswersInTheScene: for every built-in question, the step's
// frame drawn as the open question sees it (viz.Look.HideAnswers) draws
// no label that answers it, inside the regions the learner looks at and
// clicks (Scene.Hots):
//
//   - index scenes: every output cell's label (the offsets it reads, or a
//     reduce's sum of them) is "?" or absent;
//   - shard scenes: every cell of the logical tensor (its owner's rank)
//     is "?" or absent, and a device's panel names the device and its
//     shard's shape (which its cells show anyway) and draws "?" (or "…")
//     in place of its values;
//   - program scenes: the columns of the steps not reached yet draw their
//     number and "?" only.
//
// Drawn as shown (HideAnswers false) the same regions give the answer:
// the asked cell's offsets, the readers' offset, the owner's rank, the
// device's values, and a program's step at its reveal.
//
// This is the test the scene drawings (viz/index_draw.go, shard_draw.go,
// program_draw.go) pass by honouring Look.HideAnswers.
func TestHiddenAnswersInTheScene(t *testing.T) {
	ls, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for _, l := range ls {
		for _, st := range l.Steps {
			q := st.Question
			if q == nil {
				continue
			}
			asked++
			where := fmt.Sprintf("%s step %d (ask: %s)", l.ID, st.N, q.Spelled)
			sc, err := st.Build()
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			a, err := q.Answer(sc)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			step := sc.Spec.Step
			hots, err := sc.Hots(step, Size)
			if err != nil {
				t.Fatal(err)
			}
			hidden, err := sc.FrameLook(step, Size, viz.Look{HideAnswers: true})
			if err != nil {
				t.Fatal(err)
			}
			var drawn []string
			for _, h := range hots {
				if bad := giveaways(sc, h, step, hidden); len(bad) > 0 {
					drawn = append(drawn, fmt.Sprintf("%s %q", h.Focus, bad))
				}
			}
			if len(drawn) > 0 {
				t.Errorf("%s: with the answers hidden, %d regions still draw their answer: %s", where, len(drawn), strings.Join(drawn[:min(len(drawn), 4)], ", "))
			}

			// Shown, the regions that matter say the answer (so the
			// check above looks where the answer would be).
			shownSc, shownStep := sc, step
			if q.Name != "" { // a program's step says what it does once reached
				if shownSc, err = viz.Build(a.Reveal); err != nil {
					t.Fatal(err)
				}
				shownStep = a.Reveal.Step
			}
			shown, err := shownSc.FrameLook(shownStep, Size, viz.Look{})
			if err != nil {
				t.Fatal(err)
			}
			shownHots, err := shownSc.Hots(shownStep, Size)
			if err != nil {
				t.Fatal(err)
			}
			// labelled: the shown frame draws some label that answers a
			// question like this one; looks: it draws a cell or a step
			// this one looks at (the cell asked about may be elided, and a
			// device's values too); gives: one of those says the answer.
			gives, labelled, looks := false, false, false
			for _, h := range shownHots {
				ours := q.Name == "" && (h.Focus.Equal(q.About) || a.Matches(q.asker().clicked(sc, h.Focus))) ||
					q.Name != "" && a.Matches(programStep(h.Focus))
				looks = looks || (ours && checked(shownSc, h) && h.Kind != viz.FocusDevice)
				if len(giveaways(shownSc, h, -1, shown)) > 0 {
					labelled = true
					gives = gives || ours
				}
			}
			if labelled && looks && !gives { // (a repeat's first frames draw no output yet; a big grid's cells may draw no label)
				t.Errorf("%s: drawn as shown, neither %s nor its answer %s draws a label that gives it: the check looks in the wrong place", where, q.About, a.Text)
			}
		}
	}
	if asked == 0 {
		t.Fatal("no lesson asks a question")
	}
}

// giveaways are the texts drawn in region h of f, a frame of sc at step,
// that would answer a question about the scene (see
// TestHiddenAnswersInTheScene); a program's steps after step are not
// reached (-1: every step is checked, as when shown).
func giveaways(sc *viz.Scene, h viz.Hot, step int, f viz.Frame) []string {
	var bad []string
	for _, s := range textsIn(f, h) {
		if s == "?" || s == "…" {
			continue
		}
		if !checked(sc, h) {
			continue
		}
		switch sc.Model().(type) {
		case *viz.ShardModel:
			if h.Kind == viz.FocusDevice && (strings.HasPrefix(s, "rank ") || shardShape.MatchString(s)) {
				continue // the device's name (what the learner clicks), its shard's shape (drawn as its cells are)
			}
		case *viz.ProgramModel:
			if h.Offset <= step || s == strconv.Itoa(h.Offset+1) {
				continue // a step reached, or the step's number
			}
		}
		bad = append(bad, s)
	}
	return bad
}

// shardShape is a device panel's label of its shard's shape: "shard [6
// 33]", or "[4 6] partial".
var shardShape = regexp.MustCompile(`^(shard )?\[[0-9 ]*\]( partial)?$`)

// checked reports whether giveaways looks at what region h draws: an
// output cell of an index scene; a cell of the logical tensor or a
// device of a shard scene; a step's column of a program.
func checked(sc *viz.Scene, h viz.Hot) bool {
	switch sc.Model().(type) {
	case *viz.IndexModel:
		return h.Kind == viz.FocusCell && h.Operand == "out"
	case *viz.ShardModel:
		return (h.Kind == viz.FocusCell && h.Operand == "global") || h.Kind == viz.FocusDevice
	case *viz.ProgramModel:
		return h.Kind == viz.FocusStep
	}
	return false
}

// textsIn lists the texts whose anchor point lies in h.
func textsIn(f viz.Frame, h viz.Hot) []string {
	var out []string
	for _, it := range f.Items {
		if t, ok := it.(viz.Text); ok && t.X >= h.X && t.X <= h.X+h.W && t.Y >= h.Y && t.Y <= h.Y+h.H {
			out = append(out, t.S)
		}
	}
	return slices.Clip(out)
}
