package bench

import (
	"strings"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// Every case runs on the CPU backend and yields the output its name says;
// Bytes counts inputs once and the output once.
func TestCasesRun(t *testing.T) {
	want := []tensor.Shape{{1024, 4, 4096}, {4096, 4096}, {2048, 8192}, {128, 16, 256}, {1024, 1, 4096}, {1, 256, 1}, {1024, 4, 4096}, {4096, 4096}, {4096, 4096}}
	for i, c := range Cases() {
		in, err := c.Inputs()
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Run(tensor.CPU{}, in)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !out.Shape().Equal(want[i]) {
			t.Errorf("%s: output %v, want %v", c.Name, out.Shape(), want[i])
		}
		n := 0
		for _, x := range in {
			n += x.NumElements()
		}
		if got := c.Bytes(); got != 4*int64(n+out.NumElements()) {
			t.Errorf("%s: Bytes = %d, want %d", c.Name, got, 4*(n+out.NumElements()))
		}
	}
	if _, err := (Case{Name: "x", Op: "nope"}).Run(tensor.CPU{}, nil); err == nil {
		t.Error("unknown op ran")
	}
}

// TestSelect: --cases picks the cases by the start of their names, in
// the order asked, and names a word no case starts with.
func TestSelect(t *testing.T) {
	got, err := Select(Cases(), "sum,add")
	if err != nil || len(got) != 3 || got[0].Op != "sum" || got[1].Op != "sum" || got[2].Op != "add" {
		t.Errorf("sum,add: %d cases (%v)", len(got), err)
	}
	if all, _ := Select(Cases(), ""); len(all) != len(Cases()) {
		t.Errorf("no words: %d cases, want all %d", len(all), len(Cases()))
	}
	if _, err := Select(Cases(), "sum,mul"); err == nil || !strings.Contains(err.Error(), `no case starts with "mul"`) {
		t.Errorf("mul: %v", err)
	}
}
