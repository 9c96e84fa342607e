package precompress

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// writeSite makes a folder of files: a big script, a small page, an
// image, and a script in a sub-folder.
func writeSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"main.js":     strings.Repeat("console.log(1);\n", 500),
		"index.html":  "<!doctype html><title>t</title>",
		"icon.png":    strings.Repeat("\x89P", 2000),
		"js/extra.js": strings.Repeat("let x = 1;\n", 300),
		".keep":       strings.Repeat("hidden ", 300),
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func unzip(t *testing.T, b []byte, enc string) []byte {
	t.Helper()
	var r io.Reader
	if enc == "gz" {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	} else {
		r = brotli.NewReader(bytes.NewReader(b))
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDir: the files worth it get both encodings, which decode to the
// file; small files, images and hidden files get none; the manifest
// lists exactly what was made.
func TestDir(t *testing.T) {
	dir := writeSite(t)
	r, err := Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Compressed != 2 || r.Kept != 0 {
		t.Errorf("first run: %+v, want 2 compressed, 0 kept", r)
	}
	want := []string{".keep", ManifestName, "icon.png", "index.html", "js/extra.js", "js/extra.js.br", "js/extra.js.gz", "main.js", "main.js.br", "main.js.gz"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("files: got %v, want %v", got, want)
	}
	for _, name := range []string{"main.js", "js/extra.js"} {
		body, _ := os.ReadFile(filepath.Join(dir, name))
		for _, enc := range []string{"gz", "br"} {
			b, _ := os.ReadFile(filepath.Join(dir, name+"."+enc))
			if got := unzip(t, b, enc); !bytes.Equal(got, body) {
				t.Errorf("%s.%s does not decode to %s", name, enc, name)
			}
		}
	}
	m, err := ReadManifest(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || !m["main.js"].Gzip || !m["main.js"].Brotli {
		t.Errorf("manifest %+v: want main.js and js/extra.js with both encodings", m)
	}
}

// TestDirCachesByContent: a second run over the same bytes compresses
// nothing and leaves the encodings as they were; a changed file is
// compressed again; a removed file's encodings go with it.
func TestDirCachesByContent(t *testing.T) {
	dir := writeSite(t)
	if _, err := Dir(dir); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "main.js.gz")
	before, _ := os.Stat(gz)
	r, err := Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Compressed != 0 || r.Kept != 2 {
		t.Errorf("second run: %+v, want 0 compressed, 2 kept", r)
	}
	if after, _ := os.Stat(gz); !after.ModTime().Equal(before.ModTime()) {
		t.Error("an unchanged file's encoding was written again")
	}

	changed := strings.Repeat("console.log(2);\n", 500)
	os.WriteFile(filepath.Join(dir, "main.js"), []byte(changed), 0o644)
	os.Remove(filepath.Join(dir, "js/extra.js"))
	if r, err = Dir(dir); err != nil {
		t.Fatal(err)
	}
	if r.Compressed != 1 || r.Kept != 0 {
		t.Errorf("after a change: %+v, want 1 compressed, 0 kept", r)
	}
	b, _ := os.ReadFile(gz)
	if got := unzip(t, b, "gz"); string(got) != changed {
		t.Error("main.js.gz was not made from main.js's new bytes")
	}
	if slices.Contains(names(t, dir), "js/extra.js.gz") {
		t.Error("the encodings of a removed file stayed")
	}
}

// TestEncodingsRefuseStale: a manifest vouches only for the bytes it was
// made from, and only while its encodings are there.
func TestEncodingsRefuseStale(t *testing.T) {
	dir := writeSite(t)
	if _, err := Dir(dir); err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	m, _ := ReadManifest(fsys)
	body, _ := os.ReadFile(filepath.Join(dir, "main.js"))
	if gz, br, ok := m.Encodings(fsys, "main.js", Hash(body)); !ok || gz == nil || br == nil {
		t.Fatal("the manifest does not vouch for main.js's own bytes")
	}
	if _, _, ok := m.Encodings(fsys, "main.js", Hash(append(body, '\n'))); ok {
		t.Error("the manifest vouches for bytes it was not made from")
	}
	if _, _, ok := m.Encodings(fsys, "index.html", Hash([]byte("x"))); ok {
		t.Error("the manifest vouches for a file it does not list")
	}
	os.Remove(filepath.Join(dir, "main.js.br"))
	if _, _, ok := m.Encodings(fsys, "main.js", Hash(body)); ok {
		t.Error("the manifest vouches for an encoding that is gone")
	}
	if !m.IsEncoding("main.js.gz") || m.IsEncoding("main.js") || m.IsEncoding("index.html.gz") {
		t.Error("IsEncoding: want true only for NAME.gz and NAME.br of a listed NAME")
	}
}

// TestReadManifest: a folder without one has an empty manifest; a broken
// one is an error naming it.
func TestReadManifest(t *testing.T) {
	dir := t.TempDir()
	if m, err := ReadManifest(os.DirFS(dir)); err != nil || len(m) != 0 {
		t.Errorf("no manifest: got %v, %v; want an empty one", m, err)
	}
	os.WriteFile(filepath.Join(dir, ManifestName), []byte("{"), 0o644)
	if _, err := ReadManifest(os.DirFS(dir)); err == nil || !strings.Contains(err.Error(), ManifestName) {
		t.Errorf("a broken manifest: got %v, want an error naming %s", err, ManifestName)
	}
}
