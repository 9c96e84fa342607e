package wasmsize

import (
	"bytes"
	"errors"
	"testing"
)

// uleb spells n as unsigned LEB128.
func uleb(n int) []byte {
	var out []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n != 0 {
			out = append(out, c|0x80)
			continue
		}
		return append(out, c)
	}
}

func section(id byte, body []byte) []byte {
	return append(append([]byte{id}, uleb(len(body))...), body...)
}

func str(s string) []byte { return append(uleb(len(s)), s...) }

// module builds a small binary: one imported function, three bodies
// named as Go names them, a data section and (when named) a name section.
func module(named bool) []byte {
	b := []byte("\x00asm\x01\x00\x00\x00")
	imp := append(uleb(1), str("go")...)
	imp = append(append(imp, str("debug")...), 0, 0) // kind func, type 0
	b = append(b, section(2, imp)...)
	bodies := [][]byte{bytes.Repeat([]byte{1}, 10), bytes.Repeat([]byte{2}, 20), bytes.Repeat([]byte{3}, 30)}
	code := uleb(len(bodies))
	for _, body := range bodies {
		code = append(append(code, uleb(len(body))...), body...)
	}
	b = append(b, section(10, code)...)
	b = append(b, section(11, make([]byte, 7))...)
	if named {
		names := []string{"runtime.main", "github.com_x_y_internal_a.F", "github.com_x_y_internal_a_b.(*T).M"}
		sub := uleb(len(names))
		for i, n := range names {
			sub = append(append(sub, uleb(i+1)...), str(n)...) // index 0 is the import
		}
		body := append(str("name"), append([]byte{1}, append(uleb(len(sub)), sub...)...)...)
		b = append(b, section(0, body)...)
	}
	return b
}

// TestRead: the bodies, the data and the names come back by function,
// the import's index left out of the code's.
func TestRead(t *testing.T) {
	bin, err := Read(module(true))
	if err != nil {
		t.Fatal(err)
	}
	if len(bin.Code) != 3 || len(bin.Code[2]) != 30 || bin.DataSize != 7 || !bin.Named {
		t.Fatalf("got %d bodies (last %d bytes), data %d, named %v; want 3 (30), 7, true", len(bin.Code), len(bin.Code[len(bin.Code)-1]), bin.DataSize, bin.Named)
	}
	if bin.Names[1] != "github.com_x_y_internal_a.F" {
		t.Errorf("body 1 is named %q", bin.Names[1])
	}
	stripped, err := Read(module(false))
	if err != nil || stripped.Named || stripped.Names[0] != "" {
		t.Errorf("a stripped binary: named %v, %v", stripped.Named, err)
	}
}

// TestPackages: each body goes to the longest import path whose
// mangled spelling starts its name, even where '_' makes two paths
// spell alike up to a point.
func TestPackages(t *testing.T) {
	bin, _ := Read(module(true))
	pkgs := bin.Packages([]string{"runtime", "github.com/x/y/internal/a", "github.com/x/y/internal/a/b"})
	got := map[string]int{}
	for _, p := range pkgs {
		got[p.Path] = p.Code
		if p.Gzip <= 0 {
			t.Errorf("%s: gzip %d", p.Path, p.Gzip)
		}
	}
	want := map[string]int{"runtime": 10, "github.com/x/y/internal/a": 20, "github.com/x/y/internal/a/b": 30}
	for p, n := range want {
		if got[p] != n {
			t.Errorf("%s: %d bytes of code, want %d (all: %v)", p, got[p], n, got)
		}
	}
	if got["(other)"] != 0 {
		t.Errorf("%d bytes went to no package", got["(other)"])
	}
}

// TestReadRefuses: what is not wasm, or is cut short, is an error that
// wraps ErrFormat.
func TestReadRefuses(t *testing.T) {
	good := module(true)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"not wasm":  []byte("\x7fELF\x02\x01\x01\x00"),
		"cut short": good[:len(good)-5],
	} {
		if _, err := Read(b); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", name, err)
		}
	}
}
