package program

// The words an input step's Values holds; any other Values is the .npy
// file a program's `from FILE.npy` names.
const (
	ValuesArange  = "arange"  // 0, 1, 2, … row-major (an input without from)
	ValuesUniform = "uniform" // tensor.Uniform(name, shape), spread over [−1, 1): `from uniform`
	ValuesOnes    = "ones"    // the backward's seed
	ValuesZeros   = "zeros"   // the gradient of an input the target does not depend on
)

// FromFile reports whether an input step's Values names a .npy file
// rather than one of the words above.
func FromFile(values string) bool {
	switch values {
	case ValuesArange, ValuesUniform, ValuesOnes, ValuesZeros:
		return false
	}
	return true
}
