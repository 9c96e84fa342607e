package viz

import (
	"fmt"
	"strings"
)

// Describe says in one line of plain words what focus f means in the
// scene at step: what an output cell reads (out[2,1,2] reads x[8]), who
// reads a storage element, where a cell of a sharded tensor lives and
// what a device holds, what a program's step does. It is what a live
// region speaks and a desktop app reads aloud, the same words in every
// front end, built from the scene's model (tensor's layouts, sbp's
// shards, the program's plan), never from drawn text. A program's device
// is described at the step whose column its row is under (f.Offset, as
// Hot gives it; 0, the first step, for a bare "rank N"). A step out of
// range or a focus that names nothing in the scene is an error, as for
// FrameFocus.
func (s *Scene) Describe(step int, f Focus) (string, error) {
	if step < 0 || step >= s.Steps {
		return "", fmt.Errorf("viz: %s: step %d is out of range: the scene has steps 0 to %d", s.Spec.Scene, step, s.Steps-1)
	}
	if err := s.impl.checkFocus(f); err != nil {
		return "", err
	}
	return s.impl.describe(step, f)
}

// maxListed is how many items a description lists before it cuts the
// list short with an ellipsis: enough to see the pattern, short enough
// to hear.
const maxListed = 8

// maxRanksListed is maxListed for devices, each named with its mesh
// coordinate (longer words).
const maxRanksListed = 4

// listCut joins items with ", ", the first most of them, and an
// ellipsis where there were more (or where total says more exist than
// were given).
func listCut(items []string, total, most int) string {
	cut := items
	if len(cut) > most {
		cut = cut[:most]
	}
	s := strings.Join(cut, ", ")
	if len(items) > len(cut) || total > len(cut) {
		s += ", …"
	}
	return s
}

// andList joins items as a sentence does: "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
