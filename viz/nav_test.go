package viz

import (
	"slices"
	"testing"
)

// walk presses right from nothing until the focus stops moving, and
// returns what it visited.
func walk(t *testing.T, s *Scene, step int, sz Size) []Focus {
	t.Helper()
	var seen []Focus
	var at *Focus
	for range 10000 {
		f, ok := s.Move(step, sz, at, DirRight)
		if !ok {
			return seen
		}
		seen = append(seen, f)
		at = &f
	}
	t.Fatalf("%v: the walk right does not end", s.Spec)
	return nil
}

// TestMoveWalksInOrder: for every kind's example, at its first and last
// steps, the right arrow from nothing visits each thing the keyboard
// walks once, group by group — index scenes the output cells in index
// order, then each storage strip by offset; shard scenes the logical
// cells in index order, then the devices by rank; program scenes the
// steps — and every one of them is drawn there (a hot region).
func TestMoveWalksInOrder(t *testing.T) {
	for _, k := range Kinds() {
		s, err := Build(k.Example)
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range slices.Compact([]int{0, s.Steps - 1}) {
			got := walk(t, s, step, DefaultSize)
			if len(got) == 0 {
				t.Fatalf("%s step %d: the keys walk nothing", k.Name, step)
			}
			hots, _ := s.Hots(step, DefaultSize)
			for _, f := range got {
				if !slices.ContainsFunc(hots, func(h Hot) bool { return h.Focus.Equal(f) }) {
					t.Errorf("%s step %d: the walk visits %v, which is not drawn", k.Name, step, f)
				}
			}
			for i := range got {
				for j := range i {
					if got[i].Equal(got[j]) {
						t.Fatalf("%s step %d: the walk visits %v twice (at %d and %d)", k.Name, step, got[i], j, i)
					}
				}
			}
			// The group order and the order within a group.
			rank := func(f Focus) int { return s.impl.navGroup(f) }
			for i := 1; i < len(got); i++ {
				a, b := got[i-1], got[i]
				if rank(a) < 0 || rank(b) < rank(a) {
					t.Fatalf("%s step %d: the walk goes %v then %v: want %s", k.Name, step, a, b, wantOrder(s))
				}
				if rank(a) != rank(b) {
					continue
				}
				switch {
				case a.Kind == FocusCell && !(slices.Compare(a.Index, b.Index) < 0):
					t.Errorf("%s step %d: cell %v then %v: want index order", k.Name, step, a, b)
				case a.Kind == FocusStorage && a.Operand == b.Operand && b.Offset <= a.Offset && !isStage(s, step):
					t.Errorf("%s step %d: %v then %v: want offsets in order", k.Name, step, a, b)
				case a.Kind == FocusDevice && b.Rank <= a.Rank:
					t.Errorf("%s step %d: %v then %v: want ranks in order", k.Name, step, a, b)
				case a.Kind == FocusStep && b.Offset != a.Offset+1:
					t.Errorf("%s step %d: %v then %v: want the next step", k.Name, step, a, b)
				}
			}
			want := map[string][]FocusKind{
				"index":   {FocusCell, FocusStorage},
				"shard":   {FocusCell, FocusDevice},
				"program": {FocusStep},
			}[sceneFamily(s)]
			var kinds []FocusKind
			for _, f := range got {
				if len(kinds) == 0 || kinds[len(kinds)-1] != f.Kind {
					kinds = append(kinds, f.Kind)
				}
			}
			if !isStage(s, step) && !slices.Equal(kinds, want) {
				t.Errorf("%s step %d: the walk visits %v in turn, want %v", k.Name, step, kinds, want)
			}
			if f := got[0]; f.Kind == FocusCell && !slices.Equal(f.Index, make([]int, len(f.Index))) {
				t.Errorf("%s step %d: the first key focuses %v, want the first cell", k.Name, step, f)
			}
			// Left walks back the same way, and stops at the start.
			last := got[len(got)-1]
			for i := len(got) - 2; i >= 0; i-- {
				f, ok := s.Move(step, DefaultSize, &last, DirLeft)
				if !ok || !f.Equal(got[i]) {
					t.Fatalf("%s step %d: left from %v = %v, %v; want %v", k.Name, step, last, f, ok, got[i])
				}
				last = f
			}
			if f, ok := s.Move(step, DefaultSize, &last, DirLeft); ok {
				t.Errorf("%s step %d: left from the first, %v, moves to %v", k.Name, step, last, f)
			}
		}
	}
}

