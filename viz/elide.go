package viz

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
