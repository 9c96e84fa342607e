package viz

import "slices"

// Elision: a scene never draws, or allocates, per element of a huge view.
// Along an axis of n indices it shows at most budget of them: all when
// they fit, else the first and the last few with a gap between, so the
// cells drawn keep their true indices.

// Gap marks an elided run of indices in an Axis.
const Gap = -1

// Axis lists the indices drawn along one axis, with Gap where a run is
// left out: Visible(10, 5) is [0 1 Gap 8 9].
func Visible(n, budget int) []int {
	if n <= budget {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	head := (budget - 1) / 2
	tail := budget - 1 - head
	out := make([]int, 0, budget)
	for i := 0; i < head; i++ {
		out = append(out, i)
	}
	out = append(out, Gap)
	for i := n - tail; i < n; i++ {
		out = append(out, i)
	}
	return out
}

// visibleKeeping is Visible(n, budget) that also shows every offset in
// keep (with a neighbour on each side when there is room).
func visibleKeeping(n, budget int, keep []int) []int {
	base := Visible(n, budget)
	want := map[int]bool{}
	for _, i := range base {
		if i != Gap {
			want[i] = true
		}
	}
	for _, k := range keep {
		if k >= 0 && k < n {
			want[k] = true
		}
	}
	sorted := make([]int, 0, len(want))
	for i := range want {
		sorted = append(sorted, i)
	}
	slices.Sort(sorted)
	var out []int
	prev := -1
	for _, i := range sorted {
		if i > prev+1 {
			out = append(out, Gap)
		}
		out = append(out, i)
		prev = i
	}
	if prev >= 0 && prev < n-1 {
		out = append(out, Gap)
	}
	return out
}
