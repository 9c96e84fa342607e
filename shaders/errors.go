package shaders

import (
	"errors"
	"fmt"
)

// ErrNoAdapter is returned by Open when the system offers no WebGPU adapter.
var ErrNoAdapter = errors.New("no WebGPU adapter found")

// ErrTooLarge marks work the device cannot hold: the error names the size
// and the device limit it exceeds.
var ErrTooLarge = errors.New("too large for the device")

// ErrDeviceLost marks calls on a device the system has taken away.
var ErrDeviceLost = errors.New("the WebGPU device was lost")

// Error is a failure reported by WebGPU (validation, out of memory, an
// internal error, device loss) or by the runtime around it, naming the
// operation it happened in.
type Error struct {
	Op  string // e.g. "expand [4 1 3] to [2 4 3 3]"
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("gpu: %s: %v", e.Op, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Op: op, Err: err}
}

// tooLarge reports bytes exceeding limit, by what.
func tooLarge(what string, bytes, limit uint64) error {
	return fmt.Errorf("%w: %s needs %d bytes, the device allows %d", ErrTooLarge, what, bytes, limit)
}
