package shaders

import (
	"errors"
	"os"
	"sync"
	"testing"
)

// The tests share one WebGPU device, opened on first use: each test's
// Device is derived from it under its own options, so a kernel that one
// test compiles serves every other (lavapipe compiles each pipeline
// through LLVM, the bulk of these tests' time when every test compiled
// its own).
var (
	rootOnce sync.Once
	root     *Device
	rootErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if root != nil {
		root.Close()
	}
	os.Exit(code)
}

// openOrSkip returns a Device under opts on the tests' shared device,
// closed when t ends; without an adapter the test skips, unless
// STRIDELAB_REQUIRE_GPU=1 (make test sets it: lavapipe is installed).
func openOrSkip(t *testing.T, opts Options) *Device {
	t.Helper()
	rootOnce.Do(func() { root, rootErr = Open(Options{}) })
	if errors.Is(rootErr, ErrNoAdapter) && os.Getenv("STRIDELAB_REQUIRE_GPU") != "1" {
		t.Skip("no WebGPU adapter (install mesa-vulkan-drivers for lavapipe)")
	}
	if rootErr != nil {
		t.Fatal(rootErr)
	}
	d := root.derive(opts)
	t.Cleanup(d.Close)
	return d
}
