package cluster

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// issueFile is the cluster file the issue gives as the form.
const issueFile = `{"name": "two-h100-nodes", "links": [{"alpha_s": 1.0e-5, "beta_bytes_per_s": 5.0e10}, {"alpha_s": 3.0e-6, "beta_bytes_per_s": 4.5e11}], "device": {"flops_per_s": 6.7e13, "mem_bytes_per_s": 3.35e12, "mem_capacity_bytes": 8.0e10}}`

func TestParseIssueForm(t *testing.T) {
	c, err := Parse("two.json", []byte(issueFile))
	if err != nil {
		t.Fatal(err)
	}
	want := Cluster{Name: "two-h100-nodes", Links: []Link{{Alpha: 1e-5, Beta: 5e10}, {Alpha: 3e-6, Beta: 4.5e11}}, Device: Device{FLOPs: 6.7e13, MemBytes: 3.35e12, MemCapacity: 8e10}}
	if !equal(c, want) {
		t.Fatalf("Parse(issue's file) = %+v, want %+v", c, want)
	}
	preset, _ := Preset("two-h100-nodes")
	preset.Device.FLOPs16 = 0 // the issue's file predates the 16-bit peak
	if !equal(c, preset) {
		t.Errorf("the issue's file %+v differs from the preset %+v", c, preset)
	}
}

func equal(a, b Cluster) bool {
	return a.Name == b.Name && a.Device == b.Device && slices.Equal(a.Links, b.Links) && slices.Equal(a.Levels, b.Levels)
}

// link and dev spell parts of a file for the table below.
const (
	okLink = `{"alpha_s": 1e-5, "beta_bytes_per_s": 5e10}`
	okDev  = `{"flops_per_s": 6.7e13, "mem_bytes_per_s": 3.35e12, "mem_capacity_bytes": 8e10}`
)

func file(name, links, dev string) string {
	return `{"name": ` + name + `, "links": ` + links + `, "device": ` + dev + `}`
}

