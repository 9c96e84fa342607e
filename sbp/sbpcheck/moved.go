package sbpcheck

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp"
)

// Moves checks what a boxing moved between the simulated devices
// (Global.BoxMoved) against what its plan counts: the same collective
// along the same mesh dim at every step, and every device's bytes sent
// and received, exactly.
func Moves(plan sbp.Boxing, moved []sbp.Moved) error {
	if len(moved) != len(plan.Steps) {
		return fmt.Errorf("the boxing ran %d steps, its plan has %d", len(moved), len(plan.Steps))
	}
	for j, st := range plan.Steps {
		m := moved[j]
		if m.Collective != st.Collective || m.MeshDim != st.MeshDim {
			return fmt.Errorf("step %d ran %s on mesh dim %d, the plan says %s on %d", j, m.Collective, m.MeshDim, st.Collective, st.MeshDim)
		}
		if len(m.SendBytes) != len(st.Ranks) || len(m.RecvBytes) != len(st.Ranks) {
			return fmt.Errorf("step %d (%s) counted %d and %d devices, the plan %d", j, st.Collective, len(m.SendBytes), len(m.RecvBytes), len(st.Ranks))
		}
		for i, r := range st.Ranks {
			if m.SendBytes[i] != r.SendBytes || m.RecvBytes[i] != r.RecvBytes {
				return fmt.Errorf("step %d (%s), device %d: moved %d B out and %d B in, the plan counts %d and %d",
					j, st.Collective, i, m.SendBytes[i], m.RecvBytes[i], r.SendBytes, r.RecvBytes)
			}
		}
	}
	return nil
}
