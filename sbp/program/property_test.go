package program

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// randomProgram writes a program of 1 to 6 ops (every op kind, box and
// grad) on a random mesh: 1-D of 1 to 5 devices, or 2-D.
func randomProgram(r *rand.Rand) string {
	return randomProgramOn(r, []string{"1", "2", "3", "4", "5", "[[0,1],[2,3]]", "[[0,1,2],[3,4,5]]"}, 6)
}

// randomProgramOn writes a program of 1 to maxOps ops on one of meshes.
func randomProgramOn(r *rand.Rand, meshes []string, maxOps int) string {
	mesh := meshes[r.IntN(len(meshes))]
	p, _ := sbp.ParsePlacement(mesh)
	var b strings.Builder
	fmt.Fprintf(&b, "placement %s\n", mesh)
	type tensorInfo struct {
		name  string
		shape tensor.Shape
	}
	var names []tensorInfo
	inputs := 0
	randomSbp := func(shape tensor.Shape, partialOK bool) string {
		parts := make([]string, p.MeshRank())
		for m := range parts {
			switch k := r.IntN(6); {
			case k < 3 && len(shape) > 0:
				parts[m] = fmt.Sprintf("S(%d)", r.IntN(len(shape)))
			case k == 5 && partialOK:
				parts[m] = "P"
			default:
				parts[m] = "B"
			}
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	input := func(shape tensor.Shape) string {
		inputs++
		name := fmt.Sprintf("in%d", inputs)
		fmt.Fprintf(&b, "%s = input %s %s\n", name, ints(shape), randomSbp(shape, true))
		names = append(names, tensorInfo{name, shape})
		return name
	}
	randomShape := func() tensor.Shape {
		s := make(tensor.Shape, 1+r.IntN(3))
		for d := range s {
			s[d] = 1 + r.IntN(5)
		}
		return s
	}
	input(randomShape())
	ops := 1 + r.IntN(maxOps)
	for k := 0; k < ops; k++ {
		x := names[r.IntN(len(names))]
		name := fmt.Sprintf("v%d", k)
		var shape tensor.Shape
		switch r.IntN(8) {
		case 0: // matmul: x as a matrix, or a fresh one
			a := x
			if len(a.shape) != 2 {
				a = tensorInfo{input(tensor.Shape{1 + r.IntN(5), 1 + r.IntN(5)}), nil}
				a.shape = names[len(names)-1].shape
			}
			w := input(tensor.Shape{a.shape[1], 1 + r.IntN(5)})
			fmt.Fprintf(&b, "%s = matmul %s %s\n", name, a.name, w)
			shape = tensor.Shape{a.shape[0], names[len(names)-1].shape[1]}
		case 1, 2: // a binary op against a broadcastable partner
			other := slices.Clone(x.shape)
			for d := range other {
				if r.IntN(3) == 0 {
					other[d] = 1
				}
			}
			if len(other) > 1 && r.IntN(3) == 0 {
				other = other[1:]
			}
			y := input(other)
			op := []string{"add", "sub", "mul", "div", "max", "min"}[r.IntN(6)]
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "%s = %s %s %s\n", name, op, x.name, y)
			} else {
				fmt.Fprintf(&b, "%s = %s %s %s\n", name, op, y, x.name)
			}
			shape, _ = tensor.BroadcastShapes(x.shape, other)
		case 3: // expand: a new leading dim, size-1 dims stretched
			size := []int{1 + r.IntN(3)}
			shape = tensor.Shape{size[0]}
			for _, n := range x.shape {
				if n == 1 {
					m := 1 + r.IntN(4)
					size, shape = append(size, m), append(shape, m)
				} else {
					size, shape = append(size, -1), append(shape, n)
				}
			}
			fmt.Fprintf(&b, "%s = expand %s %s\n", name, x.name, ints(size))
		case 4: // repeat
			times := make([]int, len(x.shape)+r.IntN(2))
			for d := range times {
				times[d] = 1 + r.IntN(3)
			}
			plan, _ := tensor.PlanRepeat(x.shape, times)
			shape = plan.OutShape
			fmt.Fprintf(&b, "%s = repeat %s %s\n", name, x.name, ints(times))
		case 5, 6: // reduce
			to := slices.Clone(x.shape)
			for d := range to {
				if r.IntN(2) == 0 {
					to[d] = 1
				}
			}
			if len(to) > 1 && r.IntN(3) == 0 {
				to = to[1:]
			}
			fmt.Fprintf(&b, "%s = %s %s %s\n", name, []string{"sum", "max", "min"}[r.IntN(3)], x.name, ints(to))
			shape = to
		case 7:
			fmt.Fprintf(&b, "%s = box %s %s\n", name, x.name, randomSbp(x.shape, true))
			shape = x.shape
		}
		names = append(names, tensorInfo{name, shape})
	}
	if r.IntN(5) > 0 {
		fmt.Fprintf(&b, "grad v%d\n", ops-1)
	}
	return b.String()
}

