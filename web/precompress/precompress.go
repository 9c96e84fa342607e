// Package precompress makes the gzip and brotli encodings of a site's
// files once, when the site is built, so a server that serves them starts
// at once: `make web` runs it over web/site (go run ./web/cmd/precompress
// web/site), and package web, loading that folder, takes the encodings it
// finds instead of compressing at every start.
//
// # Overview
//
// [Dir] writes NAME.gz and NAME.br beside each file worth compressing
// ([Worth]: a kilobyte or more of text, JSON, SVG or wasm) when an
// encoding saves at least an eighth of the bytes ([Smaller]), and a
// manifest, [ManifestName], that records for each file the SHA-256 of the
// bytes its encodings were made from. A file whose hash the manifest
// already holds, with its encodings in place, is not compressed again:
// rebuilding an unchanged page costs one hash a file. A reader trusts an
// encoding only while the file's bytes still hash to the manifest's
// ([Manifest.Encodings]), so a file changed after the manifest was
// written is compressed afresh rather than served stale.
//
// # Levels
//
// [GzipLevel] and [BrotliLevel] were measured on the 7.2 MB wasm of the
// kernels' page on this project's 2-core machine: gzip 6 gives 27.7% in
// 0.37 s and gzip 9 27.6% in 1.0 s; brotli 6 gives 22.9% in 0.55 s,
// brotli 9 22.4% in 1.4 s and brotli 11 19.8% in 29 s. Every build of the
// page compresses each changed wasm (some 30 MB in all), so the levels
// past the knee would cost a minute for 1-3%.
//
// # Errors
//
// Dir's errors name the file; every file it writes is written whole or
// not at all (a temporary file renamed over it), the manifest last, so an
// interrupted run leaves a folder a reader still serves correctly.
package precompress

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/stridelab/stridelab/internal/atomicfile"
)

// The compression levels (see the package documentation for why).
const (
	GzipLevel   = gzip.DefaultCompression // 6
	BrotliLevel = 6
)

// ManifestName is the manifest's file name in a precompressed folder; it
// starts with a dot, so a server that skips hidden files never serves it.
const ManifestName = ".precompressed.json"

// minCompress is the smallest file worth compressing: an answer under a
// kilobyte fits one TCP packet (1460 bytes with its headers) either way.
const minCompress = 1024

// compressibleTypes are the file extensions whose contents compress:
// text, JSON, SVG and wasm (images other than SVG are compressed already).
var compressibleTypes = []string{".html", ".js", ".mjs", ".css", ".json", ".txt", ".svg", ".wasm"}

// Worth reports whether a file named name holding size bytes is worth
// compressing: a kilobyte or more, of a type that is not compressed
// already.
func Worth(name string, size int) bool {
	return size >= minCompress && slices.Contains(compressibleTypes, path.Ext(name))
}

// Gzip is body compressed with gzip at GzipLevel.
func Gzip(body []byte) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, GzipLevel) // the level is valid
	w.Write(body)                              // a bytes.Buffer does not fail
	w.Close()
	return b.Bytes()
}

// Brotli is body compressed with brotli at BrotliLevel.
func Brotli(body []byte) []byte {
	var b bytes.Buffer
	w := brotli.NewWriterLevel(&b, BrotliLevel)
	w.Write(body)
	w.Close()
	return b.Bytes()
}

// Smaller keeps an encoding that saves at least an eighth of the bytes,
// which pays for the client's decoding; nil otherwise.
func Smaller(body, enc []byte) []byte {
	if len(enc) > len(body)-len(body)/8 {
		return nil
	}
	return enc
}

// Hash is the hex SHA-256 of body, the key a manifest keeps encodings by.
func Hash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// Entry is what the manifest says of one file: the hash of the bytes its
// encodings were made from, and which encodings were worth keeping.
type Entry struct {
	SHA256 string `json:"sha256"`
	Gzip   bool   `json:"gzip"`
	Brotli bool   `json:"brotli"`
}

// Manifest maps a file's slash-separated path in the folder to its Entry.
type Manifest map[string]Entry

