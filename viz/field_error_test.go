package viz

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

// TestEveryFieldsBadValueIsBlamedOnIt: for every key of every scene, a bad
// value typed into that field is blamed on it, whoever found the fault
// (viz, tensor or sbp, each in its own words). A value that is bad on its
// own is blamed on its field whatever was typed last; a value that is bad
// only beside another field's (a size that shape cannot expand to) is
// blamed on the field just typed.
func TestEveryFieldsBadValueIsBlamedOnIt(t *testing.T) {
	cases := []struct {
		scene, key, value string
		with              map[string]string // other fields changed first
		alone             bool              // bad on its own: blamed even when nothing was typed
		finder            string            // the package whose words the message keeps
	}{
		{"expand", "shape", "4,x,3", nil, true, "tensor"},
		{"expand", "shape", "4,3,3", nil, false, "tensor"},
		{"expand", "size", "4,y", nil, true, "tensor"},
		{"expand", "size", "5,2,3", nil, false, "tensor"},
		{"expand", "offset", "12", nil, true, "viz"},
		{"repeat", "shape", "-1", nil, true, "tensor"},
		{"repeat", "times", "2,x", nil, true, "tensor"},
		{"repeat", "times", "3", nil, false, "tensor"},
		{"repeat", "offset", "a", nil, true, "viz"},
		{"binary", "shape", "3,,1", nil, true, "tensor"},
		{"binary", "shape", "3,2", nil, false, "tensor"},
		{"binary", "b-shape", "5,4", nil, false, "tensor"},
		{"binary", "b-shape", "1;4", nil, true, "tensor"},
		{"binary", "op", "pow", nil, true, "tensor"},
		{"binary", "offset", "-1", nil, true, "viz"},
		{"reduce", "shape", "2,3,x", nil, true, "tensor"},
		{"reduce", "shape", "2,2,4", nil, false, "tensor"},
		{"reduce", "to", "1,2,1", nil, false, "tensor"},
		{"reduce", "op", "mean", nil, true, "tensor"},
		{"view", "shape", "4,-5", nil, true, "tensor"},
		{"view", "index", "9", nil, false, "tensor"},
		{"view", "index", "1::0", nil, true, "tensor"},
		{"view", "permute", "0,0", nil, false, "tensor"},
		{"view", "permute", "a", nil, true, "tensor"},
		{"view", "reshape", "3,7", nil, false, "tensor"},
		{"view", "reshape", "3,b", nil, true, "tensor"},
		{"view", "offset", "100", nil, true, "viz"},
		{"placement", "shape", "8,x", nil, true, "tensor"},
		{"placement", "sbp", "Q", nil, true, "sbp"},
		{"placement", "sbp", "(S(7), B)", nil, false, "sbp"},
		{"placement", "placement", "0-", nil, true, "sbp"},
		{"placement", "placement", "4", nil, false, "sbp"},
		{"plan", "op", "conv", nil, true, "viz"}, // ParseOp, the CLI's and the scene's words for single ops
		{"plan", "shape", "x", nil, true, "tensor"},
		{"plan", "sbp", "S(9)", nil, false, "sbp"},
		{"plan", "placement", "abc", nil, true, "sbp"},
		{"plan", "size", "a,b", nil, true, "tensor"},
		{"plan", "size", "2,4,4,4,2", nil, false, "tensor"},
		{"plan", "times", "x", map[string]string{"op": "repeat", "size": ""}, true, "tensor"},
		{"plan", "to", "x", map[string]string{"op": "reduce", "size": ""}, true, "tensor"},
		{"plan", "reduce", "mean", map[string]string{"op": "reduce", "size": "", "to": "1,3,1,2"}, true, "tensor"},
		{"plan", "permute", "0,0", map[string]string{"op": "permute", "size": "", "shape": "4,3"}, false, "sbp"},
		{"plan", "dim", "2", map[string]string{"op": "softmax", "size": "", "shape": "4,3"}, false, "sbp"},
		{"plan", "dim", "x", map[string]string{"op": "softmax", "size": ""}, true, "tensor"},
		{"plan", "permute", "x", map[string]string{"op": "permute", "size": ""}, true, "tensor"},
		{"plan", "b-shape", "x", map[string]string{"op": "add", "size": ""}, true, "tensor"},
		{"plan", "b-sbp", "Q", map[string]string{"op": "add", "size": "", "b-shape": "4,3,1,2"}, true, "sbp"},
		{"boxing", "shape", "x", nil, true, "tensor"},
		{"boxing", "from", "Q", nil, true, "sbp"},
		{"boxing", "from", "S(5)", nil, false, "sbp"},
		{"boxing", "to", "Q", nil, true, "sbp"},
		{"boxing", "to", "S(2)", nil, false, "sbp"},
		{"boxing", "placement", "x", nil, true, "sbp"},
		{"program", "src", "placement 4; x = input 8 B; y = frob x", nil, true, "program"},
		{"program", "src", "placement 4; x = input 8,4 S(0); w = input 5,3 B; y = matmul x w", nil, true, "program"},
		{"program", "strategy", "best", nil, true, "program"},
		{"program", "cluster", "dgx-9000", nil, true, "cluster dgx-9000"},
		{"program", "cluster", `{"name": "x", "links": [], "device": {}}`, nil, true, "cluster"},
		{"program", "cluster", "tpu-v5e", nil, false, "cluster tpu-v5e"}, // a 2-D cluster on placement 4; cluster names its source
		{"program", "cost", "speed", nil, true, "program"},
		{"program", "cost", "time", nil, false, "viz"}, // no cluster to time on
		{"program", "memory", "some", nil, true, "viz"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.scene+" "+c.key] = true
		ex, _ := Example(c.scene)
		values := maps.Clone(ex.Values)
		maps.Copy(values, c.with)
		values[c.key] = c.value
		spec, err := ParseSpec(c.scene, values, 0)
		if err == nil {
			_, err = Build(spec)
		}
		if err == nil {
			t.Errorf("%s --%s %q: built; want an error", c.scene, c.key, c.value)
			continue
		}
		if got := Blame(err, c.key); got != c.key {
			t.Errorf("%s --%s %q: typed there, blamed on %q: %v", c.scene, c.key, c.value, got, err)
		}
		if got := Blame(err, ""); c.alone && got != c.key {
			t.Errorf("%s --%s %q: with nothing typed, blamed on %q: %v", c.scene, c.key, c.value, got, err)
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Error() != fe.Err.Error() {
			t.Errorf("%s --%s %q: %v is no FieldError keeping its finder's words", c.scene, c.key, c.value, err)
		}
		if !strings.HasPrefix(err.Error(), c.finder+": ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s --%s %q: %q: want one line in %s's words", c.scene, c.key, c.value, err, c.finder)
		}
	}
	for _, k := range Kinds() {
		for _, key := range k.Keys() {
			if !covered[k.Name+" "+key.Name] {
				t.Errorf("no bad value of %s --%s is tried", k.Name, key.Name)
			}
		}
	}
}

// TestMissingAndUnknownFieldsAreBlamed: a required field left empty and a
// field the scene does not take are blamed on that field.
func TestMissingAndUnknownFieldsAreBlamed(t *testing.T) {
	if _, err := ParseSpec("expand", map[string]string{"shape": "4,1,3"}, 0); Blame(err, "shape") != "size" {
		t.Errorf("expand without --size: %v, blamed on %q; want size", err, Blame(err, "shape"))
	}
	if _, err := ParseSpec("expand", map[string]string{"shape": "4,1,3", "size": "4,2,3", "times": "2"}, 0); Blame(err, "") != "times" {
		t.Errorf("expand --times: %v, blamed on %q; want times", err, Blame(err, ""))
	}
	if got := Blame(errors.New("something else"), "size"); got != "size" {
		t.Errorf("an error about no field is blamed on %q, want the field typed (size)", got)
	}
}
