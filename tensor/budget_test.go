package tensor

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// withLimit runs the test under a result limit of bytes, restoring the
// previous one after.
func withLimit(t testing.TB, bytes int64) {
	prev := SetMaxBytes(Limit{bytes, "test"})
	t.Cleanup(func() { SetMaxBytes(prev) })
}

func TestResultBytes(t *testing.T) {
	for _, c := range []struct {
		shape Shape
		want  int64
		err   error
	}{
		{Shape{}, 4, nil},
		{Shape{0, 1 << 62}, 0, nil},
		{Shape{2, 3, 100000000000}, 2400000000000, nil},
		{Shape{1 << 61}, 0, ErrOverflow},                    // 2^61 elements fit an int, 2^63 bytes do not
		{Shape{1 << 40, 1 << 40}, 0, ErrOverflow},           // the element count itself overflows
		{Shape{math.MaxInt64/4 + 1}, 0, ErrOverflow},        // one element past the last byte count that fits
		{Shape{math.MaxInt64 / 4}, math.MaxInt64 &^ 3, nil}, // the largest that fits
		{Shape{3, -1}, 0, ErrShape},
	} {
		got, err := ResultBytes(Float32, c.shape)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("ResultBytes(float32, %v) = %d, %v; want %d, %v", c.shape, got, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), c.shape.String()) {
			t.Errorf("ResultBytes(float32, %v): %q does not name the shape", c.shape, err)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.00 KiB", 1536: "1.50 KiB",
		11 << 30: "11.0 GiB", 2400000000000: "2.18 TiB", 512 << 20: "512 MiB", math.MaxInt64: "8.00 EiB",
		10239: "10.0 KiB", 102399: "100 KiB"} { // rounding up to the next power of ten drops a digit
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"1073741824": 1 << 30, "4GiB": 4 << 30, "512 MiB": 512 << 20, "1.5GiB": 3 << 29,
		"2GB": 2e9, "1e9": 1e9, "4g": 4 << 30, "100": 100, "0": 0, "10b": 10, " 7 KiB ": 7 << 10, "9223372036854775807": math.MaxInt64} {
		if got, err := ParseBytes("--max-bytes", s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "lots", "-1", "-2GiB", "1e30", "8EiB", "NaN", "inf", "GiB", "1.5.2MiB", "9223372036854775808"} {
		if n, err := ParseBytes("--max-bytes", s); err == nil || !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "--max-bytes") {
			t.Errorf("ParseBytes(%q) = %d, %v; want a parse error naming --max-bytes", s, n, err)
		}
	}
}

func TestResolveLimit(t *testing.T) {
	t.Setenv(MaxBytesEnv, "")
	if l, err := ResolveLimit(""); err != nil || l != DefaultLimit() {
		t.Errorf("no flag, no %s: %v, %v; want the default %v", MaxBytesEnv, l, err, DefaultLimit())
	}
	if l := DefaultLimit(); l.Bytes < 64<<20 || l.Source == "" {
		t.Errorf("DefaultLimit() = %v: want at least 64 MiB and a source", l)
	}
	t.Setenv(MaxBytesEnv, "2GiB")
	if l, err := ResolveLimit(""); err != nil || l != (Limit{2 << 30, MaxBytesEnv}) {
		t.Errorf("%s=2GiB: %v, %v", MaxBytesEnv, l, err)
	}
	if l, err := ResolveLimit("1MiB"); err != nil || l != (Limit{1 << 20, "--max-bytes"}) {
		t.Errorf("--max-bytes 1MiB beside %s: %v, %v; the flag wins", MaxBytesEnv, l, err)
	}
	t.Setenv(MaxBytesEnv, "much")
	if _, err := ResolveLimit(""); err == nil || !strings.Contains(err.Error(), MaxBytesEnv) {
		t.Errorf("%s=much: %v, want an error naming the variable", MaxBytesEnv, err)
	}
}

