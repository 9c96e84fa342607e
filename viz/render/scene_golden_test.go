package render

import (
	"bytes"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// meshSrc is the gallery's 2-D mesh program (docs/gallery: program-mesh-2d).
const meshSrc = "placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s"

// sceneGoldens are one scene of each kind at one step, as `stridelab draw`
// draws them (at viz.DefaultSize where size is zero); go test
// ./viz/render -update rewrites testdata/scenes.
var sceneGoldens = []struct {
	name string
	spec viz.Spec
	size viz.Size
}{
	{"expand", viz.Spec{Scene: "expand", Values: map[string]string{"shape": "4,1,3", "size": "4,2,3"}, Step: 5}, viz.Size{}},
	{"expand-readers", viz.Spec{Scene: "expand", Values: map[string]string{"shape": "3,1", "size": "2,3,4", "offset": "1"}, Step: 6}, viz.Size{}},
	{"repeat", viz.Spec{Scene: "repeat", Values: map[string]string{"shape": "3,1,5", "times": "5,3,1"}, Step: 12}, viz.Size{}},
	{"binary", viz.Spec{Scene: "binary", Values: map[string]string{"shape": "3,1", "b-shape": "1,4", "op": "add"}, Step: 6}, viz.Size{}},
	{"reduce", viz.Spec{Scene: "reduce", Values: map[string]string{"shape": "2,2,2,2,2", "to": "1,1,2,2,1"}, Step: 3}, viz.Size{}},
	{"view", viz.Spec{Scene: "view", Values: map[string]string{"shape": "3,4", "index": ":, None, 1:3"}, Step: 2}, viz.Size{}},
	{"placement", viz.Spec{Scene: "placement", Values: map[string]string{"shape": "8,6", "sbp": "(S(0), P)", "placement": "[[0,1],[2,3]]"}, Step: 2}, viz.Size{}},
	{"plan", viz.Spec{Scene: "plan", Values: map[string]string{"op": "expand", "shape": "4,3,1,2", "size": "2,4,3,4,2", "sbp": "S(3)", "placement": "2"}, Step: 1}, viz.Size{}},
	{"boxing", viz.Spec{Scene: "boxing", Values: map[string]string{"shape": "25,33", "from": "S(0)", "to": "S(1)", "placement": "4"}, Step: 1}, viz.Size{}},
	{"program", viz.Spec{Scene: "program", Values: map[string]string{"src": "placement 4\nx = input 64,32 S(0)\nw = input 32,16 B\ny = matmul x w\ns = sum y 1,1\ngrad s"}, Step: 8}, viz.Size{}},
	{"program-mesh", viz.Spec{Scene: "program", Values: map[string]string{"src": "placement [[0,1],[2,3]]; x = input 8,6 (S(0), B); w = input 6,4 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s"}, Step: 4}, viz.Size{}},
	// The mesh program on two H100 nodes, with the time axis and the
	// memory lines, at its last step: the plan with the fewest bytes
	// all-reduces w's gradient across the nodes (8.00 KiB, 23.0 µs), the
	// fastest gathers more inside them (20.0 KiB, 13.1 µs); the fastest
	// again on a phone.
	{"program-mesh-cluster-bytes", viz.Spec{Scene: "program", Values: map[string]string{"src": meshSrc, "strategy": "exact", "cluster": "two-h100-nodes", "cost": "bytes", "memory": "show"}, Step: 9}, viz.Size{}},
	{"program-mesh-cluster-time", viz.Spec{Scene: "program", Values: map[string]string{"src": meshSrc, "strategy": "exact", "cluster": "two-h100-nodes", "memory": "show"}, Step: 12}, viz.Size{}},
	{"program-mesh-cluster-time-phone", viz.Spec{Scene: "program", Values: map[string]string{"src": meshSrc, "strategy": "exact", "cluster": "two-h100-nodes", "memory": "show"}, Step: 12}, viz.Size{W: 390, H: 633}},
}

func TestSceneGoldens(t *testing.T) {
	for _, g := range sceneGoldens {
		s, err := viz.Build(g.spec)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		size := g.size
		if size == (viz.Size{}) {
			size = viz.DefaultSize
		}
		f, err := s.Frame(g.spec.Step, size)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		var svg, png bytes.Buffer
		if err := SVG(&svg, f); err != nil {
			t.Fatalf("%s.svg: %v", g.name, err)
		}
		if err := PNG(&png, f); err != nil {
			t.Fatalf("%s.png: %v", g.name, err)
		}
		golden(t, "scenes/"+g.name+".svg", svg.Bytes())
		golden(t, "scenes/"+g.name+".png", png.Bytes())
	}
}
