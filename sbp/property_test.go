package sbp_test

import (
	"testing"

	"github.com/stridelab/stridelab/sbp/sbpcheck"
	"github.com/stridelab/stridelab/tensor"
)

// TestProperty runs random ops on random global tensors on the CPU
// backend: a sharded run plus boxing must equal the single-device result.
func TestProperty(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	failed := 0
	for _, c := range sbpcheck.Cases(1, n) {
		if err := c.Run(tensor.CPU{}); err != nil {
			t.Errorf("%s: %v", c.Name, err)
			if failed++; failed == 10 {
				t.Fatal("stopping after 10 failures")
			}
		}
	}
}
