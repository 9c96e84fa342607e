package shaders

import (
	"slices"
	"testing"
)

func TestUniformLoads(t *testing.T) {
	e := elementwise{ops: []operand{{data: make([]byte, uniformBytes)}, {data: make([]byte, uniformBytes+16)}}}
	for _, c := range []struct {
		in, want []load
		limit    uint64
	}{
		{[]load{loadVec4, loadVec4}, []load{loadUniform, loadVec4}, 128 << 20}, // b is past a uniform binding
		{[]load{loadSplat, loadScalar}, []load{loadSplat, loadScalar}, 128 << 20},
		{[]load{loadVec4, loadVec4}, []load{loadVec4, loadVec4}, 4096}, // a is past one storage binding: chunks window it
	} {
		got := slices.Clone(c.in)
		e.uniformLoads(got, c.limit)
		if !slices.Equal(got, c.want) {
			t.Errorf("loads %v under a %d-byte binding limit: %v, want %v", c.in, c.limit, got, c.want)
		}
	}
}
