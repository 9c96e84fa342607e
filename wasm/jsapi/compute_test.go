//go:build js && wasm

package jsapi

import (
	"reflect"
	"syscall/js"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// TestComputeKeepsTheLastResult: the results of a scene are computed
// once for all its steps and for the answers hidden or shown; another
// scene, or the same one on another backend, is computed anew.
func TestComputeKeepsTheLastResult(t *testing.T) {
	hashAt := func(v map[string]string, step int) string {
		return viz.Spec{Scene: "program", Values: v, Step: step}.Hash()
	}
	dp := map[string]string{"src": "placement 4; x = input 8,4 S(0); w = input 4,2 B; y = matmul x w; s = sum y 1,1; grad s"}
	mp := map[string]string{"src": "placement 4; x = input 8,4 B; w = input 4,2 S(1); y = matmul x w; s = sum y 1,1; grad s"}
	call := func(hash string, hide bool) viz.Section {
		t.Helper()
		out, err := compute(js.ValueOf(map[string]any{"hash": hash, "backend": "cpu", "hideAnswers": hide}))
		if err != nil {
			t.Fatalf("compute %s: %v", hash, err)
		}
		return out.(map[string]any)["section"].(viz.Section)
	}
	runs := func() int { lastResult.Lock(); defer lastResult.Unlock(); return lastResult.runs }
	before := runs()
	first := call(hashAt(dp, 0), false)
	if got := runs() - before; got != 1 {
		t.Fatalf("the first compute ran %d times, want 1", got)
	}
	if again := call(hashAt(dp, 3), false); !reflect.DeepEqual(again, first) || runs()-before != 1 {
		t.Errorf("step 3 of the same program: %d runs in all (want 1), the same section: %v", runs()-before, reflect.DeepEqual(again, first))
	}
	if hidden := call(hashAt(dp, 3), true); len(hidden.Table) != 0 || runs()-before != 1 {
		t.Errorf("the answers hidden: a table of %d rows (want none), %d runs (want 1)", len(hidden.Table), runs()-before)
	}
	other := call(hashAt(mp, 0), false)
	if runs()-before != 2 || len(other.Table) == 0 {
		t.Errorf("another program: %d runs in all, want 2, and its table (%d rows)", runs()-before, len(other.Table))
	}
	call(hashAt(dp, 0), false)
	if runs()-before != 3 {
		t.Errorf("the first program again, after another: %d runs in all, want 3 (one result is kept)", runs()-before)
	}
}
