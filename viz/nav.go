package viz

import (
	"fmt"
	"math"
)

// Dir is a direction the arrow keys move the keyboard's focus in.
type Dir uint8

const (
	DirLeft Dir = iota
	DirRight
	DirUp
	DirDown
)

var dirNames = [...]string{DirLeft: "left", DirRight: "right", DirUp: "up", DirDown: "down"}

// String is the direction's name, as the arrow keys are named.
func (d Dir) String() string {
	if int(d) < len(dirNames) {
		return dirNames[d]
	}
	return fmt.Sprintf("Dir(%d)", d)
}

// navGroup is where a focus comes in the keyboard's walk through a kind of
// scene: the things it walks, group by group (0 first), and -1 for what
// it does not walk. Index scenes walk the output cells, then the storage
// strips; shard scenes the logical tensor's cells, then the devices;
// program scenes the steps. An operand's grid, reduce's input grid and a
// program's device rows stay the mouse's: the output cell already says
// what it reads, the step what it moves.
func (s *indexScene) navGroup(f Focus) int {
	switch {
	case f.Kind == FocusCell && f.Operand == "out":
		return 0
	case f.Kind == FocusStorage:
		return 1
	}
	return -1
}

func (s *shardScene) navGroup(f Focus) int {
	switch {
	case f.Kind == FocusCell && f.Operand == "global":
		return 0
	case f.Kind == FocusDevice:
		return 1
	}
	return -1
}

func (s *programScene) navGroup(f Focus) int {
	if f.Kind == FocusStep && f.Operand != OverviewOperand { // the keys step; the overview is for the pointer
		return 0
	}
	return -1
}

// NavOrder is the keyboard's walk through the frame of step at size sz:
// the hot regions it visits, in order. Each group (see Move) comes in the
// order it is drawn: a grid's cells row by row in index order (a faceted
// grid facet by facet), a strip's by offset, devices by rank, steps left
// to right. A thing drawn twice (a cell of one of repeat's stage grids
// names its storage element, as the strip does) is visited where it is
// first drawn.
func (s *Scene) NavOrder(step int, sz Size) ([]Hot, error) {
	hots, err := s.Hots(step, sz)
	if err != nil {
		return nil, err
	}
	var groups [][]Hot
	for _, h := range hots {
		g := s.impl.navGroup(h.Focus)
		if g < 0 || seenFocus(groups, h.Focus) {
			continue
		}
		for len(groups) <= g {
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], h)
	}
	var order []Hot
	for _, g := range groups {
		order = append(order, g...)
	}
	return order, nil
}

func seenFocus(groups [][]Hot, f Focus) bool {
	for _, g := range groups {
		for _, h := range g {
			if h.Focus.Equal(f) {
				return true
			}
		}
	}
	return false
}

// Move is where an arrow key takes the keyboard's focus from (nil: nothing
// focused yet) in the frame of step at size sz, and whether it moved.
//
// With nothing focused, any arrow focuses the first thing of the walk
// (NavOrder): an index scene's first output cell, a shard scene's first
// cell, a program's first drawn step. Left and right go back and forth
// along the walk, so right at the end of a row goes to the next row, and
// from the last output cell to the storage strip. Up and down are
// geometric: the nearest row above (below) — the regions whose centres lie
// nearest in that direction — and in it the region nearest in x, so up
// from the storage strip goes back into the grid. At an end of the walk,
// or with nothing above or below, it does not move. A focus that is not
// part of the walk (an operand's cell the mouse pointed at) moves from
// where it is drawn to the nearest part of the walk in that direction.
func (s *Scene) Move(step int, sz Size, from *Focus, d Dir) (Focus, bool) {
	order, err := s.NavOrder(step, sz)
	if err != nil || len(order) == 0 {
		return Focus{}, false
	}
	if from == nil {
		return order[0].Focus.clone(), true
	}
	at := -1
	for i, h := range order {
		if h.Focus.Equal(*from) {
			at = i
			break
		}
	}
	var here Hot
	if at >= 0 {
		here = order[at]
		switch d {
		case DirLeft:
			if at == 0 {
				return Focus{}, false
			}
			return order[at-1].Focus.clone(), true
		case DirRight:
			if at == len(order)-1 {
				return Focus{}, false
			}
			return order[at+1].Focus.clone(), true
		}
	} else {
		hots, err := s.Hots(step, sz)
		if err != nil {
			return Focus{}, false
		}
		found := false
		for _, h := range hots {
			if h.Focus.Equal(*from) {
				here, found = h, true
				break
			}
		}
		if !found { // drawn nowhere at this step: start the walk
			return order[0].Focus.clone(), true
		}
	}
	if h, ok := nearest(order, here, d); ok {
		return h.Focus.clone(), true
	}
	return Focus{}, false
}

// nearest is the region of hots nearest to from in direction d: along d,
// the nearest line of regions (centres within half of from's extent
// across d count as one line), and in that line the nearest across d.
func nearest(hots []Hot, from Hot, d Dir) (Hot, bool) {
	fx, fy := from.X+from.W/2, from.Y+from.H/2
	// along: how far h lies in direction d (> 0: it lies that way);
	// across: how far off the line through from it lies.
	along := func(h Hot) float64 {
		hx, hy := h.X+h.W/2, h.Y+h.H/2
		switch d {
		case DirLeft:
			return fx - hx
		case DirRight:
			return hx - fx
		case DirUp:
			return fy - hy
		}
		return hy - fy
	}
	across := func(h Hot) float64 {
		if d == DirLeft || d == DirRight {
			return math.Abs(h.Y + h.H/2 - fy)
		}
		return math.Abs(h.X + h.W/2 - fx)
	}
	const eps = 0.5 // px: centres this close are in line
	line := math.Inf(1)
	for _, h := range hots {
		if a := along(h); a > eps && a < line {
			line = a
		}
	}
	if math.IsInf(line, 1) {
		return Hot{}, false
	}
	// The nearest line: regions whose centres lie within tol past the
	// first one found (a row of a grid, a row of devices).
	tol := math.Max(eps, math.Min(from.W, from.H)/2)
	var best Hot
	bestAcross := math.Inf(1)
	for _, h := range hots {
		if a := along(h); a > eps && a <= line+tol {
			if c := across(h); c < bestAcross {
				best, bestAcross = h, c
			}
		}
	}
	return best, true
}
