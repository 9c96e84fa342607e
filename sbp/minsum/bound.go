package minsum

import (
	"math"
	"slices"
)

// Relaxation is the reparametrized problem: per factor its table (th),
// per variable its own table u over its candidates, and where each
// variable sits in each factor that holds it.
type Relaxation struct {
	Factors []*Factor
	th      [][]float64
	u       [][]float64
	holds   [][]seat
	Work    float64 // the table entries touched so far
}

// seat is variable v in factor f: its classes there, and the table's
// shape around it (outer blocks of n classes of inner entries each).
type seat struct {
	f, n, outer, inner int
	cls                []int32
	first, last        int // the factor's least and greatest variable
}

func NewRelaxation(fs []*Factor, dom []int) *Relaxation {
	r := &Relaxation{Factors: slices.Clone(fs), th: make([][]float64, len(fs)), u: make([][]float64, len(dom)), holds: make([][]seat, len(dom))}
	for fi, f := range fs {
		th := make([]float64, len(f.Tab))
		for e, w := range f.Tab {
			th[e] = math.Inf(1)
			if w < Infinite {
				th[e] = float64(w)
			}
		}
		r.th[fi] = th
	}
	for v := range dom {
		r.u[v] = make([]float64, dom[v])
	}
	r.seat()
	return r
}

// seat works out where each variable sits in each factor.
func (r *Relaxation) seat() {
	for v := range r.holds {
		r.holds[v] = r.holds[v][:0]
	}
	for fi, f := range r.Factors {
		inner := len(f.Tab)
		outer := 1
		for j, v := range f.Vars {
			inner /= f.N[j]
			r.holds[v] = append(r.holds[v], seat{f: fi, n: f.N[j], outer: outer, inner: inner, cls: f.Cls[j], first: f.Vars[0], last: f.Vars[len(f.Vars)-1]})
			outer *= f.N[j]
		}
	}
}

// margin writes into m the min-marginal of the seat's variable in its
// factor: per class, the least entry of the table with the variable in
// that class.
func (r *Relaxation) margin(s seat, m []float64) {
	th := r.th[s.f]
	m = m[:s.n]
	for c := range m {
		m[c] = math.Inf(1)
	}
	if s.inner == 1 { // the factor's last variable: its classes are adjacent
		for e := 0; e < len(th); e += s.n {
			for c, t := range th[e : e+s.n] {
				if t < m[c] {
					m[c] = t
				}
			}
		}
	} else {
		e := 0
		for range s.outer {
			for c := range s.n {
				m[c] = least(m[c], th[e:e+s.inner])
				e += s.inner
			}
		}
	}
	r.Work += float64(len(th))
}

// least is the least of at and ts (< on float64, no NaN to mind:
// quicker than min and slices.Min).
func least(at float64, ts []float64) float64 {
	for _, t := range ts {
		if t < at {
			at = t
		}
	}
	return at
}

// shift adds delta[c] to every entry of the seat's factor with its
// variable in class c (+∞ makes them infinite).
func (r *Relaxation) shift(s seat, delta []float64) {
	th := r.th[s.f]
	delta = delta[:s.n]
	if s.inner == 1 {
		for e := 0; e < len(th); e += s.n {
			row := th[e : e+s.n]
			for c, d := range delta {
				row[c] += d
			}
		}
	} else {
		e := 0
		for range s.outer {
			for _, d := range delta {
				if d != 0 {
					seg := th[e : e+s.inner]
					for i := range seg {
						seg[i] += d
					}
				}
				e += s.inner
			}
		}
	}
	r.Work += float64(len(th))
}

// Scratch holds update's buffers, sized for the largest variable.
type Scratch struct {
	m     [][]float64 // per seat of v: its min-marginal, then its share
	tot   []float64
	delta []float64
	beta  []float64
}

func (r *Relaxation) Scratch(dom []int) *Scratch {
	s := &Scratch{}
	most, seats := 0, 0
	for v := range dom {
		most, seats = max(most, dom[v]), max(seats, len(r.holds[v]))
	}
	for range seats {
		s.m = append(s.m, make([]float64, most))
	}
	s.tot, s.delta, s.beta = make([]float64, most), make([]float64, most), make([]float64, most)
	return s
}

