package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/shaders"
	"github.com/stridelab/stridelab/tensor"
)

// refusal is the one line an oversized request must get: the bytes it
// needs and the limit (the result limit or the device's maxBufferSize).
// A shape whose element count overflows int64 is refused as such.
var refusal = regexp.MustCompile(`(needs [0-9.]+ (B|[KMGTPE]iB)( \(.*\))?; (the limit is [0-9.]+ (B|[KMGTPE]iB) \(.+\)|the device's maxBufferSize is [0-9.]+ [KMGTPE]iB)|the element count of the result \[[0-9 ]+\] overflows int64)$`)

// TestOversizedResultsAreRefused: a request whose result cannot fit exits
// 1 with one line naming the bytes and the limit, writes nothing and
// allocates nothing (the real limit here is half of the machine's
// available memory: a result of terabytes must never reach the allocator).
func TestOversizedResultsAreRefused(t *testing.T) {
	dir := t.TempDir()
	x, _ := tensor.Arange(tensor.Float32, tensor.Shape{2, 3, 1})
	xp := writeNpy(t, dir, "x.npy", x)
	one, _ := tensor.Arange(tensor.Float32, tensor.Shape{1})
	op := writeNpy(t, dir, "one.npy", one)
	col, _ := tensor.Arange(tensor.Float32, tensor.Shape{100000, 1})
	cp := writeNpy(t, dir, "col.npy", col)
	row, _ := tensor.Arange(tensor.Float32, tensor.Shape{1, 100000})
	rp := writeNpy(t, dir, "row.npy", row)
	out := filepath.Join(dir, "y.npy")

	cases := [][]string{
		{"expand", "--in", xp, "--size", "2,3,100000000000"},
		{"repeat", "--in", xp, "--times", "100000,100000,100000"},
		{"expand", "--in", op, "--size", "1000000000,1000000000", "--out", out},
		{"repeat", "--in", xp, "--times", "3037000499,3037000499,1"},
		{"binary", "--op", "add", "--a", cp, "--b", rp},
		{"binary", "--op", "mul", "--a", cp, "--b", rp, "--out", out},
		{"expand", "--in", xp, "--size", "2,3,1000", "--max-bytes", "1KiB"},
		{"repeat", "--in", xp, "--times", "1,10,10", "--max-bytes", "1000B"},
		{"expand", "--in", xp, "--size", "2,3,2", "--max-bytes", "0"},
		{"reduce", "--in", cp, "--to", "1,1", "--max-bytes", "100KB"}, // the input file alone is over the limit
		{"sbp", "run", "--op", "expand", "--in", xp, "--size", "2,3,1000000000", "--sbp", "S(0)", "--placement", "4"},
		{"sbp", "run", "--op", "repeat", "--in", xp, "--times", "1000,1000,1000", "--sbp", "S(1)", "--placement", "4"},
		{"sbp", "run", "--op", "expand", "--in", xp, "--size", "2,3,100000", "--sbp", "B", "--placement", "8", "--max-bytes", "10MiB"},
		{"sbp", "run", "--op", "add", "--in", cp, "--b", rp, "--sbp", "S(0)", "--b-sbp", "B", "--placement", "0-3", "--out", out},
	}
	if gpuAvailable(t) {
		cases = append(cases,
			[]string{"expand", "--in", op, "--size", "600000000", "--backend", "gpu"}, // fits the host, not the device's buffer
			[]string{"expand", "--in", xp, "--size", "2,3,100000000000", "--backend", "gpu"},
			[]string{"repeat", "--in", xp, "--times", "100000,100000,100000", "--backend", "gpu", "--out", out},
			[]string{"binary", "--op", "add", "--a", cp, "--b", rp, "--backend", "gpu"},
			[]string{"sbp", "run", "--op", "expand", "--in", xp, "--size", "2,3,1000000000", "--sbp", "S(0)", "--placement", "4", "--backend", "gpu"},
		)
	}
	for _, args := range cases {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		msg := strings.TrimSuffix(stderr.String(), "\n")
		if code != 1 || strings.Contains(msg, "\n") || !refusal.MatchString(msg) {
			t.Errorf("stridelab %v: exit %d, stderr %q; want exit 1 and one line naming the bytes and the limit", args, code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("stridelab %v wrote %s", args, out)
			os.Remove(out)
		}
	}
	t.Setenv(tensor.MaxBytesEnv, "100")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"expand", "--in", xp, "--size", "2,3,100"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "the limit is 100 B ("+tensor.MaxBytesEnv+")") {
		t.Errorf("with %s=100: exit %d, stderr %q", tensor.MaxBytesEnv, code, stderr.String())
	}
	t.Setenv(tensor.MaxBytesEnv, "-5")
	if code := run([]string{"expand", "--in", xp, "--size", "2,3,1"}, &stdout, &stderr); code != 2 {
		t.Errorf("with %s=-5: exit %d, want a usage error", tensor.MaxBytesEnv, code)
	}
}

// gpuAvailable reports whether a WebGPU adapter opens; without one the
// GPU cases are skipped unless STRIDELAB_REQUIRE_GPU=1 (make test).
func gpuAvailable(t *testing.T) bool {
	d, err := shaders.Open(shaders.Options{})
	if err == nil {
		d.Close()
		return true
	}
	if errors.Is(err, shaders.ErrNoAdapter) && os.Getenv("STRIDELAB_REQUIRE_GPU") != "1" {
		t.Log("no WebGPU adapter: the --backend gpu cases are skipped")
		return false
	}
	t.Fatal(err)
	return false
}
