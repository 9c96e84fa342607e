package viz

import (
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// Work is what a scene's op computes, as data: the scene describes it,
// and the package above viz that runs things (results) runs it on a
// tensor.Backend or on sbp's simulated devices. A renderer that draws a
// scene never pulls in execution. Its kinds are *KernelWork (the index
// scenes), *ShardWork (the shard scenes) and *ProgramWork (the program
// scene).
type Work interface {
	// Title says what the run computes, e.g. "expand [4 1 3] → [4 2 3]
	// over arange inputs".
	Title() string
	// OutShape is the shape of the result the run materializes: what the
	// result budget is checked against before anything is allocated.
	OutShape() tensor.Shape
	work()
}

// KernelOp names the kernel an index scene's op runs.
type KernelOp uint8

const (
	// Materialize copies input 0 read through View into a contiguous
	// result (expand, view), then views the copy as ReshapeTo if set
	// (a reshape no view can express).
	Materialize KernelOp = iota
	// Repeat tiles input 0 Times times.
	Repeat
	// Binary applies BinaryOp to inputs 0 and 1 with broadcasting.
	Binary
	// Reduce reduces input 0 to Out with ReduceOp.
	Reduce
)

// KernelWork is an index scene's op: one kernel over arange inputs (each
// input's storage holds 0, 1, 2, …, so a value names its offset).
type KernelWork struct {
	What      string
	Op        KernelOp
	Inputs    []tensor.Shape // each input's contiguous storage
	Out       tensor.Shape
	View      tensor.Layout   // Materialize: input 0 read through this view
	ReshapeTo []int           // Materialize: the copy then viewed as this shape, or nil
	Times     []int           // Repeat
	BinaryOp  tensor.BinaryOp // Binary
	ReduceOp  tensor.ReduceOp // Reduce
}

// ShardKind names what a shard scene's run does on the simulated devices.
type ShardKind uint8

const (
	// Place scatters input 0 as Sbps[0] and gathers it back.
	Place ShardKind = iota
	// Box scatters input 0 as Sbps[0], boxes it to BoxTo and gathers.
	Box
	// Apply scatters every input as its SBP, runs Op on the devices
	// (sbp.Apply) and gathers the output.
	Apply
)

// ShardWork is a shard scene's run on sbp's simulated devices, over
// arange inputs.
type ShardWork struct {
	What      string
	Kind      ShardKind
	Placement sbp.Placement
	Inputs    []tensor.Shape
	Sbps      []sbp.NdSbp // each input's
	BoxTo     sbp.NdSbp   // Box
	Op        sbp.Op      // Apply
	Out       tensor.Shape
}

func (w *KernelWork) Title() string          { return w.What }
func (w *KernelWork) OutShape() tensor.Shape { return w.Out }
func (w *KernelWork) work()                  {}
func (w *ShardWork) Title() string           { return w.What }
func (w *ShardWork) OutShape() tensor.Shape  { return w.Out }
func (w *ShardWork) work()                   {}

// Work returns what the scene's op computes, for a package that runs it.
func (s *Scene) Work() Work { return s.impl.work() }
