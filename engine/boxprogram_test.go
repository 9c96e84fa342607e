package engine_test

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

func TestBoxingProgram(t *testing.T) {
	p, _ := sbp.ParsePlacement("4")
	src := engine.BoxingProgram(p, tensor.Shape{25, 33}, sbp.NdSbp{sbp.S(0)}, sbp.NdSbp{sbp.S(1)})
	pl := plan(t, src)
	last := pl.Steps[len(pl.Steps)-1]
	if last.Name != "y" || last.Kind != planner.StepBoxing || strings.Join(last.Collectives, "+") != "all-to-all" || last.SendBytes != 672+3*600 {
		t.Errorf("%s: the last step is %+v", src, last)
	}
}