// TestKernelsCheckTheLimit: every CPU kernel and every allocating
// constructor refuses a result past the limit before allocating, naming
// the op, the bytes and the limit, and accepts one exactly at it.
func TestKernelsCheckTheLimit(t *testing.T) {
	withLimit(t, 4096)
	x, _ := Arange(Float32, Shape{2, 3, 1})
	row, _ := Arange(Float32, Shape{1, 40})
	col, _ := Arange(Float32, Shape{40, 1})
	for _, c := range []struct {
		name string
		run  func() (Tensor, error)
		want string
	}{
		{"expand", func() (Tensor, error) { return Expand(CPU{}, x, []int{2, 3, 1000}) }, "expand [2 3 1] to [2 3 1000]: the result needs 23.4 KiB (6000 float32 elements); the limit is 4.00 KiB (test)"},
		{"materialize", func() (Tensor, error) { v, _ := x.Expand([]int{2, 3, 1000}); return CPU{}.Materialize(v) }, "materialize shape [2 3 1000]"},
		{"repeat", func() (Tensor, error) { return CPU{}.Repeat(x, []int{1, 1, 1000}) }, "repeat [2 3 1] by [1 1 1000]: the result needs 23.4 KiB"},
		{"binary", func() (Tensor, error) { return CPU{}.Binary(Add, col, row) }, "add [40 1] and [1 40]: the result needs 6.25 KiB (1600 float32 elements)"},
		{"empty", func() (Tensor, error) { return Empty(Int32, Shape{2000}) }, "empty [2000]: the result needs 7.81 KiB (2000 int32 elements)"},
		{"zeros", func() (Tensor, error) { return Zeros(Uint32, Shape{2000}) }, "zeros [2000]"},
		{"arange", func() (Tensor, error) { return Arange(Float32, Shape{1 << 40}) }, "the result needs 4.00 TiB"},
		{"concat", func() (Tensor, error) { return Concat(1, slices.Repeat([]Tensor{row}, 30)...) }, "[1 1200]: the result needs 4.69 KiB"},
	} {
		_, err := c.run()
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want ErrTooLarge containing %q", c.name, err, c.want)
		}
	}
	if y, err := Expand(CPU{}, x, []int{2, 3, 170}); err != nil || y.NumElements() != 1020 {
		t.Errorf("expand to 1020 elements (4080 bytes) under 4096: %v", err)
	}
	if _, err := Empty(Float32, Shape{1024}); err != nil {
		t.Errorf("exactly the limit (4096 bytes): %v", err)
	}
	if _, err := Empty(Float32, Shape{1025}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("one element past the limit: %v", err)
	}
}

func TestReduceRefusesATargetOfHigherRank(t *testing.T) {
	x, _ := Arange(Float32, Shape{2, 3, 1})
	_, err := CPU{}.Reduce(Sum, x, Shape{1, 1, 1, 1})
	if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "reduce [2 3 1] to [1 1 1 1]: the target has 4 dims but the input only 3") {
		t.Errorf("sum [2 3 1] to [1 1 1 1]: %v", err)
	}
}

// FuzzResultLimit: any sizes up to 2^63 given to expand, repeat and
// reshape-then-materialize either fail with a tensor error or produce a
// result within the limit; nothing panics and nothing past the limit is
// allocated (the fuzzer's own memory limit would catch that).
func FuzzResultLimit(f *testing.F) {
	f.Add(int64(2), int64(3), int64(100000000000), uint8(0))
	f.Add(int64(math.MaxInt64), int64(1), int64(1), uint8(1))
	f.Add(int64(1<<31), int64(1<<31), int64(4), uint8(1))
	f.Add(int64(-1), int64(3), int64(1<<40), uint8(0))
	f.Add(int64(0), int64(1<<62), int64(1<<62), uint8(2))
	x, _ := Arange(Float32, Shape{2, 3, 1})
	f.Fuzz(func(t *testing.T, a, b, c int64, which uint8) {
		withLimit(t, 1<<20)
		sizes := []int{int(a), int(b), int(c)}
		var y Tensor
		var err error
		switch which % 3 {
		case 0:
			y, err = Expand(CPU{}, x, sizes)
		case 1:
			y, err = CPU{}.Repeat(x, sizes)
		default:
			y, err = Empty(Int32, Shape(sizes))
		}
		if err != nil {
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("sizes %v (%d): %v is not a *tensor.Error", sizes, which%3, err)
			}
			return
		}
		if bytes, _ := ResultBytes(y.DType(), y.Shape()); bytes > 1<<20 {
			t.Fatalf("sizes %v (%d): a result of %d bytes passed a 1 MiB limit", sizes, which%3, bytes)
		}
	})
}

// FuzzParseBytes: never panics; what parses is within 0..2^63-1.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"4GiB", "1e9", "512 MiB", "-1", "9223372036854775807", "9223372036854775808", "1e300", "0x10", "1.5.2g", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes("--max-bytes", s)
		if err == nil && n < 0 {
			t.Fatalf("ParseBytes(%q) = %d", s, n)
		}
	})
}
