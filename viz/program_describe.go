package viz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// describe says what f means, from the plan: a step, what it does (an
// input laid out, an op under its signature, a boxing with its
// collectives and the bytes it sends); a device, the shard it holds of
// the tensor of the step it is under (f.Offset: the column of its row;
// the first step for a bare "rank N").
func (s *programScene) describe(step int, f Focus) (string, error) {
	if f.Kind == FocusStep {
		return s.stepWords(f.Offset), nil
	}
	i := f.Offset
	if i < 0 || i >= len(s.plan.Steps) {
		return "", fmt.Errorf("viz: program: rank %d under step %d: the plan has steps 1 to %d", f.Rank, i+1, len(s.plan.Steps))
	}
	st := s.plan.Steps[i]
	for _, sh := range s.shards[i] {
		if sh.Rank == f.Rank {
			part := ""
			if sh.Partial {
				part = ", partial"
			}
			words := fmt.Sprintf("step %d: rank %d holds %s %v as %s%s", i+1, f.Rank, st.Name, sh.Shape, s.sbps[i], part)
			if s.memory {
				words += "; " + s.rankHeldWords(i, sh.Position)
			}
			return words, nil
		}
	}
	return "", fmt.Errorf("viz: program: rank %d holds nothing at step %d", f.Rank, i+1)
}

// stepWords says what step i does, in one line: what stepLine says,
// then on a cluster its time (timeLines) and with the memory lines what
// the devices hold (heldWords).
func (s *programScene) stepWords(i int) string {
	words := s.stepLine(i)
	if s.timed {
		if t := s.timeLines(s.plan.Steps[i]); len(t) > 0 {
			words += "; " + strings.Join(t, "; ")
		}
	}
	if s.memory {
		words += "; " + s.heldWords(i)
	}
	return words
}

// stepLine says what step i does, without its time or memory.
func (s *programScene) stepLine(i int) string {
	st := s.plan.Steps[i]
	head := fmt.Sprintf("step %d", i+1)
	if st.Pass == graph.Backward {
		head += " (backward)"
	}
	switch st.Kind {
	case planner.StepInput:
		return fmt.Sprintf("%s: input %s %v as %s", head, st.Name, st.Shape, st.Sbp)
	case planner.StepBoxing:
		how := strings.Join(st.Collectives, " + ")
		if how == "" {
			how = "no collective"
		}
		return fmt.Sprintf("%s: box %s from %s to %s: %s, %s", head, st.Tensor, st.From, st.To, how, tensor.FormatBytes(st.SendBytes))
	}
	return fmt.Sprintf("%s: %s = %s under %s", head, st.Name, strings.Join(append([]string{st.Op}, st.Inputs...), " "), st.Signature)
}

// timeLines say what step st costs on the plan's cluster, a clause a
// line (none off a cluster, or for an input): for a boxing, each of its
// collectives with the mesh dim whose link it crosses, the devices in
// each group along it, the link's α and β and the time, then the
// boxing's time where it has several; for an op, its FLOPs and bytes on
// the slowest device, the side of the roofline it is on and its time.
// The panel shows them a line each; a hover joins them (stepWords).
func (s *programScene) timeLines(st planner.Step) []string {
	if !s.timed {
		return nil
	}
	switch st.Kind {
	case planner.StepBoxing:
		var out []string
		for _, t := range st.BoxingTime.Steps {
			if terms, err := cluster.RingTerms(t.Collective, t.Devices); err == nil && terms == (cluster.Terms{}) {
				continue // a local step: nothing crosses a link
			}
			out = append(out, fmt.Sprintf("%s across mesh dim %d (%d devices; α %s, β %s): %s",
				t.Collective, t.MeshDim, t.Devices, cluster.FormatSeconds(t.Alpha), cluster.FormatRate(t.Beta), cluster.FormatSeconds(t.TimeS)))
		}
		switch {
		case len(out) == 0:
			return []string{"local: no link crossed, no time"}
		case len(out) > 1:
			out = append(out, cluster.FormatSeconds(st.TimeS)+" in all")
		}
		return out
	case planner.StepOp:
		return []string{fmt.Sprintf("%s and %s on the slowest device, %s-bound: %s",
			cluster.FormatFLOPs(st.FLOPs), tensor.FormatBytes(int64(st.MemBytes)), st.Bound, cluster.FormatSeconds(st.TimeS))}
	}
	return nil
}

// heldWords says what the devices hold while step i runs: one figure
// when they hold alike, else the least and the most.
func (s *programScene) heldWords(i int) string {
	held := s.plan.Steps[i].HeldBytes
	least, most := slices.Min(held), slices.Max(held)
	if least == most {
		return "each device holds " + tensor.FormatBytes(most)
	}
	return fmt.Sprintf("the devices hold %s to %s", tensor.FormatBytes(least), tensor.FormatBytes(most))
}

// rankHeldWords says what the device at position pos holds while step i
// runs, and its peak.
func (s *programScene) rankHeldWords(i, pos int) string {
	peak, at := int64(-1), 0
	for k, st := range s.plan.Steps {
		if st.HeldBytes[pos] > peak {
			peak, at = st.HeldBytes[pos], k
		}
	}
	return fmt.Sprintf("it holds %s in all (its peak: %s at step %d)", tensor.FormatBytes(s.plan.Steps[i].HeldBytes[pos]), tensor.FormatBytes(peak), at+1)
}
