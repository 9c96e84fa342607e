package program

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// Optimizer is the optimizer statement, `optimizer adam|sgd [zero1|zero2]`:
// the state the optimizer keeps for each parameter (an input that gets a
// gradient), which its devices hold for the whole step as the Ultra-Scale
// Playbook and the ZeRO paper count it (docs/planner-sources.md):
//
//   - adam: two moments in float32, 8 bytes an element, and a float32
//     master copy, 4 more, where the parameter is 16-bit (bf16, f16):
//     mixed precision's 12 bytes of optimizer state a parameter;
//   - sgd: no state but that master copy.
//
// The state lies as the parameter does (its SBP: split parameters, as
// ZeRO-3 and FSDP keep them, split their state). zero1 splits the state
// evenly over every device whatever the parameter's layout (ZeRO stage
// 1); zero2 also the parameters' final gradients (stage 2). Both only
// count memory: ZeRO-1 and 2 send what data parallelism's all-reduce
// sends (a reduce-scatter, then an all-gather of the updated shards).
type Optimizer struct {
	Name string // "adam" or "sgd"
	ZeRO int    // 0, 1 or 2: what the state (1) and the gradients (2) are split over every device by
	Line int    // where the statement is
}

// ParseOptimizer reads what follows the word optimizer: adam or sgd,
// then optionally zero1 or zero2 (a front end's flag takes the same
// words).
func ParseOptimizer(rest string) (*Optimizer, error) {
	f := strings.Fields(rest)
	if len(f) == 0 || len(f) > 2 || (f[0] != "adam" && f[0] != "sgd") {
		return nil, fmt.Errorf("optimizer takes adam or sgd, then optionally zero1 or zero2: optimizer adam, optimizer adam zero1; got %q", rest)
	}
	o := &Optimizer{Name: f[0]}
	if len(f) == 2 {
		switch f[1] {
		case "zero1":
			o.ZeRO = 1
		case "zero2":
			o.ZeRO = 2
		default:
			return nil, fmt.Errorf("optimizer %s: %q is not a ZeRO stage: zero1 (its state split over every device) or zero2 (its gradients too); ZeRO-3 is the parameters' own split layout", f[0], f[1])
		}
	}
	return o, nil
}

// StateBytes is what the optimizer keeps for one element of a parameter
// of precision p: Adam's two float32 moments (8 bytes) and, for a 16-bit
// parameter, its float32 master copy (4 bytes); plain SGD the master copy
// alone.
func (o *Optimizer) StateBytes(p tensor.Precision) int64 {
	var b int64
	if o.Name == "adam" {
		b = 8
	}
	if p.Half() {
		b += 4
	}
	return b
}

// String is the statement as written: "optimizer adam zero1".
func (o *Optimizer) String() string {
	s := "optimizer " + o.Name
	if o.ZeRO > 0 {
		s += fmt.Sprintf(" zero%d", o.ZeRO)
	}
	return s
}
