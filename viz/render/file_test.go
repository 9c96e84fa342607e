package render

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteFileAtomic is atomicfile.WriteFile (whose tests check the file is
// written whole or not at all) with render's words: these check only the
// wrapping.

// TestWriteFileAtomicOverFolder: a rename over a folder fails, and the
// error says render's words and names the path, not the temporary file.
func TestWriteFileAtomicOverFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
	if err == nil || !strings.HasPrefix(err.Error(), "render: cannot write "+path+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("over a folder: %v; want render: cannot write %s: …", err, path)
	}
}

// TestWriteFileAtomicErrors: a missing folder is errors.Is fs.ErrNotExist
// under render's words; an error of write comes back unchanged.
func TestWriteFileAtomicErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "x.svg")
	err := WriteFileAtomic(path, func(io.Writer) error { return nil })
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "render: cannot write "+path) {
		t.Errorf("missing folder: %v; want render: cannot write %s wrapping fs.ErrNotExist", err, path)
	}
	mine := errors.New("encode failed")
	if err := WriteFileAtomic(filepath.Join(t.TempDir(), "x.svg"), func(io.Writer) error { return mine }); err != mine {
		t.Errorf("write's error: got %v, want it unchanged", err)
	}
}
