package render

import (
	"errors"
	"fmt"
)

// Sentinels for errors.Is. Every error this package returns wraps one,
// apart from the writer's own errors, which come back unchanged.
var (
	ErrSize   = errors.New("bad frame size")
	ErrFrames = errors.New("bad frame list")
	ErrNumber = errors.New("number not finite")
	ErrFormat = errors.New("unknown format")
)

// Error is the error type of this package. Its message reads
//
//	render: <op>: <detail>
//
// for example "render: gif: frame 2 is 640×480 but frame 0 is 1280×720".
type Error struct {
	Op     string // the renderer, e.g. "svg" or "gif"
	Detail string // what was wrong, naming the item or frame and the values
	Kind   error  // one of the sentinels
}

func (e *Error) Error() string { return "render: " + e.Op + ": " + e.Detail }

// Unwrap returns the sentinel, so errors.Is(err, ErrSize) works.
func (e *Error) Unwrap() error { return e.Kind }

func newError(kind error, op, format string, args ...any) error {
	return &Error{Op: op, Detail: fmt.Sprintf(format, args...), Kind: kind}
}

// checkSize refuses a frame that has no pixels.
func checkSize(op string, w, h int) error {
	if w <= 0 || h <= 0 {
		return newError(ErrSize, op, "frame is %d×%d; width and height must be positive", w, h)
	}
	return nil
}
