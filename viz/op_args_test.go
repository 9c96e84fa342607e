package viz

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
)

// TestParseOp: the words of single ops, as the command line and the plan
// scene spell them; a missing argument or a bad one is an error naming
// its flag.
func TestParseOp(t *testing.T) {
	for _, c := range []struct {
		name string
		a    OpArgs
		want string // the op's String, or the error's text
	}{
		{"expand", OpArgs{Size: "2,-1,3"}, "expand to [2 -1 3]"},
		{"expand", OpArgs{}, "--op expand needs --size"},
		{"repeat", OpArgs{Times: "2,1"}, "repeat by [2 1]"},
		{"repeat", OpArgs{}, "--op repeat needs --times"},
		{"reduce", OpArgs{To: "1,3"}, "reduce sum to [1 3]"},
		{"reduce", OpArgs{To: "1,3", Reduce: "max"}, "reduce max to [1 3]"},
		{"reduce", OpArgs{}, "--op reduce needs --to"},
		{"reshape", OpArgs{To: "8,4,-1"}, "reshape to [8 4 -1]"},
		{"reshape", OpArgs{}, "--op reshape needs --to"},
		{"reshape", OpArgs{To: "8,x"}, "--to"},
		{"permute", OpArgs{Perm: "0,2,1"}, "permute by [0 2 1]"},
		{"permute", OpArgs{}, "--op permute needs --perm"},
		{"transpose", OpArgs{}, "transpose"},
		{"matmul", OpArgs{}, "matmul"},
		{"eq", OpArgs{}, "eq"},
		{"rsqrt", OpArgs{}, "rsqrt"},
		{"", OpArgs{}, "--op is required"},
		{"view", OpArgs{}, "transpose, permute and reshape"},
	} {
		op, err := ParseOp(c.name, c.a)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = op.String()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("ParseOp(%q, %+v) = %q, want it to contain %q", c.name, c.a, got, c.want)
		}
	}
}

// TestParseOpSoftmax: --dim names softmax's dim, the last when empty;
// it is one whole number.
func TestParseOpSoftmax(t *testing.T) {
	for dim, want := range map[string]sbp.Op{"": sbp.Softmax(-1), "0": sbp.Softmax(0), "-2": sbp.Softmax(-2)} {
		got, err := ParseOp("softmax", OpArgs{Dim: dim})
		if err != nil || got != want {
			t.Errorf("softmax --dim %q: %v, %v; want %v", dim, got, err, want)
		}
	}
	for _, dim := range []string{"x", "1,2"} {
		if _, err := ParseOp("softmax", OpArgs{Dim: dim}); err == nil {
			t.Errorf("softmax --dim %q: no error", dim)
		}
	}
}

// FuzzParseOp: any words give an op or an error, never a panic, and an
// op has an arity of 1 or 2.
func FuzzParseOp(f *testing.F) {
	for _, s := range []string{"expand 2,-1,3", "repeat 2,1", "reduce 1,3", "reshape 8,-1", "permute 1,0", "softmax -1", "add ", "conv x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, arg, _ := strings.Cut(s, " ")
		op, err := ParseOp(name, OpArgs{Size: arg, Times: arg, To: arg, Perm: arg, Dim: arg})
		if err == nil && op.Arity() != 1 && op.Arity() != 2 {
			t.Errorf("ParseOp(%q, %q): %v has arity %d", name, arg, op, op.Arity())
		}
	})
}