// ReadManifest reads the manifest of fsys's root: an empty one when the
// folder has none (a site that was never precompressed).
func ReadManifest(fsys fs.FS) (Manifest, error) {
	b, err := fs.ReadFile(fsys, ManifestName)
	if err != nil {
		if os.IsNotExist(err) {
			return Manifest{}, nil
		}
		return nil, fmt.Errorf("precompress: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("precompress: %s: %w", ManifestName, err)
	}
	return m, nil
}

// Encodings returns the gzip and brotli bytes kept beside the file name
// of fsys whose bytes hash to sum (nil where the manifest says an
// encoding was not worth keeping), and whether they are good: false when
// the manifest has no entry for name, was made from other bytes, or an
// encoding it names is missing.
func (m Manifest) Encodings(fsys fs.FS, name, sum string) (gz, br []byte, ok bool) {
	e, listed := m[name]
	if !listed || e.SHA256 != sum {
		return nil, nil, false
	}
	var err error
	if e.Gzip {
		if gz, err = fs.ReadFile(fsys, name+".gz"); err != nil {
			return nil, nil, false
		}
	}
	if e.Brotli {
		if br, err = fs.ReadFile(fsys, name+".br"); err != nil {
			return nil, nil, false
		}
	}
	return gz, br, true
}

// IsEncoding reports whether name is an encoding the manifest keeps
// beside a file (NAME.gz or NAME.br of a listed NAME), not a file of the
// site.
func (m Manifest) IsEncoding(name string) bool {
	for _, ext := range []string{".gz", ".br"} {
		if base, ok := strings.CutSuffix(name, ext); ok {
			if _, listed := m[base]; listed {
				return true
			}
		}
	}
	return false
}

// Files calls fn with the name and bytes of every file of a site folder:
// its regular files, apart from hidden ones (a name that starts with a
// dot, in any folder) and the encodings m keeps beside its files. It
// stops at fn's first error.
func (m Manifest) Files(fsys fs.FS, fn func(name string, body []byte) error) error {
	return fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || m.IsEncoding(name) {
			return nil
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		return fn(name, body)
	})
}

// Report says what Dir did: how many files it compressed and how many
// it found compressed already.
type Report struct {
	Compressed, Kept int
}

// Dir precompresses every file of dir worth it (Worth) whose encodings
// the manifest does not already hold for its bytes, writes them beside
// it, drops encodings left from files no longer there or no longer worth
// compressing, and writes the manifest. Hidden files are skipped.
func Dir(dir string) (Report, error) {
	var r Report
	fsys := os.DirFS(dir)
	old, err := ReadManifest(fsys)
	if err != nil {
		return r, err
	}
	m := Manifest{}
	err = old.Files(fsys, func(name string, body []byte) error {
		if !Worth(name, len(body)) {
			return nil
		}
		sum := Hash(body)
		if _, _, ok := old.Encodings(fsys, name, sum); ok {
			m[name] = old[name]
			r.Kept++
			return nil
		}
		e := Entry{SHA256: sum}
		for _, enc := range []struct {
			ext  string
			make func([]byte) []byte
			keep *bool
		}{{".gz", Gzip, &e.Gzip}, {".br", Brotli, &e.Brotli}} {
			p := filepath.Join(dir, filepath.FromSlash(name+enc.ext))
			b := Smaller(body, enc.make(body))
			if b == nil {
				if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
					return fmt.Errorf("precompress: %w", err)
				}
				continue
			}
			if err := atomicfile.WriteFile(p, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
				return fmt.Errorf("precompress: %w", err)
			}
			*enc.keep = true
		}
		m[name] = e
		r.Compressed++
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("precompress: %s: %w", dir, err)
	}
	// Encodings of files that are gone (or now too small) go with them.
	for name := range old {
		if _, ok := m[name]; ok {
			continue
		}
		for _, ext := range []string{".gz", ".br"} {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name+ext))); err != nil && !os.IsNotExist(err) {
				return r, fmt.Errorf("precompress: %w", err)
			}
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return r, fmt.Errorf("precompress: %w", err)
	}
	err = atomicfile.WriteFile(filepath.Join(dir, ManifestName), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return r, fmt.Errorf("precompress: %w", err)
	}
	return r, nil
}
