// Package npyfile reads and writes tensors as NumPy .npy files, and
// several by name as .npz files (numpy.savez's zip of .npy members:
// EncodeNpz, ReadNpz).
//
// Reading goes through github.com/sbinet/npyio (header parsing, dtype
// decoding, byte order), behind checks it does not make: the data length
// must match the header's shape, sizes must not overflow, and a malformed
// header is an error, never a panic. npyio writes only 1-D slices and 2-D
// matrices, so the (short, documented) version 1.0 header is written here.
//
// float32, int32 and uint32 arrays load as they are. Other dtypes load when
// the conversion is exact or explicitly allowed, with a notice naming it:
// float64 → float32 (rounds; allowed with Options.Float64), int64/uint64 →
// int32/uint32 when every value fits, and narrower integers and bools widen.
package npyfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	npyio "github.com/sbinet/npyio/npy"

	"github.com/stridelab/stridelab/tensor"
)

// ErrFormat marks a file that is not a valid .npy file.
var ErrFormat = errors.New("npyfile: invalid .npy file")

// Options controls lossy conversions on load.
type Options struct {
	// Float64 allows float64 data to be rounded to float32 (with a
	// notice); without it, float64 input is an error.
	Float64 bool
}

// magic starts every .npy file.
const magic = "\x93NUMPY"

// maxHeader bounds the header dict: NumPy writes a few hundred bytes.
const maxHeader = 1 << 20

