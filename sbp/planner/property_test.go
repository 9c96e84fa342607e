package planner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// randomProgram writes a program of 1 to 6 ops (every op kind, batched
// matmul with broadcast batch dims included, box and grad) on a random
// mesh: 1-D of 1 to 5 devices, or 2-D.
func randomProgram(r *rand.Rand) string {
	return randomProgramOn(r, []string{"1", "2", "3", "4", "5", "[[0,1],[2,3]]", "[[0,1,2],[3,4,5]]"}, 6)
}

// randomProgramOn writes a program of 1 to maxOps ops on one of meshes.
func randomProgramOn(r *rand.Rand, meshes []string, maxOps int) string {
	return generate(r, meshes, maxOps, false)
}

// interval is [lo, hi], holding every value of a tensor, for
// inputs of values 1 to 4 (smallValues; 1 to 2 in the finite-difference
// test): what the generator keeps ops in the domains where their values
// and gradients are finite.
type interval struct{ lo, hi float64 }

// size is the largest magnitude in s.
func (s interval) size() float64 { return max(math.Abs(s.lo), math.Abs(s.hi)) }

// through is the interval of f on s for a non-decreasing f (a decreasing one
// swaps the ends).
func (s interval) through(f func(float64) float64) interval {
	a, b := f(s.lo), f(s.hi)
	return interval{min(a, b), max(a, b)}
}

// times is the interval of products of a value of s and one of t.
func (s interval) times(t interval) interval {
	p := []float64{s.lo * t.lo, s.lo * t.hi, s.hi * t.lo, s.hi * t.hi}
	return interval{slices.Min(p), slices.Max(p)}
}

// scaled is the interval of a sum of n values of s (n ≥ 1).
func (s interval) scaled(n float64) interval { return interval{min(s.lo, n*s.lo), max(s.hi, n*s.hi)} }

