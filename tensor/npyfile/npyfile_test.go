package npyfile

import (
	"bytes"
	"errors"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/stridelab/stridelab/tensor"
)

// The files in testdata were written by NumPy 1.24 (np.save).
func TestReadNumPyFiles(t *testing.T) {
	tests := []struct {
		file  string
		dtype tensor.DType
		shape tensor.Shape
		vals  []float64
		notes int
	}{
		{"f32_2x3.npy", tensor.Float32, tensor.Shape{2, 3}, []float64{0, 1, 2, 3, 4, 5}, 0},
		{"i32_scalar.npy", tensor.Int32, tensor.Shape{}, []float64{7}, 0},
		{"u32_empty.npy", tensor.Uint32, tensor.Shape{2, 0, 3}, []float64{}, 0},
		{"i64_4.npy", tensor.Int32, tensor.Shape{4}, []float64{0, 1, 2, 3}, 1},
		{"bigendian_f4.npy", tensor.Float32, tensor.Shape{5}, []float64{0, 1, 2, 3, 4}, 0},
		{"bool_3.npy", tensor.Uint32, tensor.Shape{3}, []float64{1, 0, 1}, 1},
	}
	for _, tt := range tests {
		x, notes, err := ReadFile("testdata/"+tt.file, Options{})
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if x.DType() != tt.dtype || !x.Shape().Equal(tt.shape) || !slices.Equal(x.Float64s(), tt.vals) || len(notes) != tt.notes {
			t.Errorf("%s: got %v %v %v notes %q, want %v %v %v", tt.file, x.DType(), x.Shape(), x.Float64s(), notes, tt.dtype, tt.shape, tt.vals)
		}
	}
}

func TestFortranOrder(t *testing.T) {
	x, _, err := ReadFile("testdata/f32_fortran.npy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := tensor.Arange(tensor.Float32, tensor.Shape{2, 3, 4})
	if !x.Shape().Equal(tensor.Shape{2, 3, 4}) || !slices.Equal(x.Float64s(), want.Float64s()) {
		t.Errorf("fortran file read as %v %v", x.Shape(), x.Float64s())
	}
}

func TestConversions(t *testing.T) {
	if _, _, err := ReadFile("testdata/f64_3.npy", Options{}); err == nil {
		t.Error("float64 loaded without permission")
	}
	x, notes, err := ReadFile("testdata/f64_3.npy", Options{Float64: true})
	if err != nil || len(notes) != 1 || x.DType() != tensor.Float32 || !math.IsInf(x.At(2), 1) {
		t.Errorf("float64 with permission: %v %v %v", x.Float64s(), notes, err)
	}
	if _, _, err := ReadFile("testdata/i64_big.npy", Options{}); err == nil {
		t.Error("int64 value 2^40 loaded into int32")
	}
	if _, _, err := ReadFile("testdata/c8.npy", Options{}); err == nil {
		t.Error("complex64 loaded")
	}
}

func TestRoundTrip(t *testing.T) {
	for _, shape := range []tensor.Shape{{}, {0}, {5}, {2, 3}, {2, 0, 4}, {1, 2, 3, 4}} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
			x, _ := tensor.Arange(dt, shape)
			var buf bytes.Buffer
			if err := Encode(&buf, x); err != nil {
				t.Fatal(err)
			}
			if buf.Len()%4 != 0 || bytes.IndexByte(buf.Bytes(), '\n')+1 != 64*((bytes.IndexByte(buf.Bytes(), '\n')+1)/64) {
				t.Errorf("%v %v: data is not 64-byte aligned", dt, shape)
			}
			y, _, err := Decode(buf.Bytes(), Options{})
			if err != nil {
				t.Fatalf("%v %v: %v", dt, shape, err)
			}
			if y.DType() != dt || !y.Shape().Equal(shape) || !slices.Equal(x.Float64s(), y.Float64s()) {
				t.Errorf("round trip %v %v gave %v %v", dt, shape, y.DType(), y.Shape())
			}
		}
	}
	// A strided view is written in logical order.
	x, _ := tensor.Arange(tensor.Int32, tensor.Shape{3, 4})
	v, _ := x.Permute([]int{1, 0})
	var buf bytes.Buffer
	Encode(&buf, v)
	y, _, _ := Decode(buf.Bytes(), Options{})
	if !slices.Equal(y.Float64s(), v.Float64s()) {
		t.Errorf("permuted view written as %v", y.Float64s())
	}
}

func TestMalformed(t *testing.T) {
	good, _ := os.ReadFile("testdata/f32_2x3.npy")
	cases := map[string][]byte{
		"empty":        {},
		"not npy":      []byte("hello world, this is text"),
		"truncated":    good[:len(good)-3],
		"extra data":   append(slices.Clone(good), 0, 0, 0, 0),
		"bad version":  append([]byte("\x93NUMPY\x09\x00"), good[8:]...),
		"huge header":  append([]byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f"), good[10:]...),
		"no dict":      append([]byte("\x93NUMPY\x01\x00\x04\x00abc\n"), 0, 0),
		"short header": []byte("\x93NUMPY\x01\x00\x40\x00{'descr'"),
	}
	for name, raw := range cases {
		if _, _, err := Decode(raw, Options{}); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

// FuzzDecode: no input makes Decode panic, and whatever decodes re-encodes
// to an equal tensor.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"f32_2x3.npy", "i32_scalar.npy", "u32_empty.npy", "f32_fortran.npy", "i64_4.npy", "bool_3.npy"} {
		raw, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		x, _, err := Decode(raw, Options{Float64: true})
		if err != nil {
			if !errors.Is(err, ErrFormat) && len(err.Error()) == 0 {
				t.Fatal("empty error message")
			}
			return
		}
		var buf bytes.Buffer
		if err := Encode(&buf, x); err != nil {
			t.Fatal(err)
		}
		y, _, err := Decode(buf.Bytes(), Options{})
		if err != nil || !y.Shape().Equal(x.Shape()) || len(y.Float64s()) != len(x.Float64s()) {
			t.Fatalf("re-encoded %v failed: %v", x.Shape(), err)
		}
	})
}