// ReadFile loads the .npy file at path. A file larger than the result
// limit (tensor.MaxBytes) is refused before it is read.
func ReadFile(path string, opt Options) (tensor.Tensor, []string, error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if err := tensor.CheckBytes("reading "+path, "the file", fi.Size(), ""); err != nil {
			return tensor.Tensor{}, nil, err
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return tensor.Tensor{}, nil, fmt.Errorf("npyfile: %w", err)
	}
	t, notes, err := Decode(raw, opt)
	if err != nil {
		return tensor.Tensor{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, notes, nil
}

// Decode parses a whole .npy file held in raw. It returns the tensor
// (contiguous, C order), notices about conversions made, and an error for
// anything malformed or unsupported.
func Decode(raw []byte, opt Options) (t tensor.Tensor, notes []string, err error) {
	if len(raw) < 10 || string(raw[:6]) != magic {
		return tensor.Tensor{}, nil, fmt.Errorf("%w: it does not start with the NumPy magic string", ErrFormat)
	}
	var hlen, start int
	switch raw[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(raw[8:10])), 10
	case 2, 3:
		if len(raw) < 12 {
			return tensor.Tensor{}, nil, fmt.Errorf("%w: truncated header", ErrFormat)
		}
		hlen, start = int(binary.LittleEndian.Uint32(raw[8:12])), 12
	default:
		return tensor.Tensor{}, nil, fmt.Errorf("%w: format version %d.%d is not 1.0, 2.0 or 3.0", ErrFormat, raw[6], raw[7])
	}
	if hlen > maxHeader || start+hlen > len(raw) || !bytes.Contains(raw[start:start+hlen], []byte("}")) ||
		!bytes.HasSuffix(raw[start:start+hlen], []byte("\n")) {
		return tensor.Tensor{}, nil, fmt.Errorf("%w: the header (%d bytes) is truncated or not a dict ending in a newline", ErrFormat, hlen)
	}
	if raw[6] == 3 {
		raw = bytes.Clone(raw)
		raw[6] = 2 // 3.0 differs from 2.0 only by allowing UTF-8 field names
	}
	defer func() { // npyio slices its header without bounds checks
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: malformed header %q", ErrFormat, raw[start:start+hlen])
		}
	}()
	r, err := npyio.NewReader(bytes.NewReader(raw))
	if err != nil {
		return tensor.Tensor{}, nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return decodeData(r, raw[start+hlen:], opt)
}

func decodeData(r *npyio.Reader, data []byte, opt Options) (tensor.Tensor, []string, error) {
	h := r.Header.Descr
	shape := tensor.Shape(h.Shape)
	if shape == nil {
		shape = tensor.Shape{}
	}
	n, err := shape.NumElements()
	if err != nil {
		return tensor.Tensor{}, nil, fmt.Errorf("%w: shape %v: %v", ErrFormat, h.Shape, err)
	}
	typ := strings.TrimLeft(h.Type, "<>|=")
	size := map[string]int{"f4": 4, "i4": 4, "u4": 4, "f8": 8, "i8": 8, "u8": 8, "i2": 2, "u2": 2, "i1": 1, "u1": 1, "b1": 1}[typ]
	if size == 0 {
		return tensor.Tensor{}, nil, fmt.Errorf("npyfile: dtype %q of a %v array is not supported; use float32, int32 or uint32", h.Type, shape)
	}
	if want := uint64(n) * uint64(size); uint64(len(data)) != want {
		return tensor.Tensor{}, nil, fmt.Errorf("%w: a %s array of shape %v needs %d data bytes, the file has %d", ErrFormat, h.Type, shape, want, len(data))
	}
	dt := tensor.Uint32
	switch typ[0] {
	case 'f':
		dt = tensor.Float32
	case 'i':
		dt = tensor.Int32
	}
	if err := tensor.CheckResult(fmt.Sprintf("loading a %s array of shape %v", h.Type, shape), dt, shape); err != nil {
		return tensor.Tensor{}, nil, err
	}
	var t tensor.Tensor
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	switch typ {
	case "f4":
		t, err = read[float32](r, shape, h.Fortran)
	case "i4":
		t, err = read[int32](r, shape, h.Fortran)
	case "u4":
		t, err = read[uint32](r, shape, h.Fortran)
	case "f8":
		if !opt.Float64 {
			return tensor.Tensor{}, nil, fmt.Errorf("npyfile: the array is float64 (shape %v); stridelab computes in float32: convert it (x.astype(np.float32)) or allow rounding", shape)
		}
		t, err = convert[float64, float32](r, shape, h.Fortran, func(v float64) (float32, bool) { return float32(v), true })
		note("converted float64 %v to float32 (values rounded to 24-bit mantissas)", shape)
	case "i8":
		t, err = convert[int64, int32](r, shape, h.Fortran, func(v int64) (int32, bool) { return int32(v), v >= math.MinInt32 && v <= math.MaxInt32 })
		note("converted int64 %v to int32 (every value fits)", shape)
	case "u8":
		t, err = convert[uint64, uint32](r, shape, h.Fortran, func(v uint64) (uint32, bool) { return uint32(v), v <= math.MaxUint32 })
		note("converted uint64 %v to uint32 (every value fits)", shape)
	case "i2":
		t, err = convert[int16, int32](r, shape, h.Fortran, func(v int16) (int32, bool) { return int32(v), true })
		note("widened int16 %v to int32", shape)
	case "i1":
		t, err = convert[int8, int32](r, shape, h.Fortran, func(v int8) (int32, bool) { return int32(v), true })
		note("widened int8 %v to int32", shape)
	case "u2":
		t, err = convert[uint16, uint32](r, shape, h.Fortran, func(v uint16) (uint32, bool) { return uint32(v), true })
		note("widened uint16 %v to uint32", shape)
	case "u1":
		t, err = convert[uint8, uint32](r, shape, h.Fortran, func(v uint8) (uint32, bool) { return uint32(v), true })
		note("widened uint8 %v to uint32", shape)
	case "b1":
		t, err = convert[bool, uint32](r, shape, h.Fortran, func(v bool) (uint32, bool) {
			if v {
				return 1, true
			}
			return 0, true
		})
		note("converted bool %v to uint32 0/1", shape)
	}
	if err != nil {
		return tensor.Tensor{}, nil, err
	}
	return t, notes, nil
}

// read decodes the data as T and returns it in C order.
func read[T tensor.Elem](r *npyio.Reader, shape tensor.Shape, fortran bool) (tensor.Tensor, error) {
	n, _ := shape.NumElements()
	data := make([]T, n)
	if n > 0 {
		if err := r.Read(&data); err != nil {
			return tensor.Tensor{}, fmt.Errorf("%w: %v", ErrFormat, err)
		}
	}
	return cOrder(shape, data, fortran)
}

// convert decodes the data as S and converts each value with to, which
// reports whether the value is represented exactly.
func convert[S any, T tensor.Elem](r *npyio.Reader, shape tensor.Shape, fortran bool, to func(S) (T, bool)) (tensor.Tensor, error) {
	n, _ := shape.NumElements()
	src := make([]S, n)
	if n > 0 {
		if err := r.Read(&src); err != nil {
			return tensor.Tensor{}, fmt.Errorf("%w: %v", ErrFormat, err)
		}
	}
	data := make([]T, n)
	for i, v := range src {
		var ok bool
		if data[i], ok = to(v); !ok {
			return tensor.Tensor{}, fmt.Errorf("npyfile: element %d of the %v array is %v, which does not fit %v", i, shape, v, tensor.DTypeOf[T]())
		}
	}
	return cOrder(shape, data, fortran)
}

// cOrder returns data as a C-order tensor. Fortran-order data is the view
// with reversed (column-major) strides, materialized.
func cOrder[T tensor.Elem](shape tensor.Shape, data []T, fortran bool) (tensor.Tensor, error) {
	if !fortran || len(shape) < 2 {
		return tensor.FromSlice(shape, data)
	}
	rev := make(tensor.Shape, len(shape))
	for d := range shape {
		rev[d] = shape[len(shape)-1-d]
	}
	t, err := tensor.FromSlice(rev, data)
	if err != nil {
		return tensor.Tensor{}, err
	}
	perm := make([]int, len(shape))
	for d := range perm {
		perm[d] = len(shape) - 1 - d
	}
	v, err := t.Permute(perm)
	if err != nil {
		return tensor.Tensor{}, err
	}
	return tensor.CPU{}.Materialize(v)
}

// WriteFile writes t to path as a .npy file (version 1.0, C order).
func WriteFile(path string, t tensor.Tensor) error {
	var buf bytes.Buffer
	if err := Encode(&buf, t); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("npyfile: %w", err)
	}
	return nil
}

