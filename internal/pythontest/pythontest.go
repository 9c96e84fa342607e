// Package pythontest is how the tests that run Python find it: the
// interpreter, or the test skipped saying why; where make test requires
// it (STRIDELAB_REQUIRE_TORCH=1, STRIDELAB_REQUIRE_NUMPY=1) a missing one
// fails the test instead, so a machine without it cannot pass unseen.
//
//	py := pythontest.Torch(t, torch.FindPython)
//	py := pythontest.NumPy(t, bench.NumPyPython)
//
// It imports no package of this module, so any package's tests can use
// it, the torch engine's own included.
package pythontest

import (
	"context"
	"os"
	"testing"
)

// Torch returns the interpreter find gives (torch.FindPython: one that
// imports torch with gloo), or skips t with find's error; with
// STRIDELAB_REQUIRE_TORCH=1 it fails t.
func Torch(t testing.TB, find func(ctx context.Context, path string) (string, error)) string {
	t.Helper()
	return require(t, "STRIDELAB_REQUIRE_TORCH", func(ctx context.Context) (string, error) { return find(ctx, "") })
}

// NumPy returns the interpreter find gives (bench.NumPyPython: one that
// imports numpy), or skips t with find's error; with
// STRIDELAB_REQUIRE_NUMPY=1 it fails t.
func NumPy(t testing.TB, find func(ctx context.Context) (string, error)) string {
	t.Helper()
	return require(t, "STRIDELAB_REQUIRE_NUMPY", find)
}

func require(t testing.TB, env string, find func(ctx context.Context) (string, error)) string {
	t.Helper()
	py, err := find(context.Background())
	if err != nil {
		if os.Getenv(env) == "1" {
			t.Fatalf("%s=1: %v", env, err)
		}
		t.Skipf("skipped: %v", err)
	}
	return py
}
