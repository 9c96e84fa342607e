// Command wasmsize says how big a Go wasm binary is and holds it to a
// limit (package wasmsize):
//
//	go run ./web/cmd/wasmsize [--max-gzip 4MiB] [--main ./wasm/playground] FILE.wasm
//
// It prints the file's bytes and its gzip -6 bytes; with --max-gzip it
// exits 1, in one line, when the gzip bytes pass the limit (`make test`
// holds playground.wasm to 4 MiB this way). With --main, on a binary
// built without -ldflags=-s (`make wasm-size` builds one), it adds a
// table of the code each Go package of that main package contributes
// (its import paths from `go list -deps`, built for GOOS=js), largest
// first, with the groups: the Go runtime and standard library,
// Ebitengine, golang.org/x, the WebGPU binding and stridelab's own.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/web/wasmsize"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize: "+err.Error())
		os.Exit(1)
	}
}

func run() error {
	maxGzip := flag.String("max-gzip", "", "fail when the file's gzip -6 bytes pass this (e.g. 4MiB)")
	mainPkg := flag.String("main", "", "the main package the binary was built from: print the code of each package it imports")
	top := flag.Int("top", 40, "with --main, how many packages to list")
	flag.Parse()
	if flag.NArg() != 1 {
		return errors.New("usage: wasmsize [--max-gzip 4MiB] [--main ./wasm/playground] FILE.wasm")
	}
	file := flag.Arg(0)
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	bin, err := wasmsize.Read(b)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	gz := wasmsize.Gzip(b)
	name := filepath.Base(file)
	fmt.Printf("%s: %s, gzip -6 %s (%d bytes)\n", name, tensor.FormatBytes(int64(len(b))), tensor.FormatBytes(int64(gz)), gz)
	if *mainPkg != "" {
		if err := table(bin, *mainPkg, *top); err != nil {
			return err
		}
	}
	if *maxGzip != "" {
		limit, err := tensor.ParseBytes("--max-gzip", *maxGzip)
		if err != nil {
			return err
		}
		if int64(gz) > limit {
			return fmt.Errorf("%s is %d bytes gzip -6, %d over its limit of %s (%d bytes): leave out of it what its first scene does not need (docs/performance.md)",
				name, gz, int64(gz)-limit, tensor.FormatBytes(limit), limit)
		}
		fmt.Printf("%s: within its limit of %s gzip -6 by %d bytes\n", name, tensor.FormatBytes(limit), limit-int64(gz))
	}
	return nil
}

// groups name the families the table sums, by import path prefix.
var groups = []struct{ name, prefix string }{
	{"stridelab", "github.com/stridelab/stridelab/"},
	{"Ebitengine", "github.com/hajimehoshi/ebiten/"},
	{"golang.org/x", "golang.org/x/"},
	{"WebGPU binding", "github.com/oliverbestmann/webgpu/"},
}

// table prints the code of each package of mainPkg in bin.
func table(bin *wasmsize.Binary, mainPkg string, top int) error {
	if !bin.Named {
		return errors.New("the binary has no function names (built with -ldflags=-s?): build it without -s for --main")
	}
	cmd := exec.Command("go", "list", "-deps", mainPkg)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list -deps %s: %w", mainPkg, err)
	}
	paths := strings.Fields(string(out))
	pkgs := bin.Packages(append(paths, "main", "go"))
	var total, totalGz int
	sums := map[string][2]int{}
	for _, p := range pkgs {
		total += p.Code
		g := "Go runtime and standard library"
		for _, gr := range groups {
			if strings.HasPrefix(p.Path, gr.prefix) {
				g = gr.name
			}
		}
		s := sums[g]
		sums[g] = [2]int{s[0] + p.Code, s[1] + p.Gzip}
		totalGz += p.Gzip
	}
	fmt.Printf("code %s in %d functions; data %s\n", tensor.FormatBytes(int64(total)), len(bin.Code), tensor.FormatBytes(int64(bin.DataSize)))
	fmt.Printf("%-60s %6s %10s %10s\n", "package", "funcs", "code", "gzip alone")
	for i, p := range pkgs {
		if i == top {
			fmt.Printf("… %d more packages\n", len(pkgs)-top)
			break
		}
		fmt.Printf("%-60s %6d %10s %10s\n", p.Path, p.Funcs, tensor.FormatBytes(int64(p.Code)), tensor.FormatBytes(int64(p.Gzip)))
	}
	fmt.Println()
	for _, g := range append([]string{"Go runtime and standard library"}, func() []string {
		var n []string
		for _, gr := range groups {
			n = append(n, gr.name)
		}
		return n
	}()...) {
		fmt.Printf("%-60s %6s %10s %10s\n", g, "", tensor.FormatBytes(int64(sums[g][0])), tensor.FormatBytes(int64(sums[g][1])))
	}
	return nil
}
