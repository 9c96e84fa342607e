package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteFile: a write that succeeds replaces the file whole,
// readable by all; one that fails part way leaves the old content and no
// temporary file; a missing folder is an error that names the path.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "scene.svg")
	long := strings.Repeat("new content ", 100000) // more than one write of the os buffers
	for _, want := range []string{"old", long, ""} {
		if err := WriteFile(path, func(w io.Writer) error {
			_, err := io.WriteString(w, want)
			return err
		}); err != nil {
			t.Fatalf("WriteFile %d bytes: %v", len(want), err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("after writing %d bytes: read %d bytes, %v", len(want), len(got), err)
		}
		if names := dirNames(t, dir); len(names) != 1 {
			t.Errorf("after writing %d bytes the folder holds %v, want only scene.svg", len(want), names)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want -rw-r--r--", fi.Mode(), err)
	}

	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(path, func(w io.Writer) error {
		io.WriteString(w, "half a fi")
		return boom
	})
	if err != boom {
		t.Errorf("a failed write: err %v, want write's own error back unchanged", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after a failed write the file holds %q, want its old content %q", got, "old")
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != "scene.svg" {
		t.Errorf("after a failed write the folder holds %v, want only scene.svg", names)
	}

	missing := filepath.Join(dir, "missing", "x.png")
	err = WriteFile(missing, func(w io.Writer) error { t.Error("write called with no file to write to"); return nil })
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "atomicfile: cannot write "+missing+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("into a missing folder: %v; want atomicfile: cannot write %s: …, and fs.ErrNotExist", err, missing)
	}
}

// TestWriteFileOverFolder: a rename over a folder fails, and the
// error names the path, not the temporary file.
func TestWriteFileOverFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
	if err == nil || !strings.HasPrefix(err.Error(), "atomicfile: cannot write "+path+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("over a folder: %v; want atomicfile: cannot write %s: …", err, path)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("the folder holds %v, want only the folder taken", names)
	}
}

// TestError: a file-system failure is an *Error that names the path
// asked for and wraps the os error's cause.
func TestError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing", "x.npz")
	err := WriteFile(missing, func(io.Writer) error { return nil })
	var e *Error
	if !errors.As(err, &e) || e.Path != missing || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("into a missing folder: %#v; want an *Error for %s wrapping fs.ErrNotExist", err, missing)
	}
}