// update is v's update in a pass of sequential reweighted message
// passing (SRMP: Kolmogorov, "A New Look at Reweighted Message
// Passing", PAMI 2015; TRW-S, its pairwise case): every factor's
// min-marginal of v moves into u_v, tot(k) = u_v(k) + Σ_f m_f(class of
// k in f); then each factor that holds a variable after v in the pass's
// direction takes back, per class c of v in it, β_f(c) = min over c's
// candidates of ω·tot, with ω = 1/max(factors after, factors before),
// and u_v(k) = tot(k) − Σ β_f(class of k in f) ≥ (1 − ω·after)·tot(k).
func (r *Relaxation) update(v int, forward bool, sc *Scratch) {
	hs := r.holds[v]
	if len(hs) == 0 {
		return
	}
	u := r.u[v]
	tot := sc.tot[:len(u)]
	copy(tot, u)
	after, before := 0, 0
	for i, s := range hs {
		r.margin(s, sc.m[i])
		for k, c := range s.cls {
			tot[k] += sc.m[i][c]
		}
		if s.later(v, forward) {
			after++
		}
		if s.later(v, !forward) {
			before++
		}
	}
	w := 0.0
	if after > 0 {
		w = 1 / float64(max(after, before))
	}
	copy(u, tot)
	for i, s := range hs {
		m, delta, beta := sc.m[i], sc.delta[:s.n], sc.beta[:s.n]
		push := s.later(v, forward)
		for c := range beta {
			beta[c] = math.Inf(1)
			if !push {
				beta[c] = 0
			}
		}
		if push {
			for k, c := range s.cls {
				beta[c] = min(beta[c], w*tot[k])
			}
		}
		for c := range delta {
			switch {
			case math.IsInf(m[c], 1): // every entry of the class is infinite already
				delta[c] = 0
			case math.IsInf(beta[c], 1): // no candidate of the class is possible
				delta[c] = math.Inf(1)
			default:
				delta[c] = beta[c] - m[c]
			}
		}
		r.shift(s, delta)
		if push {
			for k, c := range s.cls {
				if !math.IsInf(u[k], 1) {
					u[k] -= beta[c]
				}
			}
		}
	}
}

// later reports whether the seat's factor holds a variable after v in
// the pass's direction (a greater one forward, a lesser one back).
func (s seat) later(v int, forward bool) bool {
	if forward {
		return s.last > v
	}
	return s.first < v
}

// Bound is LB: the sum of every factor's and every variable's minimum.
func (r *Relaxation) Bound() float64 {
	lb := 0.0
	for _, th := range r.th {
		lb += least(math.Inf(1), th)
	}
	for _, u := range r.u {
		if len(u) > 0 {
			lb += least(math.Inf(1), u)
		}
	}
	return lb
}

// CandidateBounds writes, per variable and candidate, the bound on
// every plan that takes it (lb the relaxation's bound, the tables as
// they stand): lb less v's factors' and u_v's minima, plus their
// min-marginals for the candidate and u_v's entry.
func (r *Relaxation) CandidateBounds(lb float64, sc *Scratch) [][]float64 {
	out := make([][]float64, len(r.u))
	for v, u := range r.u {
		b := slices.Clone(u)
		rest := lb
		if len(u) > 0 {
			rest -= least(math.Inf(1), u)
		}
		for i, s := range r.holds[v] {
			r.margin(s, sc.m[i])
			rest -= least(math.Inf(1), sc.m[i][:s.n])
			for k, c := range s.cls {
				b[k] += sc.m[i][c]
			}
		}
		for k := range b {
			b[k] += rest
		}
		out[v] = b
	}
	return out
}

// Pass runs one pass of updates over every variable, forward (in index
// order) or back.
func (r *Relaxation) Pass(forward bool, sc *Scratch) {
	n := len(r.u)
	for i := range n {
		v := i
		if !forward {
			v = n - 1 - i
		}
		r.update(v, forward, sc)
	}
}