// Encode writes t in .npy format version 1.0, little-endian, C order; a
// non-contiguous view is materialized first.
func Encode(w io.Writer, t tensor.Tensor) error {
	if !t.Valid() {
		return errors.New("npyfile: cannot encode an empty Tensor value")
	}
	if l := t.Layout(); !l.IsContiguous() || l.Base() != 0 {
		var err error
		if t, err = (tensor.CPU{}).Materialize(t); err != nil {
			return err
		}
	}
	descr := map[tensor.DType]string{tensor.Float32: "<f4", tensor.Int32: "<i4", tensor.Uint32: "<u4"}[t.DType()]
	shape := t.Shape()
	dims := make([]string, len(shape))
	for i, v := range shape {
		dims[i] = fmt.Sprint(v)
	}
	tuple := "(" + strings.Join(dims, ", ") + ")"
	if len(shape) == 1 {
		tuple = "(" + dims[0] + ",)"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple)
	// NumPy pads the header with spaces so the data starts 64-byte aligned.
	total := len(magic) + 4 + len(dict) + 1
	pad := (64 - total%64) % 64
	header := dict + strings.Repeat(" ", pad) + "\n"
	var pre [10]byte
	copy(pre[:], magic)
	pre[6], pre[7] = 1, 0
	binary.LittleEndian.PutUint16(pre[8:], uint16(len(header)))
	out := make([]byte, 0, len(pre)+len(header)+4*t.NumElements())
	out = append(append(out, pre[:]...), header...)
	switch t.DType() {
	case tensor.Float32:
		out = appendLE(out, mustBuffer[float32](t), func(v float32) uint32 { return math.Float32bits(v) })
	case tensor.Int32:
		out = appendLE(out, mustBuffer[int32](t), func(v int32) uint32 { return uint32(v) })
	case tensor.Uint32:
		out = appendLE(out, mustBuffer[uint32](t), func(v uint32) uint32 { return v })
	}
	_, err := w.Write(out)
	return err
}

func mustBuffer[T tensor.Elem](t tensor.Tensor) []T {
	b, _ := tensor.Buffer[T](t)
	return b[:t.NumElements()]
}

func appendLE[T tensor.Elem](out []byte, data []T, bits func(T) uint32) []byte {
	for _, v := range data {
		out = binary.LittleEndian.AppendUint32(out, bits(v))
	}
	return out
}
