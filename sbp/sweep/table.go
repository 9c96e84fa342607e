package sweep

import (
	"fmt"

	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/tensor"
)

// Table is a sweep as the CLI prints it and the playground shows it:
// a header, a row of cells per device count (a count not planned says
// why in its layout cell), and the notes under it.
type Table struct {
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	Notes  []string   `json:"notes"`
}

// Table spells r's rows: times as cluster.FormatSeconds writes them,
// bytes as tensor.FormatBytes, the peak's share of the device's memory,
// and a gap where exact did not prove a row's plan (Row.ExactGap).
func (r *Result) Table() Table {
	t := Table{Header: []string{"devices", "cluster", "layout", "step time", "compute", "communication", "peak held", "of memory", "tokens/s/device"}}
	gaps := false
	for _, row := range r.Rows {
		if row.Error != "" {
			t.Rows = append(t.Rows, []string{fmt.Sprint(row.Devices), row.Cluster, "not planned: " + row.Error, "", "", "", "", "", ""})
			continue
		}
		fit := fmt.Sprintf("%.0f %%", 100*float64(row.PeakHeldBytes)/row.CapacityBytes)
		if !row.Fits {
			fit += " (does not fit)"
		}
		tokens := ""
		if row.TokensPerSPerDevice > 0 {
			tokens = fmt.Sprintf("%.0f", row.TokensPerSPerDevice)
		}
		took := cluster.FormatSeconds(row.TimeS)
		if row.ExactGap > 0 {
			took += fmt.Sprintf(" (gap %.2g %%)", 100*row.ExactGap)
			gaps = true
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(row.Devices), row.Cluster, row.Scheme, took, cluster.FormatSeconds(row.ComputeTimeS),
			cluster.FormatSeconds(row.CommTimeS), tensor.FormatBytes(row.PeakHeldBytes), fit, tokens})
	}
	t.Notes = []string{fmt.Sprintf("%s on a %s mesh; the step time sums compute and communication (no overlap)", r.Strategy, r.Mesh)}
	if gaps {
		t.Notes = append(t.Notes, "gap: exact's search past its bounds did not prove that row's plan the cheapest; the fastest plan is at most that share faster (the LP bound's)")
	}
	return t
}
