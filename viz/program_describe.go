package viz

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp/program"
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
			return fmt.Sprintf("step %d: rank %d holds %s %v as %s%s", i+1, f.Rank, st.Name, sh.Shape, s.sbps[i], part), nil
		}
	}
	return "", fmt.Errorf("viz: program: rank %d holds nothing at step %d", f.Rank, i+1)
}

// stepWords says what step i does, in one line.
func (s *programScene) stepWords(i int) string {
	st := s.plan.Steps[i]
	head := fmt.Sprintf("step %d", i+1)
	if st.Pass == program.Backward {
		head += " (backward)"
	}
	switch st.Kind {
	case program.StepInput:
		return fmt.Sprintf("%s: input %s %v as %s", head, st.Name, st.Shape, st.Sbp)
	case program.StepBoxing:
		how := strings.Join(st.Collectives, " + ")
		if how == "" {
			how = "no collective"
		}
		return fmt.Sprintf("%s: box %s from %s to %s: %s, %s", head, st.Tensor, st.From, st.To, how, tensor.FormatBytes(st.SendBytes))
	}
	return fmt.Sprintf("%s: %s = %s under %s", head, st.Name, strings.Join(append([]string{st.Op}, st.Inputs...), " "), st.Signature)
}
