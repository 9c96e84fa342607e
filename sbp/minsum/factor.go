package minsum

import (
	"math"
	"slices"
)

// Factor is a table over a few ops: vars (sorted variable indices);
// per var, the class of each of its candidates (cls) and the number of
// classes (n); tab row-major over the classes, the last var fastest.
type Factor struct {
	Vars []int
	Cls  [][]int32
	N    []int
	Tab  []int64
}

// Infinite marks a table entry no boxing can make.
const Infinite = int64(math.MaxInt64 / 4)

// ClassesOf returns the classes of var u's candidates in f.
func (f *Factor) ClassesOf(u int) []int32 {
	s, _ := slices.BinarySearch(f.Vars, u)
	return f.Cls[s]
}