// TestParseRefuses: every bad file is one line that names the file and
// the field, and wraps ErrInvalid.
func TestParseRefuses(t *testing.T) {
	cases := []struct {
		src  string
		want string // the whole error line
	}{
		{"", `cluster two.json: empty; a cluster file is a JSON object {"name": …`},
		{"  \n", `cluster two.json: empty;`},
		{`{"name": "x",`, `cluster two.json: not JSON: line 1, column 13: unexpected end of JSON input`},
		{"{\n  \"name\": \"x\"\n  \"links\": []}", `cluster two.json: not JSON: line 3, column 3: invalid character '"' after object key:value pair`},
		{`[1, 2]`, `cluster two.json: must be a JSON object {"name": …`},
		{issueFile + ` {}`, `cluster two.json: not JSON: line 1, column 230: invalid character '{' after top-level value`},
		{`{"name": "x", "links": [` + okLink + `], "device": ` + okDev + `, "nodes": 2}`, `cluster two.json: unknown field "nodes"; a cluster file has name, links, levels and device`},
		{`{"links": [` + okLink + `], "device": ` + okDev + `}`, `cluster two.json: name: missing; give the cluster's name`},
		{`{"name": "x", "links": [` + okLink + `], "levels": [], "device": ` + okDev + `}`, `cluster two.json: levels: a cluster has links (one per mesh dim) or levels (a hierarchy, innermost first), not both`},
		{`{"name": "x", "links": [` + okLink + `], "device": {"flops_per_s": 1, "flops16_per_s": 0, "mem_bytes_per_s": 1, "mem_capacity_bytes": 1}}`, `cluster two.json: device.flops16_per_s: must be a positive number of FLOP per second, got 0`},
		{`{"name": "x", "links": [` + okLink + `], "device": {"flops_per_s": 1, "bf16": 2, "mem_bytes_per_s": 1, "mem_capacity_bytes": 1}}`, `cluster two.json: device: unknown field "bf16"; the device has flops_per_s, mem_bytes_per_s and mem_capacity_bytes, and may have flops16_per_s`},
		{`{"name": "x", "levels": {}, "device": ` + okDev + `}`, `cluster two.json: levels: must be a list of levels, innermost first, got an object`},
		{`{"name": "x", "levels": [], "device": ` + okDev + `}`, `cluster two.json: levels: must list 1 to 8 levels, innermost first; got 0`},
		{`{"name": "x", "levels": [` + okLink + `], "device": ` + okDev + `}`, `cluster two.json: levels[0].devices: missing; give how many blocks`},
		{`{"name": "x", "levels": [{"devices": 0, "alpha_s": 1e-5, "beta_bytes_per_s": 5e10}], "device": ` + okDev + `}`, `cluster two.json: levels[0].devices: must be a whole number from 1, got 0`},
		{`{"name": "x", "levels": [{"devices": 2.5, "alpha_s": 1e-5, "beta_bytes_per_s": 5e10}], "device": ` + okDev + `}`, `cluster two.json: levels[0].devices: must be a whole number from 1, got 2.5`},
		{`{"name": "x", "levels": [{"devices": 8, "alpha_s": 1e-5, "beta_bytes_per_s": 0}], "device": ` + okDev + `}`, `cluster two.json: levels[0].beta_bytes_per_s: must be a positive number of bytes per second, got 0`},
		{`{"name": "x", "levels": [{"devices": 8, "alpha_s": 1e-5, "beta_bytes_per_s": 5e10, "gpus": 8}], "device": ` + okDev + `}`, `cluster two.json: levels[0]: unknown field "gpus"; a level has devices, alpha_s and beta_bytes_per_s, and may have collectives and wrap`},
		{`{"name": "x", "levels": [{"devices": 16, "alpha_s": 1e-6, "beta_bytes_per_s": 9e10, "wrap": "yes"}], "device": ` + okDev + `}`, `cluster two.json: levels[0].wrap: must be true (the level's blocks form a ring with its wraparound) or false, got the string "yes"`},
		{`{"name": "x", "levels": [{"devices": 256, "alpha_s": 1e-5, "beta_bytes_per_s": 5e10}, {"devices": 512, "alpha_s": 1e-5, "beta_bytes_per_s": 5e10}], "device": ` + okDev + `}`, `cluster two.json: levels[1].devices: must be a whole number from 1, the levels' product at most 65536 devices; got 512`},
		{file(`3`, `[`+okLink+`]`, okDev), `cluster two.json: name: must be a string, got 3`},
		{file(`null`, `[`+okLink+`]`, okDev), `cluster two.json: name: must be a string, got null`},
		{file(`"  "`, `[`+okLink+`]`, okDev), `cluster two.json: name: must be a non-empty string`},
		{file(`"a\nb"`, `[`+okLink+`]`, okDev), `cluster two.json: name: "a\nb" has a control character`},
		{`{"name": "x", "device": ` + okDev + `}`, `cluster two.json: links: missing; give one link per mesh dim`},
		{file(`"x"`, `{}`, okDev), `cluster two.json: links: must be a list of links, one per mesh dim, got an object`},
		{file(`"x"`, `[]`, okDev), `cluster two.json: links: must list 1 to 8 links, one per mesh dim; got 0`},
		{file(`"x"`, `[`+strings.Repeat(okLink+`,`, 8)+okLink+`]`, okDev), `cluster two.json: links: must list 1 to 8 links, one per mesh dim; got 9`},
		{file(`"x"`, `[`+okLink+`, 5]`, okDev), `cluster two.json: links[1]: must be a link {"alpha_s": …, "beta_bytes_per_s": …}, got 5`},
		{file(`"x"`, `[`+okLink+`, {"alpha_s": 1e-5, "beta_bytes_per_s": 0}]`, okDev), `cluster two.json: links[1].beta_bytes_per_s: must be a positive number of bytes per second, got 0`},
		{file(`"x"`, `[{"alpha_s": -1e-5, "beta_bytes_per_s": 1}]`, okDev), `cluster two.json: links[0].alpha_s: must be a positive number of seconds, got -1e-5`},
		{file(`"x"`, `[{"alpha_s": 0, "beta_bytes_per_s": 1}]`, okDev), `cluster two.json: links[0].alpha_s: must be a positive number of seconds, got 0`},
		{file(`"x"`, `[{"alpha_s": 1e-5}]`, okDev), `cluster two.json: links[0].beta_bytes_per_s: missing; give the link's bandwidth per direction per device in bytes per second`},
		{file(`"x"`, `[{"alpha_s": 1e-5, "beta_bytes_per_s": "5e10"}]`, okDev), `cluster two.json: links[0].beta_bytes_per_s: must be a positive number of bytes per second, got the string "5e10" (write numbers without quotes)`},
		{file(`"x"`, `[{"alpha_s": 1e-5, "beta_bytes_per_s": null}]`, okDev), `cluster two.json: links[0].beta_bytes_per_s: must be a positive number of bytes per second, got null`},
		{file(`"x"`, `[{"alpha_s": 1e-5, "beta_bytes_per_s": 1e999}]`, okDev), `cluster two.json: links[0].beta_bytes_per_s: must be a positive number of bytes per second, got 1e999, which is out of range`},
		{file(`"x"`, `[{"alpha_s": 1e-5, "beta_bytes_per_sec": 5e10}]`, okDev), `cluster two.json: links[0]: unknown field "beta_bytes_per_sec"; a link has alpha_s and beta_bytes_per_s`},
		{`{"name": "x", "links": [` + okLink + `]}`, `cluster two.json: device: missing; give {"flops_per_s": …`},
		{file(`"x"`, `[`+okLink+`]`, `[]`), `cluster two.json: device: must be a device {"flops_per_s": …, "mem_bytes_per_s": …, "mem_capacity_bytes": …}, got a list`},
		{file(`"x"`, `[`+okLink+`]`, `{"flops_per_s": 6.7e13, "mem_bytes_per_s": 3.35e12}`), `cluster two.json: device.mem_capacity_bytes: missing; give the device's memory capacity in bytes`},
		{file(`"x"`, `[`+okLink+`]`, `{"flops_per_s": 6.7e13, "mem_bytes_per_s": 3.35e12, "mem_capacity_bytes": 8e10, "tflops": 1}`), `cluster two.json: device: unknown field "tflops"; the device has flops_per_s, mem_bytes_per_s and mem_capacity_bytes`},
		{file(`"x"`, `[`+okLink+`]`, `{"flops_per_s": true, "mem_bytes_per_s": 3.35e12, "mem_capacity_bytes": 8e10}`), `cluster two.json: device.flops_per_s: must be a positive number of FLOP per second, got true`},
		{file(`"x"`, `[`+okLink+`]`, `{"flops_per_s": 1, "mem_bytes_per_s": -0.0, "mem_capacity_bytes": 8e10}`), `cluster two.json: device.mem_bytes_per_s: must be a positive number of bytes per second, got -0.0`},
	}
	for _, c := range cases {
		_, err := Parse("two.json", []byte(c.src))
		if err == nil {
			t.Errorf("Parse(%q) succeeded; want %q", c.src, c.want)
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, which does not wrap ErrInvalid", c.src, err)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("Parse(%q):\n got %q\nwant %q…", c.src, msg, c.want)
		}
	}
}

