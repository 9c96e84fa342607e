package cluster

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
)

// TestPresetsValid: every preset, and sizes of each family, passes
// Validate, writes a file Parse reads back as the same cluster, and is
// a copy (changing it leaves the table alone).
func TestPresetsValid(t *testing.T) {
	if got, want := strings.Join(PresetNames(), ","), "h100-node,two-h100-nodes,tpu-v5e"; !strings.HasPrefix(got, want) {
		t.Fatalf("PresetNames() = %s, want %s first", got, want)
	}
	all := Presets()
	for _, name := range []string{"h100-nodes:1", "h100-nodes:128", "tpu-v5e:16x16", "tpu-v5e:4x8"} {
		c, ok := Preset(name)
		if !ok {
			t.Fatalf("Preset(%q) is not a preset", name)
		}
		all = append(all, c)
	}
	for _, c := range all {
		if err := c.Validate(); err != nil {
			t.Errorf("preset %s: %v", c.Name, err)
		}
		b, err := c.File()
		if err != nil {
			t.Fatalf("preset %s: File: %v", c.Name, err)
		}
		back, err := Parse(c.Name+".json", b)
		if err != nil || !equal(back, c) {
			t.Errorf("preset %s: Parse(File()) = %+v, %v", c.Name, back, err)
		}
		first := func(c Cluster) *Link {
			if len(c.Levels) > 0 {
				return &c.Levels[0].Link
			}
			return &c.Links[0]
		}
		first(c).Beta = 1
		again, _ := Preset(c.Name)
		if first(again).Beta == 1 {
			t.Errorf("preset %s: changing a returned copy changed the table", c.Name)
		}
	}
}

