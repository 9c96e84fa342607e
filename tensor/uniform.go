package tensor

import (
	_ "embed"
	"hash/fnv"
)

// UniformMultiplier is Knuth's multiplicative-hash constant, ⌊2^32/φ⌋
// (The Art of Computer Programming, vol. 3, 6.4): stepping by it modulo
// 2^32 spreads consecutive indices over the whole range (a Weyl sequence).
const UniformMultiplier = 2654435761

// Uniform returns the float32 tensor of shape that a program input
// written `from uniform` holds: values spread over [−1, 1), the same in
// every engine, with no file (1 itself where the rounding to float32
// reaches it: the 64 hashes h ≥ 2^32 − 64). The value at flat index i (row-major over
// shape) of the input named name is
//
//	h = (i · 2654435761 + fnv1a32(name)) mod 2^32
//	v = float32(h / 2^32 · 2 − 1)
//
// where fnv1a32 is FNV-1a, 32-bit, of the name's UTF-8 bytes (so two
// inputs differ) and v is computed in float64 and rounded once to
// float32. UniformPython is the same function for emitted files. Like
// every result it is checked against the limit first (CheckResult).
func Uniform(name string, shape Shape) (Tensor, error) {
	t, err := newContiguous(Float32, shape, false, func() string { return "uniform " + shape.String() })
	if err != nil {
		return Tensor{}, err
	}
	d := t.data.([]float32)
	seed := uniformSeed(name)
	for i := range d {
		d[i] = uniformAt(seed, i)
	}
	return t, nil
}

// uniformSeed is fnv1a32(name), the offset of name's Weyl sequence.
func uniformSeed(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

// uniformAt is Uniform's value at flat index i for the seed
// fnv1a32(name): uint32 arithmetic wraps, which is the mod 2^32.
func uniformAt(seed uint32, i int) float32 {
	h := uint32(uint64(i))*UniformMultiplier + seed
	return float32(float64(h)/(1<<32)*2 - 1)
}

// UniformPython is Uniform in NumPy, a function `uniform(name, shape)`
// returning a float32 array, for the Python files stridelab emits; a
// test runs it beside Uniform and compares the bits.
//
//go:embed uniform.py
var UniformPython string
