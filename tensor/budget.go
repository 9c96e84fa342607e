package tensor

import (
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"sync"
)

// The result budget. A view of any size is metadata, but a kernel's result
// is memory: expand [1] to [100000, 100000] is a 40 GB buffer, and a
// mistyped size must come back as an error naming the bytes, not as the
// runtime's fatal "out of memory" (which no recover catches). So every path
// that allocates a result (the CPU and WebGPU kernels, .npy reads, the
// simulated devices of sbp, the wasm API) first asks CheckResult or
// CheckBytes whether it fits under the limit.
//
// The limit is process-wide, like runtime/debug.SetMemoryLimit: memory is a
// property of the process, not of one call. It starts at the platform
// default (DefaultLimit); programs set it once at start-up from their flags
// (ResolveLimit) before running kernels.

// Limit is the most bytes one result may take, and where that number comes
// from, for the error message ("--max-bytes", "half of available memory").
type Limit struct {
	Bytes  int64
	Source string
}

func (l Limit) String() string { return FormatBytes(l.Bytes) + " (" + l.Source + ")" }

// MaxBytesEnv names the environment variable that ResolveLimit reads.
const MaxBytesEnv = "STRIDELAB_MAX_BYTES"

var (
	limitMu  sync.Mutex
	limit    Limit
	limitSet bool
)

// MaxBytes returns the limit results are checked against.
func MaxBytes() Limit {
	limitMu.Lock()
	defer limitMu.Unlock()
	if !limitSet {
		limit, limitSet = DefaultLimit(), true
	}
	return limit
}

// SetMaxBytes sets the limit and returns the previous one. A limit of 0
// or less refuses every non-empty result.
func SetMaxBytes(l Limit) Limit {
	prev := MaxBytes()
	limitMu.Lock()
	defer limitMu.Unlock()
	limit = l
	limit.Bytes = max(l.Bytes, 0)
	return prev
}

// ResolveLimit is the limit a program runs under: flagValue when it is not
// empty (named "--max-bytes"), else $STRIDELAB_MAX_BYTES when set, else
// DefaultLimit. Values are spelled as ParseBytes reads them.
func ResolveLimit(flagValue string) (Limit, error) {
	if flagValue != "" {
		n, err := ParseBytes("--max-bytes", flagValue)
		return Limit{n, "--max-bytes"}, err
	}
	if v := os.Getenv(MaxBytesEnv); v != "" {
		n, err := ParseBytes(MaxBytesEnv, v)
		return Limit{n, MaxBytesEnv}, err
	}
	return DefaultLimit(), nil
}

// ResultBytes is the size of a contiguous result of shape and dt:
//
//	bytes = dt.Size() · Π shape[d]
//
// computed in int64. A negative size is ErrShape; a product that overflows
// int64 is ErrOverflow, naming the shape.
func ResultBytes(dt DType, shape Shape) (int64, error) {
	n, err := shape.NumElements()
	if err != nil {
		return 0, err
	}
	hi, lo := bits.Mul64(uint64(n), uint64(dt.Size()))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, newError(ErrOverflow, "shape "+shape.String(), "%d %v elements take more than 2^63 bytes", n, dt)
	}
	return int64(lo), nil
}

// CheckResult reports whether a result of shape and dt fits the limit. op
// names the operation for the error, e.g. "expand [2 3 1] to [2 3 100000]".
func CheckResult(op string, dt DType, shape Shape) error {
	bytes, err := ResultBytes(dt, shape)
	if err != nil {
		if e, ok := err.(*Error); ok {
			return &Error{Op: op, Detail: e.Op + ": " + e.Detail, Kind: e.Kind}
		}
		return err
	}
	n, _ := shape.NumElements()
	return CheckBytes(op, "the result", bytes, fmt.Sprintf("%d %v elements", n, dt))
}

// CheckBytes reports whether bytes fit the limit. subject names what takes
// them ("the result", "the file") and detail, when not empty, what they
// hold ("4 ranks' shards: 6000 float32 elements"):
//
//	tensor: <op>: <subject> needs 2.18 TiB (<detail>); the limit is 11.5 GiB (<source>)
//
// The error wraps ErrTooLarge.
func CheckBytes(op, subject string, bytes int64, detail string) error {
	l := MaxBytes()
	if bytes <= l.Bytes || bytes == 0 {
		return nil
	}
	if detail != "" {
		detail = " (" + detail + ")"
	}
	return newError(ErrTooLarge, op, "%s needs %s%s; the limit is %v", subject, FormatBytes(bytes), detail, l)
}

// AddBytes returns a + b, or ErrOverflow when the sum passes int64.
func AddBytes(op string, a, b int64) (int64, error) {
	if a > math.MaxInt64-b {
		return 0, newError(ErrOverflow, op, "the bytes needed pass 2^63")
	}
	return a + b, nil
}

// FormatBytes writes n bytes in binary units with three significant
// digits: "512 B", "1.50 KiB", "11.2 GiB", "2.18 TiB".
func FormatBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v := float64(n)
	u := -1
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	prec := 2
	switch {
	case v >= 100:
		prec = 0
	case v >= 10:
		prec = 1
	}
	// A value that rounds up to the next power of ten takes one digit
	// fewer: 10239 B is "10.0 KiB", as 10240 B is, not "10.00 KiB".
	if r := math.Round(v*math.Pow10(prec)) / math.Pow10(prec); prec > 0 && r >= math.Pow10(3-prec) {
		prec--
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " " + units[u]
}

// byteUnits are the suffixes ParseBytes knows, with their multipliers.
var byteUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"pib", 1 << 50}, {"eib", 1 << 60},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"pb", 1e15}, {"eb", 1e18},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

// ParseBytes reads a byte count: "1073741824", "1e9", "512MiB", "1.5 GiB",
// "2GB" (SI), "4g" (binary). what names the value in errors. The result
// is between 0 and 2^63-1.
func ParseBytes(what, s string) (int64, error) {
	op := fmt.Sprintf("%s %q", what, s)
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && mult == 1 {
		if n < 0 {
			return 0, newError(ErrParse, op, "a byte count must be >= 0")
		}
		return n, nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, newError(ErrParse, op, "write a byte count such as 4GiB, 512MiB, 2GB or 1073741824")
	}
	v *= mult
	switch {
	case v < 0:
		return 0, newError(ErrParse, op, "a byte count must be >= 0")
	case v >= math.MaxInt64:
		return 0, newError(ErrParse, op, "%g bytes is more than 2^63-1", v)
	}
	return int64(v), nil
}