func ints(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ",")
}

// smallValues gives every input small whole values (1 to 4), so sums are
// exact in float32 and max and min meet ties.
func smallValues(r *rand.Rand, p *Program) Values {
	v := Values{}
	for _, in := range p.Inputs() {
		n, _ := in.Shape.NumElements()
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(1 + r.IntN(4))
		}
		v[in.Name], _ = tensor.FromSlice(in.Shape, data)
	}
	return v
}

// TestRandomProgramsEqualOneDevice: over 1,000 random programs, every
// named tensor and gradient the simulated devices compute equals the
// single-device run; greedy picks what OneFlow's rule picks (checkEager);
// exact never sends more than greedy; every boxing step sends what
// sbp.PlanBoxing says.
func TestRandomProgramsEqualOneDevice(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 23))
	n := 1000
	if testing.Short() || runtime.GOOS == "js" { // the browser's runtime is slower: the native run does the thousand
		n = 150
	}
	exactRan, grads, boxed := 0, 0, 0
	for k := 0; k < n; k++ {
		src := randomProgram(r)
		p, err := Parse(src)
		if err != nil {
			t.Fatalf("program %d does not parse: %v\n%s", k, err, src)
		}
		plan, err := NewPlan(p, Greedy)
		if err != nil {
			t.Fatalf("program %d: %v\n%s", k, err, src)
		}
		checkEager(t, plan, src)
		checkBoxingBytes(t, plan, src)
		if plan.ExactSendBytes != nil {
			exactRan++
			if *plan.ExactSendBytes > plan.GreedySendBytes {
				t.Errorf("exact sends %d > greedy %d\n%s", *plan.ExactSendBytes, plan.GreedySendBytes, src)
			}
		}
		vals := smallValues(r, p)
		got, err := plan.Run(tensor.CPU{}, vals)
		if err != nil {
			t.Fatalf("program %d runs: %v\n%s", k, err, src)
		}
		want, err := plan.Reference(vals)
		if err != nil {
			t.Fatalf("program %d on one device: %v\n%s", k, err, src)
		}
		if p.Grad != nil {
			grads++
			for _, in := range p.Inputs() {
				if _, ok := got[GradName(in.Name)]; !ok {
					t.Errorf("no gradient of input %s\n%s", in.Name, src)
				}
			}
		}
		for name, w := range want {
			if d := diff(got[name], w); d > 1e-4*(1+maxAbs(w)) {
				t.Errorf("program %d: %s differs from one device by %g\n%s", k, name, d, src)
			}
		}
		for _, s := range plan.Steps {
			if s.Kind == StepBoxing {
				boxed++
			}
		}
		got.Release()
		want.Release()
		vals.Release()
	}
	t.Logf("%d programs, %d with grad, %d boxings, exact planned for %d", n, grads, boxed, exactRan)
	if exactRan < n/2 {
		t.Errorf("exact planned only %d of %d programs", exactRan, n)
	}
}

