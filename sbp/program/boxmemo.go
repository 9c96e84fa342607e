package program

import (
	"sync"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// boxMemo remembers sbp.PlanBoxing's answers across plans. A scene is
// planned again on every keystroke, and an edit leaves most of a
// program's shapes and layouts as they were, so most of its boxings were
// planned a keystroke earlier; PlanBoxing is a pure function of its
// arguments, so a remembered plan is the plan. Past boxMemoSize entries
// the memo starts afresh (a plan of a 12-layer chain on a 2×4 mesh asks
// for about 10^4).
var boxMemo = struct {
	sync.Mutex
	m map[string]boxEdge
}{m: map[string]boxEdge{}}

const boxMemoSize = 1 << 16

// memoBoxing is sbp.PlanBoxing through boxMemo; key spells the
// placement, the shape and the two SBPs.
func memoBoxing(key string, shape tensor.Shape, p sbp.Placement, from, to sbp.NdSbp) (sbp.Boxing, error) {
	boxMemo.Lock()
	e, ok := boxMemo.m[key]
	boxMemo.Unlock()
	if ok {
		return e.b, e.err
	}
	b, err := sbp.PlanBoxing(shape, tensor.Float32, p, from, to)
	boxMemo.Lock()
	if len(boxMemo.m) >= boxMemoSize {
		boxMemo.m = map[string]boxEdge{}
	}
	boxMemo.m[key] = boxEdge{b, err}
	boxMemo.Unlock()
	return b, err
}

// forgetBoxings empties boxMemo: benchmarks of a cold plan call it.
func forgetBoxings() {
	boxMemo.Lock()
	boxMemo.m = map[string]boxEdge{}
	boxMemo.Unlock()
}
