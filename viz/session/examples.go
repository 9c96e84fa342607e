package session

import "github.com/stridelab/stridelab/viz"

// Examples are the worked example each scene starts from when picked
// from a menu: the source documents' own (OneFlow's expand and repeat,
// the MXNet/TVM reduce pattern, DL4J's views, the consistent view's
// placements and boxing), small enough to read every cell.
var Examples = map[string]viz.Spec{
	"expand":    {Scene: "expand", Values: map[string]string{"shape": "4,1,3", "size": "4,2,3"}},
	"repeat":    {Scene: "repeat", Values: map[string]string{"shape": "3,1", "times": "2,1,3"}},
	"binary":    {Scene: "binary", Values: map[string]string{"shape": "3,1", "b-shape": "1,4", "op": "add"}},
	"reduce":    {Scene: "reduce", Values: map[string]string{"shape": "2,3,4", "to": "1,3,1", "op": "sum"}},
	"view":      {Scene: "view", Values: map[string]string{"shape": "4,5", "index": "1:4:2, 2"}},
	"placement": {Scene: "placement", Values: map[string]string{"shape": "8,6", "sbp": "(S(0), P)", "placement": "[[0,1],[2,3]]"}},
	"plan":      {Scene: "plan", Values: map[string]string{"op": "expand", "shape": "4,3,1,2", "size": "2,4,3,4,2", "sbp": "S(3)", "placement": "2"}},
	"boxing":    {Scene: "boxing", Values: map[string]string{"shape": "25,33", "from": "S(0)", "to": "S(1)", "placement": "4"}},
}