// checkBoxingBytes: each boxing step sends what sbp.PlanBoxing says.
func checkBoxingBytes(t *testing.T, plan *Plan, src string) {
	t.Helper()
	var total int64
	for _, s := range plan.Steps {
		if s.Kind != StepBoxing {
			continue
		}
		from, _ := sbp.ParseNd(s.From)
		to, _ := sbp.ParseNd(s.To)
		b, err := sbp.PlanBoxing(s.Shape, tensor.Float32, plan.Program.Placement, from, to)
		if err != nil || b.SendBytes != s.SendBytes {
			t.Errorf("boxing %s %v %s→%s sends %d, PlanBoxing says %d (%v)\n%s", s.Tensor, s.Shape, s.From, s.To, s.SendBytes, b.SendBytes, err, src)
		}
		total += s.SendBytes
	}
	if total != plan.TotalSendBytes {
		t.Errorf("the boxing steps send %d, total_send_bytes says %d\n%s", total, plan.TotalSendBytes, src)
	}
}

func diff(a, b tensor.Tensor) float64 {
	if !a.Valid() || !a.Shape().Equal(b.Shape()) {
		return math.Inf(1)
	}
	x, _ := tensor.Buffer[float32](a)
	y, _ := tensor.Buffer[float32](b)
	d := 0.0
	for i := range a.NumElements() {
		e := math.Abs(float64(x[i]) - float64(y[i]))
		if e != e {
			if x[i] == x[i] || y[i] == y[i] {
				return math.Inf(1)
			}
			continue
		}
		d = max(d, e)
	}
	return d
}

func maxAbs(t tensor.Tensor) float64 {
	v, _ := tensor.Buffer[float32](t)
	m := 0.0
	for _, x := range v[:t.NumElements()] {
		m = max(m, math.Abs(float64(x)))
	}
	return m
}

// TestGradientsByFiniteDifferences spot-checks the backward against the
// change of Σ result when one input element moves, on smooth programs.
func TestGradientsByFiniteDifferences(t *testing.T) {
	for _, src := range []string{
		"placement 4\nx = input 8,3 S(0)\nw = input 3,2 B\ny = matmul x w\nz = mul y y\ns = sum z 1,1\ngrad s",
		"placement [[0,1],[2,3]]\na = input 4,1 (S(0), B)\nb = input 1,3 (B, S(1))\nc = div a b\nd = repeat c 2,1\ne = expand d 3,8,3\ngrad e",
		"placement 3\nx = input 6,2 S(0)\nb = input 2 B\ny = sub x b\nt = box y B\nu = add t x\ngrad u",
	} {
		plan := planned(t, src, Greedy)
		p := plan.Program
		r := rand.New(rand.NewPCG(1, 2))
		vals := Values{}
		for _, in := range p.Inputs() {
			n, _ := in.Shape.NumElements()
			data := make([]float32, n)
			for i := range data {
				data[i] = 1 + r.Float32()
			}
			vals[in.Name], _ = tensor.FromSlice(in.Shape, data)
		}
		got, err := plan.Run(tensor.CPU{}, vals)
		if err != nil {
			t.Fatal(err)
		}
		total := func(v Values) float64 {
			out, err := plan.Reference(v)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			s := 0.0
			buf, _ := tensor.Buffer[float32](out[p.Grad.Name])
			for _, x := range buf {
				s += float64(x)
			}
			return s
		}
		for _, in := range p.Inputs() {
			buf, _ := tensor.Buffer[float32](vals[in.Name])
			i := r.IntN(len(buf))
			const h = 1e-2
			old := buf[i]
			buf[i] = old + h
			up := total(vals)
			buf[i] = old - h
			down := total(vals)
			buf[i] = old
			fd := (up - down) / (2 * h)
			g, _ := tensor.Buffer[float32](got[GradName(in.Name)])
			if math.Abs(fd-float64(g[i])) > 2e-2*(1+math.Abs(fd)) {
				t.Errorf("d%s/d%s[%d]: the backward says %g, finite differences %g\n%s", p.Grad.Name, in.Name, i, g[i], fd, src)
			}
		}
	}
}
