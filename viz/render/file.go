package render

import (
	"fmt"
	"io"

	"github.com/stridelab/stridelab/internal/atomicfile"
)

// WriteFileAtomic writes the file path through write, whole or not at
// all (atomicfile.WriteFile: a temporary file beside path, given mode
// 0644 and renamed over it only when write returned nil). On any error
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
	err := atomicfile.WriteFile(path, write)
	if fe, ok := err.(*atomicfile.Error); ok {
		return fmt.Errorf("render: cannot write %s: %w", fe.Path, fe.Err)
	}
	return err
}
