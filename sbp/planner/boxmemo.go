package planner

import (
	"sync"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// boxMemo remembers sbp.PlanBoxing's answers across plans. A scene is
// planned again on every keystroke, and an edit leaves most of a
// program's shapes and layouts as they were, so many of its boxings were
// planned a keystroke earlier; PlanBoxing is a pure function of its
// arguments, so a remembered plan is the plan.
//
// It keeps two generations: the boxings asked for lately (recent) and
// those of the generation before (older). A boxing found in older moves
// to recent; once recent holds boxMemoGeneration boxings it becomes
// older and the older one is let go. So the boxings of the last plan or
// two stay (those the next keystroke asks for again) and the memo never
// holds more than 2·boxMemoGeneration. That bound is what the browser
// cares for: a boxing on a 2×2 mesh keeps some 3 KB (its steps' traffic
// per device), an edit of the gallery's 2-D mesh program asks for 2,700
// new ones, and a memo that kept every boxing until a reset at 2^16
// held 50 MiB after six edits, heap that every collection of the page's
// wasm marks again.
var boxMemo = struct {
	sync.Mutex
	recent, older map[string]boxEdge
}{recent: map[string]boxEdge{}}

// boxMemoGeneration is how many boxings a generation holds: more than
// one plan of any gallery program asks for (the 2-D mesh program's exact
// plan asks for 4,600 cold), about 12 MiB of 2×2 boxings.
const boxMemoGeneration = 1 << 12

// memoBoxing is sbp.PlanBoxing through boxMemo, of a tensor whose
// elements are width bytes (sbp.Boxing.AtWidth: a 16-bit tensor moves
// half its float32 simulation's bytes); key spells the placement, the
// shape, the width where not 4 and the two SBPs.
func memoBoxing(key string, shape tensor.Shape, width int, p sbp.Placement, from, to sbp.NdSbp) (sbp.Boxing, error) {
	boxMemo.Lock()
	e, ok := boxMemo.recent[key]
	if !ok {
		if e, ok = boxMemo.older[key]; ok {
			rememberBoxing(key, e)
		}
	}
	boxMemo.Unlock()
	if ok {
		return e.b, e.err
	}
	b, err := sbp.PlanBoxing(shape, tensor.Float32, p, from, to)
	b = b.AtWidth(width)
	boxMemo.Lock()
	rememberBoxing(key, boxEdge{b, err})
	boxMemo.Unlock()
	return b, err
}

// rememberBoxing puts e in the recent generation, starting a new one
// when it is full. The caller holds boxMemo's lock.
func rememberBoxing(key string, e boxEdge) {
	if len(boxMemo.recent) >= boxMemoGeneration {
		boxMemo.older, boxMemo.recent = boxMemo.recent, make(map[string]boxEdge, boxMemoGeneration)
	}
	boxMemo.recent[key] = e
}

// forgetBoxings empties boxMemo: benchmarks of a cold plan call it.
func forgetBoxings() {
	boxMemo.Lock()
	boxMemo.recent, boxMemo.older = map[string]boxEdge{}, nil
	boxMemo.Unlock()
}
