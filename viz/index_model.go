package viz

import (
	"encoding/json"
	"fmt"

	"github.com/stridelab/stridelab/tensor"
)

// IndexModel is the meaning of an index scene (expand, repeat, binary,
// reduce, view): the operands' layouts, the output's shape, and for every
// output cell the scene draws, every (operand, storage offset) it reads.
// A reduce's cell lists every input element it combines, a binary op's
// both operands. Cells the scene elides are left out.
type IndexModel struct {
	Scene    string                   `json:"scene"`
	Operands map[string]OperandLayout `json:"operands"`
	OutShape tensor.Shape             `json:"out_shape"`
	Cells    []CellReads              `json:"cells"`
}

// OperandLayout is how an operand's storage is read: the view's shape,
// strides (0 on broadcast dims) and base offset, and the storage size.
type OperandLayout struct {
	Shape   tensor.Shape `json:"shape"`
	Strides []int        `json:"strides"`
	Offset  int          `json:"offset"`
	Storage int          `json:"storage"` // elements in the operand's buffer
}

// CellReads is one output cell and what it reads.
type CellReads struct {
	Index []int  `json:"index"`
	Reads []Read `json:"reads"`
}

// Read is one storage element a cell reads: ["x", 5] in JSON.
type Read struct {
	Operand string
	Offset  int
}

// MarshalJSON writes the pair as a two-element array.
func (r Read) MarshalJSON() ([]byte, error) { return json.Marshal([2]any{r.Operand, r.Offset}) }

// UnmarshalJSON reads ["x", 5].
func (r *Read) UnmarshalJSON(b []byte) error {
	var pair [2]json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return err
	}
	if err := json.Unmarshal(pair[0], &r.Operand); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &r.Offset)
}

// maxReads bounds the reads a model lists in all (a reduce of a huge input
// reads many elements per cell): past it the JSON export is refused.
const maxReads = 1 << 20

// operand is an index scene's input: its storage (a contiguous buffer of
// storage elements) and the layout the kernel reads it through.
type operand struct {
	name    string
	storage tensor.Shape  // the buffer's own shape, drawn as a strip
	view    tensor.Layout // over the output's shape (reduce: the input's)
}

func (o operand) layout() OperandLayout {
	n, _ := o.storage.NumElements()
	return OperandLayout{Shape: o.view.Shape(), Strides: o.view.Strides(), Offset: o.view.Base(), Storage: n}
}

// readsOf lists what output index idx reads, from the layouts alone:
// unary and binary scenes read each operand's view at idx (repeat: at idx
// unravelled into the expanded view's shape); reduce reads every input
// index whose kept coordinates equal idx's. No cell (nil) reads nothing.
func (s *indexScene) readsOf(idx []int) []Read {
	switch {
	case idx == nil:
		return nil
	case s.reduced != nil:
		return s.reduceReads(idx)
	case s.unravel:
		lin := linear(s.out, idx)
		return []Read{{s.ops[0].name, s.ops[0].view.Offset(s.ops[0].view.Shape().Unravel(lin))}}
	}
	out := make([]Read, len(s.ops))
	for i, o := range s.ops {
		out[i] = Read{o.name, o.view.Offset(idx)}
	}
	return out
}

// reduceReads walks the reduced dims of the input with the kept ones fixed
// at idx (aligned on the right, as broadcasting aligns them).
func (s *indexScene) reduceReads(idx []int) []Read {
	in := s.ops[0].view
	shape := in.Shape()
	lead := len(shape) - len(idx)
	cur := make([]int, len(shape))
	for d := range shape {
		if !s.reduced[d] {
			cur[d] = idx[d-lead]
		}
	}
	var out []Read
	var walk func(d int)
	walk = func(d int) {
		if d == len(shape) {
			out = append(out, Read{"x", in.Offset(cur)})
			return
		}
		if !s.reduced[d] {
			walk(d + 1)
			return
		}
		for i := 0; i < shape[d]; i++ {
			cur[d] = i
			walk(d + 1)
		}
	}
	walk(0)
	return out
}

// combined is how many input elements one reduce output combines.
func (s *indexScene) combined() int {
	n := 1
	for d, r := range s.reduced {
		if r {
			n *= s.ops[0].view.Dim(d)
		}
	}
	return n
}

// model builds the IndexModel over the cells the scene draws.
func (s *indexScene) model() (*IndexModel, error) {
	m := &IndexModel{Scene: s.spec.Scene, Operands: map[string]OperandLayout{}, OutShape: s.out.Clone(), Cells: []CellReads{}}
	for _, o := range s.ops {
		m.Operands[o.name] = o.layout()
	}
	per := len(s.ops)
	if s.reduced != nil {
		per = s.combined()
	}
	if per*len(s.sweep) > maxReads {
		return nil, fmt.Errorf("viz: %s: the %d cells drawn read %d elements each; the JSON lists at most %d reads", s.spec.Scene, len(s.sweep), per, maxReads)
	}
	for _, idx := range s.sweep {
		m.Cells = append(m.Cells, CellReads{Index: idx, Reads: s.readsOf(idx)})
	}
	return m, nil
}

// linear is the row-major position of idx in shape.
func linear(shape tensor.Shape, idx []int) int {
	n := 0
	for d, i := range idx {
		n = n*shape[d] + i
	}
	return n
}