// TestFile: the file form as `stridelab cluster` prints it.
func TestFile(t *testing.T) {
	c, _ := Preset("two-h100-nodes")
	b, err := c.File()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "name": "two-h100-nodes",
  "links": [
    {
      "alpha_s": 1e-05,
      "beta_bytes_per_s": 5e+10
    },
    {
      "alpha_s": 3e-06,
      "beta_bytes_per_s": 4.5e+11
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

// TestJSON: a Cluster inside another value marshals in the file form
// and unmarshals as strictly as Parse.
func TestJSON(t *testing.T) {
	c, _ := Preset("loopback")
	c.Name, c.Device, c.Links = "h100-node", h100, []Link{nvlink}
	b, err := json.Marshal(struct {
		Cluster Cluster `json:"cluster"`
	}{c})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cluster":{"name":"h100-node","links":[{"alpha_s":3e-06,"beta_bytes_per_s":4.5e+11}],"device":{"flops_per_s":6.7e+13,"flops16_per_s":9.89e+14,"mem_bytes_per_s":3.35e+12,"mem_capacity_bytes":8e+10}}}`
	if string(b) != want {
		t.Fatalf("json.Marshal = %s, want %s", b, want)
	}
	var back struct {
		Cluster Cluster `json:"cluster"`
	}
	if err := json.Unmarshal(b, &back); err != nil || !equal(back.Cluster, c) {
		t.Fatalf("json.Unmarshal = %+v, %v", back.Cluster, err)
	}
	err = json.Unmarshal([]byte(`{"cluster": {"name": "x", "links": []}}`), &back)
	if !errors.Is(err, ErrInvalid) || err.Error() != "cluster: links: must list 1 to 8 links, one per mesh dim; got 0" {
		t.Fatalf("json.Unmarshal of a bad cluster = %v", err)
	}
	if _, err := json.Marshal(Cluster{Name: "nan", Links: []Link{{Alpha: math.NaN(), Beta: 1}}, Device: Device{FLOPs: 1, MemBytes: 1, MemCapacity: 1}}); err == nil {
		t.Fatal("json.Marshal of a NaN α succeeded")
	}
}

// TestValidate: a cluster built in Go is checked as a file is.
func TestValidate(t *testing.T) {
	ok := Cluster{Name: "ok", Links: []Link{{Alpha: 1e-6, Beta: 1e9}}, Device: Device{FLOPs: 1, MemBytes: 1, MemCapacity: 1}}
	cases := []struct {
		edit func(*Cluster)
		want string
	}{
		{func(c *Cluster) { c.Name = "" }, "cluster: name: must be a non-empty string"},
		{func(c *Cluster) { c.Links = nil }, "cluster ok: links: must list 1 to 8 links, one per mesh dim; got 0"},
		{func(c *Cluster) { c.Links = make([]Link, 9) }, "cluster ok: links: must list 1 to 8 links, one per mesh dim; got 9"},
		{func(c *Cluster) { c.Links[0].Alpha = math.Inf(1) }, "cluster ok: links[0].alpha_s: must be a positive number of seconds, got +Inf"},
		{func(c *Cluster) { c.Links[0].Beta = math.NaN() }, "cluster ok: links[0].beta_bytes_per_s: must be a positive number of bytes per second, got NaN"},
		{func(c *Cluster) { c.Device.FLOPs = 0 }, "cluster ok: device.flops_per_s: must be a positive number of FLOP per second, got 0"},
		{func(c *Cluster) { c.Device.MemBytes = -5 }, "cluster ok: device.mem_bytes_per_s: must be a positive number of bytes per second, got -5"},
		{func(c *Cluster) { c.Device.MemCapacity = 0 }, "cluster ok: device.mem_capacity_bytes: must be a positive number of bytes, got 0"},
	}
	for _, k := range cases {
		c := ok.Clone()
		k.edit(&c)
		err := c.Validate()
		if err == nil || err.Error() != k.want || !errors.Is(err, ErrInvalid) {
			t.Errorf("Validate = %v, want %q", err, k.want)
		}
	}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestCheck: one link per mesh dim.
func TestCheck(t *testing.T) {
	tpu, _ := Preset("tpu-v5e")
	p1, _ := sbp.ParsePlacement("8")
	p2, _ := sbp.ParsePlacement("[[0,1],[2,3]]")
	if err := tpu.Check(p2); err != nil {
		t.Fatal(err)
	}
	err := tpu.Check(p1)
	want := "cluster tpu-v5e: links: 2 links for cpu:[0, 1, 2, 3, 4, 5, 6, 7], a 1-D mesh; give one link per mesh dim"
	if err == nil || err.Error() != want || !errors.Is(err, ErrMesh) {
		t.Fatalf("Check = %v, want %q", err, want)
	}
}

// TestResolve: a preset by name, else a file; neither is one line that
// lists the presets.
func TestResolve(t *testing.T) {
	files := map[string]string{"mine.json": file(`"mine"`, `[`+okLink+`]`, okDev), "bad.json": `{}`}
	read := func(path string) ([]byte, error) {
		if path == "dir" {
			return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
		}
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	if c, err := Resolve("tpu-v5e", read); err != nil || c.Name != "tpu-v5e" {
		t.Fatalf("Resolve(tpu-v5e) = %+v, %v", c, err)
	}
	if c, err := Resolve("mine.json", read); err != nil || c.Name != "mine" {
		t.Fatalf("Resolve(mine.json) = %+v, %v", c, err)
	}
	names := listWords(append(PresetNames(), FamilyUsages()...))
	cases := []struct {
		arg  string
		read func(string) ([]byte, error)
		want string
		kind error
	}{
		{"h200", read, "cluster h200: no preset of that name and no such file; the presets are " + names, ErrNotFound},
		{"h200", nil, "cluster h200: no preset of that name; the presets are " + names, ErrNotFound},
		{"", read, "cluster: no cluster named; give a preset or a file (the presets are " + names + ")", ErrNotFound},
		{"dir", read, "cluster dir: no preset of that name, and the file cannot be read: is a directory", ErrNotFound},
		{"bad.json", read, "cluster bad.json: name: missing; give the cluster's name, e.g. \"name\": \"my-cluster\"", ErrInvalid},
	}
	for _, k := range cases {
		_, err := Resolve(k.arg, k.read)
		if err == nil || err.Error() != k.want || !errors.Is(err, k.kind) {
			t.Errorf("Resolve(%q) = %v, want %q", k.arg, err, k.want)
		}
	}
}

// TestLoopbackIsTheCalibration: the loopback preset is the file
// `stridelab calibrate --engine torch --runs 9` wrote on this project's
// machine (testdata/loopback.json, docs/performance.md), number for
// number.
func TestLoopbackIsTheCalibration(t *testing.T) {
	raw, err := os.ReadFile("testdata/loopback.json")
	if err != nil {
		t.Fatal(err)
	}
	file, err := Parse("testdata/loopback.json", raw)
	if err != nil {
		t.Fatal(err)
	}
	preset, _ := Preset("loopback")
	if !equal(file, preset) {
		t.Fatalf("the loopback preset %+v is not the calibration %+v", preset, file)
	}
}
