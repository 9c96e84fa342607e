package minsum

// Solve minimizes the sum of fs over the variables' values by
// eliminating the variables in order (every variable some factor holds
// must be in it; Order gives one): eliminating v joins the factors that
// hold v into one table over their other variables, the minimum over
// v's values, and keeps the argmin; back-substitution in the reverse
// order reads every variable's value off the argmins. It returns the
// value of each variable (0 for one no factor holds) and the minimum,
// Infinite where every assignment is. The factors' tables must be
// filled; fs is consumed.
func Solve(fs []*Factor, dom []int, order []int, poll *Poller) (value []int, total int64, err error) {
	type step struct {
		v      int
		f      *Factor // the new factor's vars and classes
		rep    []int   // v's class → its first candidate
		argmin []int32
	}
	var steps []step
	for _, v := range order {
		join, rest := Holding(fs, v)
		if len(join) == 0 { // no factor holds v: it keeps value 0
			continue
		}
		nf, rep, argmin, err := Eliminate(v, join, dom, poll)
		if err != nil {
			return nil, 0, err
		}
		steps = append(steps, step{v: v, f: nf, rep: rep, argmin: argmin})
		if len(nf.Vars) == 0 {
			total = Add(total, nf.Tab[0])
			fs = rest
		} else {
			fs = append(rest, nf)
		}
	}
	for _, f := range fs {
		if len(f.Vars) == 0 { // a factor over no variable is a constant
			total = Add(total, f.Tab[0])
		}
	}
	value = make([]int, len(dom))
	for s := len(steps) - 1; s >= 0; s-- {
		st := steps[s]
		idx := 0
		for j, u := range st.f.Vars {
			idx = idx*st.f.N[j] + int(st.f.Cls[j][value[u]])
		}
		value[st.v] = st.rep[st.argmin[idx]]
	}
	return value, total, nil
}