// generate writes a program of 1 to maxOps ops on one of meshes: every
// op kind the language has (softmax too, along any dim), box and (mostly) grad, with uneven splits
// from sizes 1 to 5. Smooth leaves out max, min and relu, whose
// gradients jump, and always asks for grad: the finite-difference test's
// programs. Each tensor's interval of values keeps the ops where their values and
// gradients are finite: log, sqrt and rsqrt take only tensors ≥ 0.01
// everywhere, exp only ones ≤ 20, a division's divisor never spans 0, and
// an op whose interval would pass 1e12 (1e4 smooth: finite differences in
// float32 lose what they measure past it) is a tanh instead.
func generate(r *rand.Rand, meshes []string, maxOps int, smooth bool) string {
	mesh := meshes[r.IntN(len(meshes))]
	p, _ := sbp.ParsePlacement(mesh)
	var b strings.Builder
	fmt.Fprintf(&b, "placement %s\n", mesh)
	type tensorInfo struct {
		name  string
		shape tensor.Shape
		vals  interval
	}
	limit := 1e12
	if smooth {
		limit = 1e4
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
		names = append(names, tensorInfo{name, shape, interval{1, 4}})
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
		var vr interval
		switch r.IntN(13) {
		case 12: // softmax along a dim counted from either end: values in (0, 1]
			d := r.IntN(len(x.shape))
			if r.IntN(2) == 0 {
				d -= len(x.shape)
			}
			fmt.Fprintf(&b, "%s = softmax %s %d\n", name, x.name, d)
			shape, vr = x.shape, interval{0, 1}
		case 0: // matmul: x as a matrix or a batch of them, or a fresh matrix; w a matrix or a batch that broadcasts against a's
			a := x
			if len(a.shape) < 2 {
				input(tensor.Shape{1 + r.IntN(5), 1 + r.IntN(5)})
				a = names[len(names)-1]
			}
			ra := len(a.shape)
			ws := tensor.Shape{a.shape[ra-1], 1 + r.IntN(5)}
			if r.IntN(2) == 0 { // w's batch: a's dims, some 1 (w broadcasts) or grown from a's 1 (a does), one dropped or one more in front
				wb := slices.Clone(a.shape[:ra-2])
				for d := range wb {
					switch k := r.IntN(4); {
					case k == 0:
						wb[d] = 1
					case k == 1 && wb[d] == 1:
						wb[d] = 2 + r.IntN(2)
					}
				}
				switch k := r.IntN(3); {
				case k == 0 && len(wb) > 0:
					wb = wb[1:]
				case k == 1:
					wb = append(tensor.Shape{1 + r.IntN(3)}, wb...)
				}
				ws = append(wb, ws...)
			}
			w := input(ws)
			fmt.Fprintf(&b, "%s = matmul %s %s\n", name, a.name, w)
			batch, _ := tensor.BroadcastShapes(a.shape[:ra-2], ws[:len(ws)-2])
			shape = append(batch, a.shape[ra-2], ws[len(ws)-1])
			vr = a.vals.times(interval{1, 4}).scaled(float64(a.shape[ra-1]))
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
			input(other)
			ops := []string{"add", "sub", "mul", "div", "max", "min"}
			if smooth {
				ops = ops[:4]
			}
			op := ops[r.IntN(len(ops))]
			a, c := x, names[len(names)-1]
			if r.IntN(2) == 0 {
				a, c = c, a
			}
			if op == "div" && c.vals.lo <= 0 && c.vals.hi >= 0 {
				a, c = c, a // the fresh input (1 to 4) divides
			}
			fmt.Fprintf(&b, "%s = %s %s %s\n", name, op, a.name, c.name)
			shape, _ = tensor.BroadcastShapes(x.shape, other)
			switch op {
			case "add":
				vr = interval{a.vals.lo + c.vals.lo, a.vals.hi + c.vals.hi}
			case "sub":
				vr = interval{a.vals.lo - c.vals.hi, a.vals.hi - c.vals.lo}
			case "mul":
				vr = a.vals.times(c.vals)
			case "div":
				vr = a.vals.times(interval{1 / c.vals.hi, 1 / c.vals.lo})
			case "max":
				vr = interval{max(a.vals.lo, c.vals.lo), max(a.vals.hi, c.vals.hi)}
			case "min":
				vr = interval{min(a.vals.lo, c.vals.lo), min(a.vals.hi, c.vals.hi)}
			}
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
			vr = x.vals
		case 4: // repeat
			times := make([]int, len(x.shape)+r.IntN(2))
			for d := range times {
				times[d] = 1 + r.IntN(3)
			}
			plan, _ := tensor.PlanRepeat(x.shape, times)
			shape = plan.OutShape
			fmt.Fprintf(&b, "%s = repeat %s %s\n", name, x.name, ints(times))
			vr = x.vals
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
			words := []string{"sum", "max", "min", "mean"}
			if smooth {
				words = []string{"sum", "mean"}
			}
			word := words[r.IntN(len(words))]
			fmt.Fprintf(&b, "%s = %s %s %s\n", name, word, x.name, ints(to))
			shape, vr = to, x.vals
			if word == "sum" {
				n, _ := x.shape.NumElements()
				m, _ := to.NumElements()
				vr = x.vals.scaled(float64(n / m))
			}
		case 11: // a view: transpose, permute or reshape (randomView)
			var stmt string
			stmt, shape = randomView(r, x.name, x.shape)
			fmt.Fprintf(&b, "%s = %s\n", name, stmt)
			vr = x.vals
		case 7: // a box, those of odd statements regather (FSDP's: boxed again for the backward; r not drawn, so the programs are the same)
			regather := ""
			if k%2 == 1 {
				regather = " regather"
			}
			fmt.Fprintf(&b, "%s = box %s %s%s\n", name, x.name, randomSbp(x.shape, true), regather)
			shape, vr = x.shape, x.vals
		default: // a unary op, in its domain
			var ok []string
			for _, op := range []string{"exp", "log", "neg", "sqrt", "rsqrt", "tanh", "relu", "scale"} {
				switch {
				case op == "relu" && smooth:
				case op == "exp" && x.vals.hi > 20:
				case (op == "log" || op == "sqrt" || op == "rsqrt") && x.vals.lo < 0.01:
				default:
					ok = append(ok, op)
				}
			}
			op := ok[r.IntN(len(ok))]
			vr = map[string]interval{
				"exp":   x.vals.through(math.Exp),
				"log":   x.vals.through(math.Log),
				"neg":   {-x.vals.hi, -x.vals.lo},
				"sqrt":  x.vals.through(math.Sqrt),
				"rsqrt": x.vals.through(func(v float64) float64 { return 1 / math.Sqrt(v) }),
				"tanh":  x.vals.through(math.Tanh),
				"relu":  {max(x.vals.lo, 0), max(x.vals.hi, 0)},
			}[op]
			if op == "scale" { // by 2 or −½: exact in float32, so ties and sums stay exact
				f := []float64{2, -0.5}[r.IntN(2)]
				vr = interval{min(f*x.vals.lo, f*x.vals.hi), max(f*x.vals.lo, f*x.vals.hi)}
				fmt.Fprintf(&b, "%s = scale %s %g\n", name, x.name, f)
				shape = x.shape
				break
			}
			fmt.Fprintf(&b, "%s = %s %s\n", name, op, x.name)
			shape = x.shape
		}
		if vr.size() > limit { // too large for float32's sums (or finite differences): bounded instead
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			b.Reset()
			b.WriteString(strings.Join(lines[:len(lines)-1], "\n") + "\n")
			fmt.Fprintf(&b, "%s = tanh %s\n", name, x.name)
			shape, vr = x.shape, x.vals.through(math.Tanh)
		}
		names = append(names, tensorInfo{name, shape, vr})
	}
	if smooth || r.IntN(5) > 0 {
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
func smallValues(r *rand.Rand, p *program.Program) Values {
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
		p, err := program.Parse(src)
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
				if _, ok := got[graph.GradName(in.Name)]; !ok {
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
		b, err := sbp.PlanBoxing(s.Shape, tensor.Float32, plan.Program.Placement, s.From, s.To)
		if s.Boxing == nil || !reflect.DeepEqual(*s.Boxing, b) {
			t.Errorf("boxing %s %v %s→%s carries %+v, PlanBoxing plans %+v\n%s", s.Tensor, s.Shape, s.From, s.To, s.Boxing, b, src)
		}
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
// change of Σ result when one input element moves, on smooth programs
// (every op's rule; relu's away from its kink) on 1-D and 2-D meshes with
// uneven splits.
func TestGradientsByFiniteDifferences(t *testing.T) {
	for _, src := range []string{
		"placement 4\nx = input 8,3 S(0)\nw = input 3,2 B\ny = matmul x w\nz = mul y y\ns = sum z 1,1\ngrad s",
		"placement [[0,1],[2,3]]\na = input 4,1 (S(0), B)\nb = input 1,3 (B, S(1))\nc = div a b\nd = repeat c 2,1\ne = expand d 3,8,3\ngrad e",
		"placement 3\nx = input 6,2 S(0)\nb = input 2 B\ny = sub x b\nt = box y B\nu = add t x\ngrad u",
		// the unary ops and mean
		"placement 4\nx = input 7,3 S(0)\nw = input 3,5 B\nh = matmul x w\nt = tanh h\nm = mean h 7,1\nn = neg m\ne = exp n\nk = mul t e\ns = sum k 1,1\ngrad s",
		"placement [[0,1],[2,3]]\na = input 5,3 (S(0), S(1))\nq = sqrt a\nl = log q\nr = rsqrt a\nm = mul l r\nu = mean m 1,3\nt = tanh u\ngrad t",
		"placement [[0,1,2],[3,4,5]]\nx = input 5,4 (S(1), S(0))\nc = input 4 (B, B)\nd = sub x c\nr = relu d\ne = exp r\nm = mean e 5,1\nl = log m\ngrad l",
		"placement 5\nx = input 3,7 S(1)\ny = mean x ()\nz = exp x\nw = mean z 1,7\nv = rsqrt w\nu = sum v ()\nk = mul u y\ngrad k",
		// batched matmul: batch dims split on both, a size-1 and an absent
		// batch dim broadcast (their gradients summed back), a matrix
		// times a batch
		"placement [[0,1],[2,3]]\nq = input 3,5,4 (S(0), S(1))\nk = input 3,4,5 (S(0), B)\ns = matmul q k\nw = input 1,5,2 (B, S(2))\no = matmul s w\nt = tanh o\ngrad t",
		"placement 3\na = input 2,1,3,4 S(0)\nb = input 3,4,2 S(0)\ny = matmul a b\nz = mul y y\ns = sum z 1,1,1,1\ngrad s",
		"placement 5\nx = input 4,3 B\nw = input 7,3,2 S(0)\ny = matmul x w\nt = tanh y\ngrad t",
		// softmax: along a split dim (boxed first), along a kept one, a
		// weighted sum so the gradient is not zero
		"placement 4\nx = input 8,6 S(1)\nw = input 8,6 B\ny = softmax x -1\nz = mul y w\ns = sum z 1,1\ngrad s",
		"placement [[0,1],[2,3]]\nx = input 3,5,4 (S(0), S(2))\nw = input 5,1 (B, B)\ny = softmax x 1\nz = mul y w\nt = tanh z\ngrad t",
		"placement 3\nx = input 5,7 S(0)\ny = softmax x 0\nl = log y\nw = input 5,7 S(1)\nz = mul l w\ns = sum z 1,1\ngrad s",
	} {
		plan := planned(t, src, Greedy)
		checkFiniteDifferences(t, plan, rand.New(rand.NewPCG(1, 2)), src)
	}
}

// TestRandomGradientsByFiniteDifferences spot-checks the backward of 150
// random smooth programs (every op kind but max, min and relu, with their
// values kept where they and their gradients are finite, on 1-D and 2-D
// meshes, uneven splits included) against finite differences.
func TestRandomGradientsByFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 5))
	n := 150
	if testing.Short() || runtime.GOOS == "js" {
		n = 30
	}
	meshes := []string{"1", "2", "3", "4", "5", "[[0,1],[2,3]]", "[[0,1,2],[3,4,5]]"}
	unary := 0
	for range n {
		src := generate(r, meshes, 6, true)
		for _, w := range []string{"exp", "log", "neg", "sqrt", "rsqrt", "tanh", "mean", "softmax", "scale"} {
			if strings.Contains(src, " = "+w+" ") {
				unary++
			}
		}
		plan := planned(t, src, Greedy)
		checkFiniteDifferences(t, plan, r, src)
	}
	t.Logf("%d programs, %d uses of the unary ops, mean, softmax and scale", n, unary)
}

// checkFiniteDifferences gives the inputs of plan's program values from
// 1 to 2, runs the plan on the simulated devices, and for one element of
// each input compares its gradient with (f(x+h) − f(x−h)) / 2h, f the
// single device's Σ result, h = 1e-2; within 2% (and an absolute 2%).
func checkFiniteDifferences(t *testing.T, plan *Plan, r *rand.Rand, src string) {
	t.Helper()
	p := plan.Program
	vals := Values{}
	for _, in := range p.Inputs() {
		n, _ := in.Shape.NumElements()
		data := make([]float32, n)
		for i := range data {
			data[i] = 1 + r.Float32()
		}
		vals[in.Name], _ = tensor.FromSlice(in.Shape, data)
	}
	defer vals.Release()
	got, err := plan.Run(tensor.CPU{}, vals)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	defer got.Release()
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
		g, _ := tensor.Buffer[float32](got[graph.GradName(in.Name)])
		if math.Abs(fd-float64(g[i])) > 2e-2*(1+math.Abs(fd)) {
			t.Errorf("d%s/d%s[%d]: the backward says %g, finite differences %g\n%s", p.Grad.Name, in.Name, i, g[i], fd, src)
		}
	}
}

// TestRandomProgramsDrawBatchedMatmul: the property tests' generator
// draws batched matmuls, broadcast batch dims (one operand's size 1 or
// absent where the other's is larger) among them, so the tests above
// check their values and gradients.
func TestRandomProgramsDrawBatchedMatmul(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 23))
	batched, broadcast := 0, 0
	for range 300 {
		p, err := program.Parse(randomProgram(r))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Stmts {
			if s.Word != "matmul" || len(s.Shape) < 3 {
				continue
			}
			batched++
			a, b := p.Lookup(s.Args[0]).Shape, p.Lookup(s.Args[1]).Shape
			if !a[:len(a)-2].Equal(s.Shape[:len(s.Shape)-2]) || !b[:len(b)-2].Equal(s.Shape[:len(s.Shape)-2]) {
				broadcast++
			}
		}
	}
	t.Logf("300 programs: %d batched matmuls, %d with a broadcast batch dim", batched, broadcast)
	if batched < 20 || broadcast < 10 {
		t.Errorf("300 random programs drew %d batched matmuls, %d broadcasting; want at least 20 and 10", batched, broadcast)
	}
}
