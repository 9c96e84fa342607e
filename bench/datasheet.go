package bench

import (
	"fmt"
	"strings"
)

// Datasheet is a GPU's memory bandwidth as its maker's datasheet states
// it: the ceiling a kernel's GB/s (bytes read + written) is measured
// against beside the device's own copy kernel.
type Datasheet struct {
	Match  string  // a word of the adapter's name ("H200")
	GBps   float64 // the datasheet's memory bandwidth, GB/s
	Source string  // where the number is stated
}

// datasheets are the GPUs the bench knows, the more specific name first
// (an "H100 PCIe" is matched before an "H100"). docs/performance.md
// ("Ready for a GPU") says how each number was read.
var datasheets = []Datasheet{
	{"H200", 4800, "NVIDIA H200 Tensor Core GPU datasheet: 4.8 TB/s HBM3e (SXM and NVL)"},
	{"H100 PCIe", 2000, "NVIDIA H100 Tensor Core GPU datasheet: 2 TB/s HBM2e (H100 PCIe)"},
	{"H100 NVL", 3900, "NVIDIA H100 Tensor Core GPU datasheet: 3.9 TB/s HBM3 (H100 NVL)"},
	{"H100", 3350, "NVIDIA H100 Tensor Core GPU datasheet: 3.35 TB/s HBM3 (H100 SXM)"},
}

// DatasheetFor returns the datasheet of the GPU an adapter name names:
// override (GB/s, from --datasheet-gbps) when positive, else the first of
// the known GPUs whose Match the name holds.
func DatasheetFor(adapter string, override float64) (Datasheet, bool) {
	if override > 0 {
		return Datasheet{Match: adapter, GBps: override, Source: fmt.Sprintf("given: %g GB/s", override)}, true
	}
	for _, d := range datasheets {
		if strings.Contains(adapter, d.Match) {
			return d, true
		}
	}
	return Datasheet{}, false
}
