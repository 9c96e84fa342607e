package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Error is a file-system failure of WriteFile: Path is the file asked
// for, Err the os error's own cause (without the temporary file's name).
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return "atomicfile: cannot write " + e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// WriteFile writes the file path through write, whole or not at all:
// write fills a temporary file beside path, which is closed, given mode
// 0644 and renamed over path only when write returned nil. On any error
// path keeps what it held before, and the temporary file is removed.
func WriteFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fileError(path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes files only their owner reads
		tmp.Close()
		return fileError(path, err)
	}
	if err := tmp.Close(); err != nil {
		return fileError(path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fileError(path, err)
	}
	return nil
}

// fileError names path, not the temporary file the os error names.
func fileError(path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &Error{Path: path, Err: err}
}
