package tensor

import (
	"errors"
	"fmt"
)

// Sentinels for errors.Is. Every error this package returns wraps one.
var (
	ErrShape     = errors.New("shape mismatch")
	ErrIndex     = errors.New("index out of range")
	ErrNeedsCopy = errors.New("no view exists; a copy is needed")
	ErrDType     = errors.New("unsupported dtype")
	ErrParse     = errors.New("cannot parse")
	ErrOverflow  = errors.New("size overflows int")
	ErrTooLarge  = errors.New("result larger than the limit")
)

// Error is the error type of this package. Its message reads
//
//	tensor: <op>: <detail>
//
// for example "tensor: expand [4 3 1 2] to [4 5 1 2]: dim 1 has size 3, so
// the new size must be 3 or -1, not 5".
type Error struct {
	Op     string // operation and its operands, e.g. "expand [4 3 1 2] to [4 5 1 2]"
	Detail string // what was wrong, naming the dimension and values
	Kind   error  // one of the sentinels
}

func (e *Error) Error() string { return "tensor: " + e.Op + ": " + e.Detail }

// Unwrap returns the sentinel, so errors.Is(err, ErrShape) works.
func (e *Error) Unwrap() error { return e.Kind }

func newError(kind error, op, format string, args ...any) error {
	return &Error{Op: op, Detail: fmt.Sprintf(format, args...), Kind: kind}
}
