package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/stridelab/stridelab/shaders"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/npyfile"
)

// computeFlags registers --backend and --max-bytes and returns a function
// that sets the result limit (tensor.ResolveLimit: --max-bytes, else
// $STRIDELAB_MAX_BYTES, else half of the available memory) and resolves
// the backend: gpu fails without an adapter, auto falls back to the CPU
// with a notice on stderr.
func computeFlags(fs *flagSet, stderr io.Writer) func(tuning ...shaders.Tuning) (tensor.Backend, error) {
	name := fs.String("backend", "cpu", "where kernels run: cpu, gpu (WebGPU) or auto (gpu when an adapter exists)")
	maxBytes := fs.String("max-bytes", "", "the most bytes one result may take, e.g. 4GiB (default: $"+tensor.MaxBytesEnv+", else half of the available memory)")
	return func(tuning ...shaders.Tuning) (tensor.Backend, error) {
		limit, err := tensor.ResolveLimit(*maxBytes)
		if err != nil {
			return nil, usagef("%v", err)
		}
		tensor.SetMaxBytes(limit)
		switch *name {
		case "cpu":
			return tensor.CPU{}, nil
		case "gpu", "auto":
			opts := shaders.Options{}
			if len(tuning) > 0 {
				opts.Tuning = tuning[0]
			}
			dev, err := shaders.Open(opts)
			if err == nil {
				return shaders.NewBackend(dev), nil
			}
			if *name == "gpu" {
				return nil, fmt.Errorf("--backend gpu: %v (try --backend auto or cpu)", err)
			}
			fmt.Fprintf(stderr, "stridelab: notice: --backend auto: %v; running on the CPU\n", err)
			return tensor.CPU{}, nil
		}
		return nil, usagef("--backend %q: choose cpu, gpu or auto", *name)
	}
}

// load reads a .npy file; float64 and int64 inputs are converted with a
// notice on stderr (exact conversions, or float64 rounding to float32).
func load(path string, stderr io.Writer) (tensor.Tensor, error) {
	t, notes, err := npyfile.ReadFile(path, npyfile.Options{Float64: true})
	if err != nil {
		return tensor.Tensor{}, err
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "stridelab: notice: %s: %s\n", path, n)
	}
	return t, nil
}

// emit writes t to out if given (whole: saveNpy), else prints it.
func emit(t tensor.Tensor, out string, stdout io.Writer) error {
	if out != "" {
		if err := saveNpy(out, t); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: %v %v\n", out, t.DType(), t.Shape())
		return nil
	}
	fmt.Fprintln(stdout, format(t))
	return nil
}

// printLimit is the element count above which a printed tensor shows only
// its first and last elements, as NumPy's print threshold (1000) does.
const printLimit = 1000

// format writes t as NumPy's repr does, nested brackets per dim.
func format(t tensor.Tensor) string {
	vals := t.Float64s()
	shape := t.Shape()
	var b strings.Builder
	fmt.Fprintf(&b, "%v %v\n", t.DType(), shape)
	if len(vals) > printLimit {
		fmt.Fprintf(&b, "[%s ... %s]  (%d elements; use --out to save them all)",
			join(vals[:3]), join(vals[len(vals)-3:]), len(vals))
		return b.String()
	}
	var rec func(d, off int)
	rec = func(d, off int) {
		if d == len(shape) {
			b.WriteString(fmt.Sprint(vals[off]))
			return
		}
		stride := 1
		for _, n := range shape[d+1:] {
			stride *= n
		}
		b.WriteString("[")
		for i := 0; i < shape[d]; i++ {
			switch {
			case i > 0 && d < len(shape)-1:
				b.WriteString(",\n" + strings.Repeat(" ", d+1))
			case i > 0:
				b.WriteString(", ")
			}
			rec(d+1, off+i*stride)
		}
		b.WriteString("]")
	}
	rec(0, 0)
	return b.String()
}

func join(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

// parseList parses a comma-separated integer flag, naming it in errors.
func parseList(flagName, s string) ([]int, error) {
	v, err := tensor.ParseInts("--"+flagName, s)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return v, nil
}

func parseShapeFlag(flagName, s string) (tensor.Shape, error) {
	v, err := tensor.ParseShape(s)
	if err != nil {
		return nil, usagef("--%s: %v", flagName, err)
	}
	return v, nil
}
