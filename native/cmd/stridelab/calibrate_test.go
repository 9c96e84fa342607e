package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stridelab/stridelab/engine/torch"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
)

// TestCalibrateRefuses: bad command lines are one line on stderr, before
// any worker starts.
func TestCalibrateRefuses(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "--engine", "sim"}, `--engine "sim": calibrate measures a real engine's collectives; the only one is torch`},
		{[]string{"calibrate", "--runs", "0"}, "--runs 0: give 1 or more"},
		{[]string{"calibrate", "--timeout", "0s"}, "--timeout 0s: give a positive duration"},
		{[]string{"calibrate", "--name", " "}, "--name: cluster: name: must be a non-empty string"},
		{[]string{"calibrate", "--placement", "[[0,1],[2]]"}, "--placement: sbp: placement"},
		{[]string{"calibrate", "--placement", "1"}, "mesh dim 0 has 1 device; a collective needs 2 or more"},
		{[]string{"calibrate", "stray"}, `unexpected argument "stray"`},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		msg := stderr.String()
		if code == 0 || !strings.Contains(msg, c.want) || stdout.Len() != 0 {
			t.Errorf("stridelab %v: exit %d, stderr %q, stdout %q; want a failure containing %q", c.args, code, msg, stdout.String(), c.want)
		}
		if i := strings.LastIndex(msg, "stridelab calibrate:"); i < 0 || strings.Count(msg[i:], "\n") != 1 {
			t.Errorf("stridelab %v: stderr %q does not end in one error line", c.args, msg)
		}
	}
}

// TestWriteCalibration: the report of a calibration made by the
// formulas themselves: every point's residual is 0 and the fit is the
// link they were made with.
func TestWriteCalibration(t *testing.T) {
	p, _ := sbp.ParsePlacement("4")
	l := cluster.Link{Alpha: 2e-4, Beta: 5e8}
	cal := &torch.Calibration{Placement: p, Python: "/usr/bin/python3", Wall: 30 * time.Second,
		Device: cluster.Device{FLOPs: 4.4e9, MemBytes: 3.1e9, MemCapacity: 6e9}}
	for _, c := range torch.Collectives {
		for _, s := range torch.DefaultSizes {
			sec, _ := l.Time(c, 4, float64(s))
			cal.Measurements = append(cal.Measurements, torch.Measurement{Point: cluster.Point{Collective: c, Devices: 4, Bytes: float64(s), Seconds: sec}, Runs: []float64{sec}})
		}
	}
	c, fits, err := cal.Fit("loopback")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	writeCalibration(&b, cal, fits, 1)
	out := b.String()
	contains(t, "the report", out,
		"calibrated gloo: 4 processes of /usr/bin/python3 on cpu:[0, 1, 2, 3], 11 sizes from 64 B to 64.0 MiB, 1 runs each",
		"mesh dim 0 (groups of 4): α = 200 µs, β = 500 MB/s over every collective (RMS residual 0%)",
		"reduce-scatter  200 µs  500 MB/s  0%            run as all_reduce + slice",
		"all-reduce  64.0 MiB    203 ms   203 ms       +0%",
		"device (the slowest process's): 4.4 GFLOP/s (torch.mm of 512×512 float32, one thread), memory 3.1 GB/s (a 64 MiB copy), 5.59 GiB (this machine's memory over 4 processes)")
	file, err := rounded(c).File()
	if err != nil || !strings.Contains(string(file), `"alpha_s": 0.0002,`) || !strings.Contains(string(file), `"beta_bytes_per_s": 5e+08`) {
		t.Errorf("the cluster file:\n%s\n%v", file, err)
	}
}
