package render

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes the file path through write, whole or not at
// all: write fills a temporary file beside path (in the same folder, so
// the rename cannot cross file systems), which is closed, given mode
// 0644 and renamed over path only when write returned nil. On any error
// path keeps what it held before, and the temporary file is removed.
// Every front end's export ends here: `stridelab draw` and `stridelab
// lessons`, the desktop app's export keys and its screenshots, each with
// an Encode (or PNG) as write.
//
// An error of write comes back unchanged. An error of the file system
// reads "render: cannot write PATH: why" and wraps the cause, so
// errors.Is(err, fs.ErrNotExist) tells a missing folder. The data is not
// synced to the disk: a crash of the machine (not of the program) can
// still lose it.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
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
	return fmt.Errorf("render: cannot write %s: %w", path, err)
}
