package tensor

import "fmt"

// DType is the element type of a Tensor. All three are 4 bytes wide, the
// widths WGSL storage buffers support.
type DType uint8

const (
	Float32 DType = iota + 1
	Int32
	Uint32
)

// Elem is the set of Go element types a Tensor may hold.
type Elem interface{ float32 | int32 | uint32 }

// Size returns the width of one element in bytes.
func (d DType) Size() int { return 4 }

func (d DType) String() string {
	switch d {
	case Float32:
		return "float32"
	case Int32:
		return "int32"
	case Uint32:
		return "uint32"
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// Valid reports whether d is one of the supported dtypes.
func (d DType) Valid() bool { return d >= Float32 && d <= Uint32 }

// ParseDType reads "float32", "f32", "int32", "i32", "uint32" or "u32".
func ParseDType(s string) (DType, error) {
	switch s {
	case "float32", "f32":
		return Float32, nil
	case "int32", "i32":
		return Int32, nil
	case "uint32", "u32":
		return Uint32, nil
	}
	return 0, newError(ErrDType, fmt.Sprintf("dtype %q", s), "supported dtypes are float32, int32 and uint32")
}

// DTypeOf returns the DType of the Go type T.
func DTypeOf[T Elem]() DType {
	var z T
	switch any(z).(type) {
	case float32:
		return Float32
	case int32:
		return Int32
	default:
		return Uint32
	}
}
