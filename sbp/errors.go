package sbp

import (
	"errors"
	"fmt"
)

// Sentinels for errors.Is. Every error this package returns wraps one.
var (
	ErrParse     = errors.New("cannot parse")
	ErrPlacement = errors.New("bad placement")
	ErrSBP       = errors.New("bad SBP")
	ErrSignature = errors.New("no valid SBP signature")
	ErrShape     = errors.New("shape mismatch")
)

// Error is the error type of this package. Its message reads
//
//	sbp: <op>: <detail>
//
// for example "sbp: matmul [4 6] x [6 8] with S(0) x S(0): illegal: …".
type Error struct {
	Op     string // the operation and its operands
	Detail string // what was wrong and, where it helps, what is valid
	Kind   error  // one of the sentinels
}

func (e *Error) Error() string { return "sbp: " + e.Op + ": " + e.Detail }

// Unwrap returns the sentinel, so errors.Is(err, ErrSignature) works.
func (e *Error) Unwrap() error { return e.Kind }

func newError(kind error, op, format string, args ...any) error {
	return &Error{Op: op, Detail: fmt.Sprintf(format, args...), Kind: kind}
}
