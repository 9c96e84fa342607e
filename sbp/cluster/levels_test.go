package cluster

import (
	"errors"
	"testing"

	"github.com/stridelab/stridelab/sbp"
)

// TestOnGivesEachMeshDimItsSlowestLevel: a cluster of levels gives each
// mesh dim the link of the outermost level its groups cross, whatever
// the mesh, and refuses a device it does not have.
func TestOnGivesEachMeshDimItsSlowestLevel(t *testing.T) {
	four, _ := Preset("h100-nodes:4")
	node, _ := Preset("h100-node")
	slice, _ := Preset("tpu-v5e:16x4")
	cases := []struct {
		c         Cluster
		placement string
		want      []Link
	}{
		{node, "8", []Link{nvlink}},
		{node, "[[0,1,2,3],[4,5,6,7]]", []Link{nvlink, nvlink}}, // the 2×4 mesh of one node
		{node, "1", []Link{nvlink}},
		{four, "8", []Link{nvlink}},
		{four, "16", []Link{ndr}}, // a 1-D ring across two nodes runs at the slower link
		{four, "[[0,1,2,3,4,5,6,7],[8,9,10,11,12,13,14,15]]", []Link{ndr, nvlink}},
		{four, "[[0,8,16,24],[1,9,17,25]]", []Link{nvlink, ndr}}, // mesh dim 1 strides across nodes
		{four, "[[0,1],[2,3]]", []Link{nvlink, nvlink}},
		{four, "[[0,1],[8,9],[16,17],[24,25]]", []Link{ndr, nvlink}},
		{four, "32", []Link{ndr}},
		{slice, "4", []Link{iciNoWrap}},                                // part of a row of 4: no wraparound
		{slice, "[[0,1,2,3],[4,5,6,7]]", []Link{iciNoWrap, iciNoWrap}}, // dim 0 crosses rows: the 16-long axis
		{slice, "64", []Link{ici}},
	}
	for _, k := range cases {
		p, err := sbp.ParsePlacement(k.placement)
		if err != nil {
			t.Fatal(err)
		}
		got, err := k.c.On(p)
		if err != nil {
			t.Errorf("%s.On(%s): %v", k.c.Name, k.placement, err)
			continue
		}
		if len(got.Links) != len(k.want) || len(got.Levels) != 0 || got.Device != k.c.Device || got.Name != k.c.Name {
			t.Errorf("%s.On(%s) = %+v, want links %+v", k.c.Name, k.placement, got, k.want)
			continue
		}
		for m := range k.want {
			if got.Links[m] != k.want[m] {
				t.Errorf("%s.On(%s): mesh dim %d has β %g, want %g", k.c.Name, k.placement, m, got.Links[m].Beta, k.want[m].Beta)
			}
		}
	}
	p, _ := sbp.ParsePlacement("33")
	_, err := four.On(p)
	if err == nil || !errors.Is(err, ErrMesh) || err.Error() != "cluster h100-nodes:4: levels: it has 32 devices (8 × 4), and device 32 of the placement's 33 is past them" {
		t.Fatalf("h100-nodes:4 on 33 devices: %v", err)
	}
}

// TestFamilies: a family's sizes, its bounds, and its bad sizes refused
// in one line.
func TestFamilies(t *testing.T) {
	c, ok := Preset("h100-nodes:128")
	if !ok || c.Size() != 1024 || c.Levels[1].Link != ndr || c.Device != h100 {
		t.Fatalf("h100-nodes:128 = %+v, %v", c, ok)
	}
	s, ok := Preset("tpu-v5e:16x16")
	if !ok || s.Size() != 256 || s.Levels[0].Link != ici || s.Levels[1].Link != ici {
		t.Fatalf("tpu-v5e:16x16 = %+v", s)
	}
	for arg, want := range map[string]string{
		"h100-nodes:0":    `cluster h100-nodes:0: the number of nodes must be a whole number from 1 to 1024, got "0"`,
		"h100-nodes:x":    `cluster h100-nodes:x: the number of nodes must be a whole number from 1 to 1024, got "x"`,
		"h100-nodes:1025": `cluster h100-nodes:1025: the number of nodes must be a whole number from 1 to 1024, got "1025"`,
		"tpu-v5e:17x1":    `cluster tpu-v5e:17x1: the slice must be RxC, rows and columns each from 1 to 16 (4x4, 16x16), got "17x1"`,
		"tpu-v5e:4":       `cluster tpu-v5e:4: the slice must be RxC, rows and columns each from 1 to 16 (4x4, 16x16), got "4"`,
	} {
		if _, ok := Preset(arg); ok {
			t.Errorf("Preset(%q) is a preset", arg)
		}
		_, err := Resolve(arg, nil)
		if err == nil || err.Error() != want || !errors.Is(err, ErrNotFound) {
			t.Errorf("Resolve(%q) = %v, want %q", arg, err, want)
		}
	}
}

// TestLevelsFile: a cluster of levels in the file form.
func TestLevelsFile(t *testing.T) {
	c, _ := Preset("h100-nodes:2")
	b, err := c.File()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "name": "h100-nodes:2",
  "levels": [
    {
      "devices": 8,
      "alpha_s": 3e-06,
      "beta_bytes_per_s": 4.5e+11
    },
    {
      "devices": 2,
      "alpha_s": 1e-05,
      "beta_bytes_per_s": 5e+10
    }
  ],
  "device": {
    "flops_per_s": 6.7e+13,
    "flops16_per_s": 9.89e+14,
    "mem_bytes_per_s": 3.35e+12,
    "mem_capacity_bytes": 8e+10
  }
}
`
	if string(b) != want {
		t.Fatalf("File() =\n%s\nwant\n%s", b, want)
	}
}

// TestForDevices: the least member of a family that holds n devices.
func TestForDevices(t *testing.T) {
	for _, c := range []struct {
		family string
		n      int
		want   string
	}{{"h100-nodes", 1, "h100-nodes:1"}, {"h100-nodes", 8, "h100-nodes:1"}, {"h100-nodes", 20, "h100-nodes:3"}, {"h100-nodes", 1024, "h100-nodes:128"},
		{"tpu-v5e", 4, "tpu-v5e:1x4"}, {"tpu-v5e", 32, "tpu-v5e:2x16"}, {"tpu-v5e", 256, "tpu-v5e:16x16"}} {
		got, err := ForDevices(c.family, c.n)
		if err != nil || got.Name != c.want || got.Size() < c.n {
			t.Errorf("ForDevices(%s, %d) = %s (%d devices), %v; want %s", c.family, c.n, got.Name, got.Size(), err, c.want)
		}
	}
	for _, c := range []struct {
		family string
		n      int
		want   string
	}{{"tpu-v5e", 512, "cluster tpu-v5e: a tpu-v5e slice holds at most 256 chips (16×16), not 512"},
		{"h100-node", 8, "cluster h100-node: not a family of presets; the families are h100-nodes:N (N nodes of 8 H100s) and tpu-v5e:RxC (an R×C TPU v5e slice)"},
		{"h100-nodes", 0, "cluster h100-nodes: a cluster of 0 devices: give 1 or more"}} {
		if _, err := ForDevices(c.family, c.n); err == nil || err.Error() != c.want {
			t.Errorf("ForDevices(%s, %d) = %v, want %q", c.family, c.n, err, c.want)
		}
	}
}
