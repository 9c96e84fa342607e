package viz

import (
	"strings"
	"testing"
)

// gallerySpecs are the scenes the tests draw at every step.
var gallerySpecs = []Spec{
	{Scene: "expand", Values: map[string]string{"shape": "4,1,3", "size": "4,2,3"}},
	{Scene: "expand", Values: map[string]string{"shape": "4,3,1,2", "size": "2,4,3,4,2"}},
	{Scene: "expand", Values: map[string]string{"shape": "3,1", "size": "3,4", "offset": "1"}},
	{Scene: "repeat", Values: map[string]string{"shape": "2,3", "times": "2,2"}},
	{Scene: "binary", Values: map[string]string{"shape": "3,1", "b-shape": "1,4", "op": "add"}},
	{Scene: "reduce", Values: map[string]string{"shape": "2,3,4", "to": "1,3,1"}},
	{Scene: "view", Values: map[string]string{"shape": "4,5", "index": "1:3, ::2"}},
	{Scene: "view", Values: map[string]string{"shape": "2,3,4", "permute": "2,0,1"}},
	{Scene: "placement", Values: map[string]string{"shape": "8,6", "sbp": "(S(0), P)", "placement": "[[0,1],[2,3]]"}},
	{Scene: "plan", Values: map[string]string{"op": "expand", "shape": "4,3,1,2", "size": "2,4,3,4,2", "sbp": "S(3)", "placement": "3"}},
	{Scene: "boxing", Values: map[string]string{"shape": "25,33", "from": "S(0)", "to": "S(1)", "placement": "4"}},
}

func TestEveryStepDraws(t *testing.T) {
	for _, spec := range gallerySpecs {
		s, err := Build(spec)
		if err != nil {
			t.Fatalf("%v: %v", spec, err)
		}
		for step := 0; step < s.Steps; step++ {
			f, err := s.Frame(step, DefaultSize)
			if err != nil || len(f.Items) < 10 {
				t.Fatalf("%v step %d: %d items, %v", spec, step, len(f.Items), err)
			}
			hots, _ := s.Hots(step, DefaultSize)
			if len(hots) == 0 {
				t.Fatalf("%v step %d: nothing to hover", spec, step)
			}
			h := hots[len(hots)/2]
			if got, ok := s.HitTest(step, DefaultSize, h.X+h.W/2, h.Y+h.H/2); !ok || got.Kind != h.Kind {
				t.Fatalf("%v step %d: hit test at the middle of %+v gave %+v", spec, step, h, got)
			}
		}
	}
}

func TestBadSpecsAreClearErrors(t *testing.T) {
	for _, c := range []struct {
		scene  string
		values map[string]string
		step   int
		want   string
	}{
		{"spiral", nil, 0, "unknown scene \"spiral\""},
		{"expand", map[string]string{"shape": "4,1,3"}, 0, "needs --size"},
		{"expand", map[string]string{"shape": "4,1,3", "size": "4,2,3", "times": "2"}, 0, "takes no --times"},
		{"expand", map[string]string{"shape": "4,1,3", "size": "5,2,3"}, 0, "dim 0 has size 4"},
		{"expand", map[string]string{"shape": "4,x", "size": "4,2"}, 0, "not an integer"},
		{"expand", map[string]string{"shape": "4,1,3", "size": "4,2,3"}, 24, "step 24 is out of range: the scene has steps 0 to 23"},
		{"expand", map[string]string{"shape": "3,1", "size": "3,4", "offset": "3"}, 0, "--offset \"3\""},
		{"reduce", map[string]string{"shape": "2,3,1", "to": "1,1,1,1"}, 0, "the target has 4 dims"},
		{"view", map[string]string{"shape": "4,5", "permute": "1,0", "reshape": "21"}, 0, "has 20 elements but the new shape has 21"},
		{"placement", map[string]string{"shape": "8,6", "sbp": "S(2)", "placement": "4"}, 0, "splits axis 2"},
		{"boxing", map[string]string{"shape": "8,6", "from": "S(0)", "to": "Q", "placement": "4"}, 0, "sbp"},
		{"plan", map[string]string{"op": "conv", "shape": "4", "sbp": "B", "placement": "2"}, 0, "the ops are expand"},
	} {
		spec, err := ParseSpec(c.scene, c.values, c.step)
		if err == nil {
			_, err = Build(spec)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v step %d: %v; want one line containing %q", c.scene, c.values, c.step, err, c.want)
		}
	}
}

// TestHugeViewsAreElided: a scene of a view of 10¹⁸ elements lays out a
// few dozen cells and never materializes anything.
func TestHugeViewsAreElided(t *testing.T) {
	s, err := Build(Spec{Scene: "expand", Values: map[string]string{"shape": "1", "size": "1000000000,1000000000"}})
	if err != nil {
		t.Fatal(err)
	}
	m := s.Model().(*IndexModel)
	if len(m.Cells) > 12*12 || m.Cells[len(m.Cells)-1].Index[0] != 999999999 {
		t.Fatalf("%d cells, last %v: want the first and last few with true indices", len(m.Cells), m.Cells[len(m.Cells)-1].Index)
	}
	if _, err := s.Frame(s.Steps-1, DefaultSize); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkBuildHugeScene(b *testing.B) {
	spec := Spec{Scene: "expand", Values: map[string]string{"shape": "1", "size": "1000000000,1000000000"}}
	for b.Loop() {
		s, err := Build(spec)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Frame(0, DefaultSize); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildFrame64x64Expand(b *testing.B) {
	s, err := Build(Spec{Scene: "expand", Values: map[string]string{"shape": "64,1", "size": "64,64"}})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		if _, err := s.Frame(i%s.Steps, DefaultSize); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHoverFocus is a front end's hover: a new focus every frame on a
// 64×64 expand (FrameFocus redraws; HitTest takes the cached frame).
func BenchmarkHoverFocus(b *testing.B) {
	s, err := Build(Spec{Scene: "expand", Values: map[string]string{"shape": "64,1", "size": "64,64"}})
	if err != nil {
		b.Fatal(err)
	}
	hots, _ := s.Hots(0, DefaultSize)
	for i := 0; b.Loop(); i++ {
		h := hots[i%len(hots)]
		f := h.Focus
		if _, err := s.FrameFocus(0, &f, DefaultSize); err != nil {
			b.Fatal(err)
		}
		if _, ok := s.HitTest(0, DefaultSize, h.X+1, h.Y+1); !ok {
			b.Fatal("nothing under a hot region")
		}
	}
}
