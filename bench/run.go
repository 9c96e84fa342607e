package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"time"

	"github.com/stridelab/stridelab/tensor"
)

// Result is one case measured on one implementation.
type Result struct {
	Case   string  `json:"case"`
	Impl   string  `json:"impl"` // "cpu", "numpy", …
	Median float64 `json:"median_s"`
	GBps   float64 `json:"gb_per_s"` // Bytes / Median / 1e9
}

// Measure runs c on be `runs` times after one warm-up call and returns the
// median time. Every run allocates its own output, as NumPy does.
func Measure(be tensor.Backend, c Case, runs int) (Result, error) {
	in, err := c.Inputs()
	if err != nil {
		return Result{}, err
	}
	if _, err := c.Run(be, in); err != nil {
		return Result{}, err
	}
	times := make([]float64, runs)
	for i := range times {
		t0 := time.Now()
		if _, err := c.Run(be, in); err != nil {
			return Result{}, err
		}
		times[i] = time.Since(t0).Seconds()
	}
	return newResult(c, be.Name(), median(times)), nil
}

func newResult(c Case, impl string, med float64) Result {
	return Result{Case: c.Name, Impl: impl, Median: med, GBps: float64(c.Bytes()) / med / 1e9}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

//go:embed numpy_peer.py
var numpyPeer []byte

// NumPyPython is the interpreter with NumPy: Debian's python3-numpy.
const NumPyPython = "/usr/bin/python3"

// RunNumPy measures the cases with NumPy (median of runs) and returns the
// results and NumPy's version. It fails if python3 or NumPy is missing.
func RunNumPy(cases []Case, runs int) ([]Result, string, error) {
	type jcase struct {
		Name string `json:"name"`
		Op   string `json:"op"`
		In   []int  `json:"in"`
		B    []int  `json:"b"`
		Arg  []int  `json:"arg"`
	}
	req := struct {
		Cases []jcase `json:"cases"`
		Runs  int     `json:"runs"`
	}{Runs: runs}
	for _, c := range cases {
		req.Cases = append(req.Cases, jcase{c.Name, c.Op, c.In, c.B, c.Arg})
	}
	body, _ := json.Marshal(req)
	cmd := exec.Command(NumPyPython, "-c", string(numpyPeer))
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("bench: NumPy peer (%s): %v: %s", NumPyPython, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var resp struct {
		NumPy   string `json:"numpy"`
		Results []struct {
			Name   string  `json:"name"`
			Median float64 `json:"median_s"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, "", fmt.Errorf("bench: NumPy peer printed %q: %v", out, err)
	}
	var res []Result
	for i, r := range resp.Results {
		res = append(res, newResult(cases[i], "numpy", r.Median))
	}
	return res, resp.NumPy, nil
}
