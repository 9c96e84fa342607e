package program

import (
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// viewWords are the statements that view a tensor's elements in another
// order or shape, each with how it is written:
//
//	y = transpose x          the last two dims swapped
//	y = permute x 0,2,1,3    y's dim k is x's dim perm[k]
//	y = reshape x 8,4,16     the same elements in row-major order; one size may be -1
var viewWords = map[string]string{
	"transpose": "transpose takes one name: transpose X (it swaps the last two dims)",
	"permute":   "permute takes a name and an order of its dims: permute X 0,2,1,3 (y's dim k is X's dim order[k])",
	"reshape":   "reshape takes a name and a shape: reshape X 8,4,16 (one size may be -1)",
}

// parseView reads what follows transpose, permute or reshape; s.Ints
// keeps the order or the shape as written.
func parseView(s *Stmt, word, rest string, arg func(string) (*Stmt, error), apply func(sbp.Op, ...*Stmt) (*Stmt, error)) (*Stmt, error) {
	x, rest2 := cut(rest)
	v, extra := cut(rest2)
	if x == "" || extra != "" || (word == "transpose") != (v == "") {
		return nil, bad("%s", viewWords[word])
	}
	a, err := arg(x)
	if err != nil {
		return nil, err
	}
	switch word {
	case "transpose":
		return apply(sbp.Transpose(), a)
	case "permute":
		perm, err := tensor.ParseInts("permute order", v)
		if err != nil {
			return nil, err
		}
		s.Ints = perm
		return apply(sbp.Permute(perm), a)
	}
	shape, err := tensor.ParseInts("reshape shape", v)
	if err != nil {
		return nil, err
	}
	s.Ints = shape
	return apply(sbp.Reshape(shape), a)
}
