package engine

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// A single boxing runs on an engine as a program of one statement:
// `stridelab sbp boxing` hands an engine the plan of BoxingProgram's
// source, with x's values; the result is named y. (A single op's program
// is program.OneOp's.)

// BoxingProgram writes the program that boxes x, a tensor of shape on p,
// from one nd-SBP to another, its result named y:
//
//	placement cpu:[0, 1, 2, 3]; x = input 25,33 S(0); y = box x S(1)
func BoxingProgram(p sbp.Placement, shape tensor.Shape, from, to sbp.NdSbp) string {
	return fmt.Sprintf("placement %v; x = input %s %v; y = box x %v", p, shape.Spell(), from, to)
}