func sceneFamily(s *Scene) string {
	switch s.impl.(type) {
	case *indexScene:
		return "index"
	case *shardScene:
		return "shard"
	}
	return "program"
}

func wantOrder(s *Scene) string {
	return map[string]string{"index": "output cells, then storage", "shard": "cells, then devices", "program": "steps"}[sceneFamily(s)]
}

// isStage reports whether step is one of repeat's lead frames, whose grid
// names storage elements.
func isStage(s *Scene, step int) bool {
	is, ok := s.impl.(*indexScene)
	return ok && step < len(is.stageViews)
}

// TestMoveUpAndDown: in expand's example (out 4×2×3, its storage strip
// under the grid) right at a row's end goes to the next row, down from
// the grid's last row goes into the strip, up from the strip goes back
// into the grid's last row, and up from the first row does not move; in
// a shard scene down from the grid reaches what lies under it.
func TestMoveUpAndDown(t *testing.T) {
	s, err := Build(example("expand", "shape", "4,1,3", "size", "4,2,3"))
	if err != nil {
		t.Fatal(err)
	}
	step := s.Steps - 1
	sz := DefaultSize
	pos := map[string]Hot{}
	hots, _ := s.Hots(step, sz)
	for _, h := range hots {
		pos[h.Focus.String()] = h
	}
	move := func(from string, d Dir) (string, bool) {
		t.Helper()
		f, err := ParseFocus(from)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := s.Move(step, sz, &f, d)
		if !ok {
			return "", false
		}
		return got.String(), true
	}
	if got, _ := move("out[0,0,2]", DirRight); got != "out[0,1,0]" {
		t.Errorf("right from out[0,0,2] = %s, want out[0,1,0] (the next row)", got)
	}
	if got, _ := move("out[0,1,2]", DirRight); got != "out[1,0,0]" {
		t.Errorf("right from out[0,1,2] = %s, want out[1,0,0] (the next facet's first row)", got)
	}
	if got, _ := move("out[3,1,2]", DirRight); got != "x[0]" {
		t.Errorf("right from the last output cell = %s, want x[0] (the storage strip)", got)
	}
	// Up from the strip: a cell of the grid's lowest row, the one nearest
	// in x.
	up, ok := move("x[0]", DirUp)
	if !ok || pos[up].Focus.Kind != FocusCell {
		t.Fatalf("up from x[0] = %q, %v: want a cell of the grid", up, ok)
	}
	for _, h := range hots {
		if h.Focus.Kind == FocusCell && h.Focus.Operand == "out" && h.Y > pos[up].Y+0.5 {
			t.Errorf("up from x[0] = %s at y %.0f, but %v lies lower, at y %.0f", up, pos[up].Y, h.Focus, h.Y)
		}
	}
	if down, ok := move(up, DirDown); !ok || pos[down].Focus.Kind != FocusStorage {
		t.Errorf("down from %s = %q, %v: want the strip", up, down, ok)
	}
	if down, ok := move("out[0,0,1]", DirDown); !ok || pos[down].Y <= pos["out[0,0,1]"].Y || pos[down].X != pos["out[0,0,1]"].X {
		t.Errorf("down from out[0,0,1] = %q, %v: want the cell under it", down, ok)
	}
	if got, ok := move("out[0,0,1]", DirUp); ok {
		t.Errorf("up from the first row = %s, want no move", got)
	}

	// A binary op walks the output, then a's strip, then b's; from a cell of
	// a's grid (the mouse's) an arrow moves into the walk.
	b, err := Build(example("binary", "shape", "3,1", "op", "add", "b-shape", "1,4"))
	if err != nil {
		t.Fatal(err)
	}
	got := walk(t, b, 0, sz)
	var strips []string
	for _, f := range got {
		if f.Kind == FocusStorage && !slices.Contains(strips, f.Operand) {
			strips = append(strips, f.Operand)
		}
	}
	if !slices.Equal(strips, []string{"a", "b"}) {
		t.Errorf("binary: the walk visits the strips %v, want [a b]", strips)
	}
	from := Focus{Kind: FocusCell, Operand: "a", Index: []int{0, 0}}
	if f, ok := b.Move(0, sz, &from, DirRight); !ok || b.impl.navGroup(f) < 0 {
		t.Errorf("binary: right from a[0,0] = %v, %v: want a place on the walk", f, ok)
	}
}
