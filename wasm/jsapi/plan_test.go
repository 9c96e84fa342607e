//go:build js && wasm

package jsapi

import (
	"strings"
	"syscall/js"
	"testing"

	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/wasm/sceneapi"
)

// TestAnEditSharesThePlan: an edit of a program's text area, as the page
// sends it (web/main.js: one statement a line, spaces around), checked
// (spec), shown in the panel (scene), computed (compute) and shown by
// the frame's session (frame.show of the hash spec wrote), reaches one
// plan: the frame's scene and the page's hold the same one.
func TestAnEditSharesThePlan(t *testing.T) {
	src := "placement [[0,1],[2,3]]\nx = input 32,16 (S(0), B)\nw = input 16,8 (B, S(1))  # a comment\ny = matmul x w\ns = sum y 1,1\ngrad s\n"
	req := func(v map[string]any) js.Value { return js.ValueOf(v) }
	out, err := sceneapi.Spec(req(map[string]any{"scene": "program", "fields": map[string]any{"src": "  " + src, "strategy": ""}, "changed": "src"}))
	if err != nil {
		t.Fatal(err)
	}
	r := out.(map[string]any)
	if r["error"] != "" {
		t.Fatalf("spec: %v", r["error"])
	}
	hash := r["hash"].(string)
	if _, err := sceneapi.Scene(req(map[string]any{"hash": hash})); err != nil {
		t.Fatal(err)
	}
	if _, err := compute(req(map[string]any{"hash": hash, "backend": "cpu"})); err != nil {
		t.Fatal(err)
	}
	page, _, _, err := sceneapi.SceneOf(req(map[string]any{"hash": hash}))
	if err != nil {
		t.Fatal(err)
	}
	ex, _ := viz.Example("program")
	frame, err := session.New(ex)
	if err != nil {
		t.Fatal(err)
	}
	shown, _, err := viz.ParseHash(hash)
	if err != nil {
		t.Fatal(err)
	}
	frame.Show(shown)
	if _, err := frame.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(frame.Scene().Spec.Get("src"), "# a comment") {
		t.Errorf("the frame shows %q, not the edit", frame.Scene().Spec.Get("src"))
	}
	if frame.Scene().Model() != page.Model() {
		t.Error("the frame's scene and the page's hold two plans of one edit, want one")
	}
}
