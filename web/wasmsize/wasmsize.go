// Package wasmsize says what a Go WebAssembly binary is made of: its
// size, its size as gzip -6 sends it, and the bytes of code each Go
// package contributes, read from the wasm's "name" section (the names
// `go build` writes unless -ldflags=-s strips them).
//
// # Overview
//
// [Read] parses a binary: the code section's function bodies, the data
// section, and the name section's function names. Go names a function
// "PATH.Name" with each '/' of the package path written as '_'
// (github.com_stridelab_stridelab_viz.Build, image.__NRGBA_.Set), so a
// name alone cannot tell internal_runtime_maps from internal/runtime_maps;
// [Binary.Packages] is given the real import paths (go list -deps) and
// gives each function to the longest path whose spelling starts its name.
//
// Gzip bytes per package are estimates: each package's code compressed on
// its own, which overstates what it adds to the whole file (gzip finds
// less to share inside one package); the whole file's gzip -6 is exact.
//
// # Errors
//
// Read refuses what is not a wasm binary, or is cut short, naming the
// section and the offset.
package wasmsize

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ErrFormat is wrapped by every error about a malformed binary.
var ErrFormat = errors.New("wasmsize: not a wasm binary")

// Binary is a parsed wasm binary.
type Binary struct {
	Size     int      // bytes of the file
	Code     [][]byte // the function bodies, in the code section's order
	Names    []string // each body's name from the name section ("" when stripped)
	DataSize int      // bytes of the data section
	Named    bool     // the binary has a name section with function names
}

// reader reads LEB128 numbers and spans from a byte slice, remembering
// the first error.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d", ErrFormat, fmt.Sprintf(format, args...), r.off)
	}
}

// uleb reads an unsigned LEB128 number.
func (r *reader) uleb() uint64 {
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if r.err != nil {
			return 0
		}
		if r.off >= len(r.b) || shift > 63 {
			r.fail("a number runs past the end")
			return 0
		}
		c := r.b[r.off]
		r.off++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
}

// span reads n bytes.
func (r *reader) span(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.fail("a span of %d bytes runs past the end", n)
		return nil
	}
	s := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return s
}

// wasm section ids.
const (
	sectionCustom = 0
	sectionImport = 2
	sectionCode   = 10
	sectionData   = 11
)

// Read parses a wasm binary.
func Read(b []byte) (*Binary, error) {
	if len(b) < 8 || !bytes.Equal(b[:4], []byte("\x00asm")) {
		return nil, fmt.Errorf("%w: no \\0asm magic", ErrFormat)
	}
	bin := &Binary{Size: len(b)}
	r := &reader{b: b, off: 8}
	imports := 0
	names := map[int]string{}
	for r.off < len(b) && r.err == nil {
		id := r.b[r.off]
		r.off++
		body := &reader{b: r.span(r.uleb())}
		switch id {
		case sectionImport:
			imports = countFuncImports(body)
		case sectionCode:
			for n := body.uleb(); n > 0 && body.err == nil; n-- {
				bin.Code = append(bin.Code, body.span(body.uleb()))
			}
		case sectionData:
			bin.DataSize = len(body.b)
		case sectionCustom:
			if string(body.span(body.uleb())) == "name" {
				readFuncNames(body, names)
			}
		}
		if body.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, body.err)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	bin.Names = make([]string, len(bin.Code))
	for i := range bin.Code {
		bin.Names[i] = names[imports+i]
	}
	bin.Named = len(names) > 0
	return bin, nil
}

// countFuncImports counts the imported functions (they come first in
// the function index space, before the code section's).
func countFuncImports(r *reader) int {
	funcs := 0
	for n := r.uleb(); n > 0 && r.err == nil; n-- {
		r.span(r.uleb()) // module
		r.span(r.uleb()) // name
		if r.err != nil || r.off >= len(r.b) {
			r.fail("an import is cut short")
			return funcs
		}
		kind := r.b[r.off]
		r.off++
		switch kind {
		case 0: // func: a type index
			r.uleb()
			funcs++
		case 1: // table: a reference type and limits
			r.off++
			readLimits(r)
		case 2: // memory: limits
			readLimits(r)
		case 3: // global: a value type and mutability
			r.span(2)
		default:
			r.fail("an import of kind %d", kind)
		}
	}
	return funcs
}

func readLimits(r *reader) {
	flags := r.uleb()
	r.uleb()
	if flags&1 != 0 {
		r.uleb()
	}
}

// readFuncNames reads the function names (subsection 1) of a name
// section into names, by function index.
func readFuncNames(r *reader, names map[int]string) {
	for r.off < len(r.b) && r.err == nil {
		id := r.b[r.off]
		r.off++
		sub := &reader{b: r.span(r.uleb())}
		if id != 1 {
			continue
		}
		for n := sub.uleb(); n > 0 && sub.err == nil; n-- {
			idx := sub.uleb()
			names[int(idx)] = string(sub.span(sub.uleb()))
		}
		if sub.err != nil {
			r.err = sub.err
		}
	}
}

// Package is what one Go package contributes to a binary's code.
type Package struct {
	Path  string // the import path ("(other)" for names no path spells)
	Funcs int    // its function bodies
	Code  int    // their bytes
	Gzip  int    // their bytes compressed on their own with gzip -6 (an estimate)
}

// mangled spells an import path as Go's wasm names do: '/' as '_'.
func mangled(path string) string { return strings.ReplaceAll(path, "/", "_") }

// Packages gives each function body to the package among paths whose
// mangled spelling, followed by '.', begins its name (the longest such),
// and returns the packages by their code's gzip bytes, largest first.
func (b *Binary) Packages(paths []string) []Package {
	byName := map[string]string{}
	var prefixes []string
	for _, p := range paths {
		m := mangled(p) + "."
		byName[m] = p
		prefixes = append(prefixes, m)
	}
	// Longest first, so a package wins over one its path extends.
	slices.SortFunc(prefixes, func(x, y string) int { return len(y) - len(x) })
	code := map[string]*bytes.Buffer{}
	funcs := map[string]int{}
	for i, body := range b.Code {
		owner := "(other)"
		for _, p := range prefixes {
			if strings.HasPrefix(b.Names[i], p) {
				owner = byName[p]
				break
			}
		}
		if code[owner] == nil {
			code[owner] = &bytes.Buffer{}
		}
		code[owner].Write(body)
		funcs[owner]++
	}
	out := make([]Package, 0, len(code))
	for p, buf := range code {
		out = append(out, Package{Path: p, Funcs: funcs[p], Code: buf.Len(), Gzip: Gzip(buf.Bytes())})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Gzip != out[j].Gzip {
			return out[i].Gzip > out[j].Gzip
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// Gzip is the size of b compressed with gzip at level 6 (what `gzip -6`
// and the server's precompressed .gz give).
func Gzip(b []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, 6)
	w.Write(b)
	w.Close()
	return buf.Len()
}
