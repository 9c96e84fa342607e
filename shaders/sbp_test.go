package shaders

import (
	"testing"
	"time"

	"github.com/stridelab/stridelab/sbp/sbpcheck"
)

// TestGlobalOps runs the SBP property suite with every simulated device's
// kernels on WebGPU: sharded runs plus boxing equal the single-device
// (CPU) result.
func TestGlobalOps(t *testing.T) {
	d := openOrSkip(t, Options{})
	n := 300
	if testing.Short() {
		n = 60
	}
	start, failed := time.Now(), 0
	be := NewBackend(d)
	for _, c := range sbpcheck.Cases(2, n) {
		if err := c.Run(be); err != nil {
			t.Errorf("%s: %v", c.Name, err)
			if failed++; failed == 10 {
				t.Fatal("stopping after 10 failures")
			}
		}
	}
	t.Logf("%d cases in %v", n, time.Since(start))
}
