package bench

import "testing"

// TestDatasheetForNamesTheGPU checks the adapter names Vulkan reports
// for NVIDIA's parts find their datasheet's bandwidth, the specific part
// before the family, and that a given bandwidth wins.
func TestDatasheetForNamesTheGPU(t *testing.T) {
	for _, c := range []struct {
		name string
		want float64
	}{
		{"NVIDIA H200", 4800}, {"NVIDIA H100 PCIe", 2000}, {"NVIDIA H100 80GB HBM3", 3350},
		{"NVIDIA H100 NVL", 3900}, {"llvmpipe (LLVM 15.0.6, 256 bits)", 0},
	} {
		d, ok := DatasheetFor(c.name, 0)
		if got := map[bool]float64{true: d.GBps}[ok]; got != c.want {
			t.Errorf("DatasheetFor(%q) = %v GB/s (found %v), want %v", c.name, d.GBps, ok, c.want)
		}
	}
	if d, ok := DatasheetFor("llvmpipe", 42); !ok || d.GBps != 42 {
		t.Errorf("DatasheetFor with 42 GB/s given = %v, %v", d, ok)
	}
}