// TestParseTolerates: what a strict parser still takes: whitespace,
// fields in any order, integers, exponents in any case.
func TestParseTolerates(t *testing.T) {
	src := "\n{ \"device\": {\"mem_capacity_bytes\": 80000000000, \"mem_bytes_per_s\": 3.35E12, \"flops_per_s\": 67e12},\n" +
		"  \"links\": [ {\"beta_bytes_per_s\": 450000000000, \"alpha_s\": 0.000003} ],\n  \"name\": \"h100-node\" }\n"
	c, err := Parse("h.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Cluster{Name: "h100-node", Links: []Link{nvlink}, Device: h100}
	want.Device.FLOPs16 = 0
	if !equal(c, want) {
		t.Fatalf("Parse = %+v, want %+v", c, want)
	}
}

// FuzzParse: Parse never panics, and what it accepts writes back (File)
// to a file it reads as the same cluster.
func FuzzParse(f *testing.F) {
	f.Add([]byte(issueFile))
	f.Add([]byte(ownFile))
	f.Add([]byte(file(`"x"`, `[`+okLink+`]`, okDev)))
	f.Add([]byte(`{"name": "x", "links": [{"alpha_s": "1"}]}`))
	f.Add([]byte(`[]`))
	for _, p := range Presets() {
		b, _ := p.File()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.json", data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Parse(%q) = %q: want one line wrapping ErrInvalid", data, err)
			}
			return
		}
		out, err := c.File()
		if err != nil {
			t.Fatalf("File of the accepted %+v: %v", c, err)
		}
		back, err := Parse("again.json", out)
		if err != nil || !equal(back, c) {
			t.Fatalf("Parse(File(%+v)) = %+v, %v", c, back, err)
		}
	})
}