// Decode picks a candidate for each of the first ops variables in
// order (TRW-S's rounding): the one least in u_v plus each factor's
// min-marginal given the candidates picked before it.
func (r *Relaxation) Decode(ops int, sc *Scratch) []int {
	value := make([]int, len(r.u))
	picked := make([]bool, len(r.u))
	for v := range ops {
		score := sc.tot[:len(r.u[v])]
		copy(score, r.u[v])
		for i, s := range r.holds[v] {
			r.conditional(s, v, value, picked, sc.m[i])
			for k, c := range s.cls {
				score[k] += sc.m[i][c]
			}
		}
		at := 0
		for k, x := range score {
			if x < score[at] {
				at = k
			}
		}
		value[v], picked[v] = at, true
	}
	return value[:ops]
}

// conditional writes into m the min-marginal of v in the seat's factor
// over the entries that agree with the variables picked so far.
func (r *Relaxation) conditional(s seat, v int, value []int, picked []bool, m []float64) {
	f, th := r.Factors[s.f], r.th[s.f]
	m = m[:s.n]
	for c := range m {
		m[c] = math.Inf(1)
	}
	// The entries that agree: base plus any mix of the free vars' strides.
	base, at := 0, 0
	var free, stride, n []int
	st := len(th)
	for j, u := range f.Vars {
		st /= f.N[j]
		switch {
		case u == v:
			at = len(free)
			fallthrough
		case !picked[u]:
			free, stride, n = append(free, j), append(stride, st), append(n, f.N[j])
		default:
			base += int(f.Cls[j][value[u]]) * st
		}
	}
	digit := make([]int, len(free))
	for e := base; ; {
		if t := th[e]; t < m[digit[at]] {
			m[digit[at]] = t
		}
		r.Work++
		j := len(digit) - 1
		for ; j >= 0; j-- {
			e += stride[j]
			if digit[j]++; digit[j] < n[j] {
				break
			}
			e -= stride[j] * n[j]
			digit[j] = 0
		}
		if j < 0 {
			break
		}
	}
}

// Restrict keeps the candidates alive alone (alive[v][k], k an index
// into kept[v], which Restrict narrows in place): each variable's kept
// candidates renumbered in order, each factor's classes that a kept
// candidate is in, in order of first appearance (so that a class's
// first candidate still comes first), its tables (the integer one and
// the reparametrized one) over them, and u_v over the kept candidates.
func (r *Relaxation) Restrict(alive [][]bool, kept [][]int) {
	for v := range kept {
		var k2 []int
		var u []float64
		for k, a := range alive[v] {
			if a {
				k2 = append(k2, kept[v][k])
				u = append(u, r.u[v][k])
			}
		}
		kept[v], r.u[v] = k2, u
	}
	for fi, f := range r.Factors {
		nf := &Factor{Vars: f.Vars, Cls: make([][]int32, len(f.Vars)), N: make([]int, len(f.Vars))}
		used := make([][]int, len(f.Vars)) // new class → old class
		for j, v := range f.Vars {
			to := map[int32]int32{}
			for k, a := range alive[v] {
				if !a {
					continue
				}
				c := f.Cls[j][k]
				n, ok := to[c]
				if !ok {
					n = int32(len(used[j]))
					to[c] = n
					used[j] = append(used[j], int(c))
				}
				nf.Cls[j] = append(nf.Cls[j], n)
			}
			nf.N[j] = len(used[j])
		}
		stride := make([]int, len(f.Vars))
		size, st := 1, 1
		for j := len(f.Vars) - 1; j >= 0; j-- {
			stride[j] = st
			st *= f.N[j]
			size *= nf.N[j]
		}
		same := true // every class still in use, in its order: the tables stand
		for j := range used {
			for c, o := range used[j] {
				same = same && c == o
			}
			same = same && len(used[j]) == f.N[j]
		}
		if same {
			r.Factors[fi] = &Factor{Vars: nf.Vars, Cls: nf.Cls, N: nf.N, Tab: f.Tab}
			continue
		}
		nf.Tab = make([]int64, size)
		th := make([]float64, size)
		asg := make([]int, len(f.Vars))
		for e := range nf.Tab {
			old := 0
			for j, c := range asg {
				old += used[j][c] * stride[j]
			}
			nf.Tab[e], th[e] = f.Tab[old], r.th[fi][old]
			for j := len(asg) - 1; j >= 0; j-- {
				if asg[j]++; asg[j] < nf.N[j] {
					break
				}
				asg[j] = 0
			}
		}
		r.Factors[fi], r.th[fi] = nf, th
	}
	r.seat()
}
