package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

func newSession(t *testing.T, scene string, values map[string]string, step int) *Session {
	t.Helper()
	spec, err := viz.ParseSpec(scene, values, step)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBadFieldsKeepTheLastGoodScene(t *testing.T) {
	cases := []struct {
		key, value, field, mention string
	}{
		{"shape", "4,x,3", "shape", `"x"`},
		{"shape", "4,5,3", "shape", "[4 5 3]"}, // an impossible expand names both shapes
		{"size", "4,2,3,-5", "size", "-5"},     // a negative size
		{"shape", "", "shape", "--shape"},      // a required field left empty
		{"size", "1e400", "size", "1e400"},     // not an integer
		{"offset", "99", "offset", "--offset"}, // past the storage
		{"shape", "4,1,3)", "shape", "4,1,3)"},
	}
	for _, c := range cases {
		s := newSession(t, "expand", map[string]string{"shape": "4,1,3", "size": "4,2,3"}, 2)
		good := s.Scene()
		s.SetField(c.key, c.value)
		key, err := s.Err()
		if err == nil || key != c.field || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("--%s %q: error %v on %q; want one line on %s mentioning %s", c.key, c.value, err, key, c.field, c.mention)
		}
		if s.Scene() != good || s.Step() != 2 {
			t.Errorf("--%s %q: the last good scene should stay at step 2 (step %d)", c.key, c.value, s.Step())
		}
		s.SetField(c.key, map[string]string{"shape": "4,1,3", "size": "4,2,3", "offset": ""}[c.key])
		if _, err := s.Err(); err != nil {
			t.Errorf("--%s restored: still %v", c.key, err)
		}
	}
}

// TestClusterField: the program's cluster field plans on the cluster it
// names, a cluster that is no preset is an error on that field while the
// last good scene stays, and the cost applies only beside a cluster: a
// cost of time left over when the cluster goes back to none is no value.
func TestClusterField(t *testing.T) {
	s := newSession(t, "program", map[string]string{"src": "placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s", "strategy": "exact"}, 0)
	s.SetField("cluster", "two-h100-nodes")
	if _, err := s.Err(); err != nil || !strings.Contains(s.Spec().String(), "--cluster two-h100-nodes") || !strings.HasSuffix(s.Scene().Title, "13.1 µs on two-h100-nodes") {
		t.Fatalf("cluster two-h100-nodes: %v, scene %q; want the fastest plan on it (13.1 µs)", err, s.Scene().Title)
	}
	s.SetField("cost", "bytes")
	if !strings.HasSuffix(s.Scene().Title, "8.00 KiB, 23.0 µs on two-h100-nodes") {
		t.Errorf("cost bytes: %q; want the plan of fewest bytes (23.0 µs)", s.Scene().Title)
	}
	good := s.Scene()
	s.SetField("cluster", "dgx-9000")
	if key, err := s.Err(); key != "cluster" || err == nil || !strings.Contains(err.Error(), "cluster dgx-9000: no preset of that name") || s.Scene() != good {
		t.Errorf("cluster dgx-9000: error %v on %q; want it on cluster, naming it, and the last good scene", err, key)
	}
	s.SetField("cost", "time")
	s.SetField("cluster", "none")
	if _, err := s.Err(); err != nil || strings.Contains(s.Spec().String(), "--cost") || strings.Contains(s.Scene().Title, "µs") {
		t.Errorf("cluster none beside cost time: %v, scene %q; want the plan in bytes, no cost sent", err, s.Spec())
	}
}

func TestSceneSwitchUsesTheWorkedExample(t *testing.T) {
	s := newSession(t, "expand", map[string]string{"shape": "4,1,3", "size": "4,2,3"}, 0)
	for _, name := range viz.Scenes {
		if err := s.SetScene(name); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Err(); err != nil || s.Scene().Spec.Scene != name {
			t.Errorf("scene %s: %v, showing %s", name, err, s.Scene().Spec.Scene)
		}
		for _, k := range s.Keys()[:1] {
			if s.Field(k.Name) == "" {
				t.Errorf("scene %s: its first field %s is empty", name, k.Name)
			}
		}
	}
	if err := s.SetScene("nope"); err == nil || !strings.Contains(err.Error(), "expand") {
		t.Errorf("an unknown scene: %v; want the scenes listed", err)
	}
}

func TestClockStepsAndStops(t *testing.T) {
	s := newSession(t, "expand", map[string]string{"shape": "4,1,3", "size": "4,2,3"}, 0) // 24 steps
	s.TogglePlay()
	for i := 0; i < 60; i++ { // one second at 60 ticks
		s.Tick(1.0 / 60)
	}
	if got := s.Step(); got != int(DefaultSpeed) {
		t.Errorf("after 1 s at %v steps/s: step %d", DefaultSpeed, got)
	}
	for i := 0; i < 600; i++ {
		s.Tick(1.0 / 60)
	}
	if s.Step() != s.Steps()-1 || s.Playing() {
		t.Errorf("after 11 s: step %d of %d, playing %v; want stopped on the last step", s.Step(), s.Steps(), s.Playing())
	}
	s.TogglePlay() // from the end: start over
	if s.Step() != 0 || !s.Playing() {
		t.Errorf("play at the end: step %d playing %v; want step 0 playing", s.Step(), s.Playing())
	}
	s.Do(StepForward, 940, 668)
	s.Do(StepForward, 940, 668)
	s.Do(StepBack, 940, 668)
	if s.Step() != 1 || s.Playing() {
		t.Errorf("step keys: step %d playing %v; want 1 and paused", s.Step(), s.Playing())
	}
	s.Do(FirstStep, 0, 0)
	s.Do(StepBack, 0, 0)
	if s.Step() != 0 {
		t.Errorf("back from the first step: %d", s.Step())
	}
	s.Do(LastStep, 0, 0)
	if s.Step() != s.Steps()-1 {
		t.Errorf("last step: %d", s.Step())
	}
	s.SetSpeed(1000)
	if s.Speed() != 60 {
		t.Errorf("speed clamps to 60, got %v", s.Speed())
	}
}

func TestHoverPinAndHitTestThroughZoom(t *testing.T) {
	s := newSession(t, "expand", map[string]string{"shape": "4,1,3", "size": "4,2,3"}, 0)
	sz := viz.Size{W: 940, H: 668}
	target := viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: []int{2, 1, 0}}
	for _, zoom := range []float64{1, 2.5, 0.5} {
		s.ResetView()
		s.ZoomAt(zoom, 300, 200)
		s.Pan(13, -7)
		x, y, err := s.Locate(sz, target)
		if err != nil {
			t.Fatal(err)
		}
		h, ok := s.HitTest(sz, x, y)
		if !ok || !h.Focus.Equal(target) {
			t.Errorf("zoom %v: the point Locate gives hits %+v, want %v", zoom, h, target)
		}
	}
	s.Hover(&target)
	if f := s.Focus(); f == nil || !f.Equal(target) {
		t.Errorf("hover: focus %v", f)
	}
	other := viz.Focus{Kind: viz.FocusStorage, Operand: "x", Offset: 4}
	s.Click(&other)
	s.Hover(&target)
	if f := s.Focus(); f == nil || !f.Equal(other) {
		t.Errorf("a pin wins over the hover: focus %v", f)
	}
	s.Click(&other) // clicking the pinned thing unpins
	if s.Pinned() != nil {
		t.Errorf("a second click should unpin")
	}
	if _, _, err := s.Locate(sz, viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: []int{9, 9, 9}}); err == nil {
		t.Errorf("locating a cell that is not drawn should fail")
	}
	v := Identity.ZoomAt(1000, 0, 0)
	if v.Zoom != MaxZoom {
		t.Errorf("zoom clamps to %v, got %v", MaxZoom, v.Zoom)
	}
}

func TestParseScript(t *testing.T) {
	good := "# a comment\n\nwait 3\nsweep 10\nhover out 1,2,0\nhover storage x 5\nhover device 2\nhover step 3\nhover x 0,1\nmove 10 20\nclick\ndrag 5 -5\nkey space\nkey shift+left\nscene boxing\nfield shape\ntype 4,x\nscreenshot a.png\nstate s.json\n"
	evs, err := ParseScript(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 17 || evs[0].Line != 3 || evs[2].Focus.Index[1] != 2 || evs[3].Focus.Offset != 5 || evs[4].Focus.Rank != 2 ||
		evs[5].Focus.Kind != viz.FocusStep || evs[5].Focus.Offset != 2 {
		t.Errorf("parsed %+v", evs)
	}
	for _, bad := range []string{"wait x", "wait -1", "hover", "hover storage x", "hover device z", "hover step 0", "hover out 1,x", "move 1", "click now", "key f13", "scene nope", "field nope", "screenshot", "jump 3"} {
		_, err := ParseScript(strings.NewReader("wait 1\n" + bad + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: %v; want an error naming line 2", bad, err)
		}
	}
}

// Typed input never panics, and the session always shows a scene that
// built, with at most a one-line error.
func FuzzTypedFields(f *testing.F) {
	for _, seed := range []string{"4,1,3", "", "-1", "4,x", "(S(0), P)", "[[0,1],[2,3]]", "1:3, None", "99999999999999999999", "0", "1e9,1e9", "S(9)", "P(max)", "-1,-1,-1"} {
		f.Add("expand", "shape", seed)
		f.Add("placement", "sbp", seed)
		f.Add("view", "index", seed)
		f.Add("boxing", "placement", seed)
	}
	f.Fuzz(func(t *testing.T, scene, key, value string) {
		s, err := New(mustExample("expand"))
		if err != nil {
			t.Fatal(err)
		}
		_ = s.SetScene(scene)
		s.SetField(key, value)
		if _, err := s.Err(); err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s --%s %q: a multi-line error %q", scene, key, value, err)
		}
		if _, err := s.Frame(viz.Size{W: 940, H: 668}); err != nil {
			t.Errorf("%s --%s %q: the scene on screen does not draw: %v", scene, key, value, err)
		}
		_ = s.Report()
	})
}

// Any script text parses or fails with an error naming its line; nothing panics.
func FuzzParseScript(f *testing.F) {
	for _, seed := range []string{"wait 3\nhover out 1,2\nclick", "lesson expand-repeat 2", "key shift+left", "hover storage x -1", "type \x00", "drag 1e309 2"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, err := ParseScript(strings.NewReader(text))
		if err != nil && !strings.Contains(err.Error(), "line ") && !strings.Contains(err.Error(), "too long") {
			t.Errorf("%q: %v names no line", text, err)
		}
	})
}

// mustExample is scene's worked example.
func mustExample(scene string) viz.Spec {
	ex, ok := viz.Example(scene)
	if !ok {
		panic("no worked example of " + scene)
	}
	return ex
}

// A program's step column is hot under the devices' shards drawn in it:
// Locate finds a point of the column the hit test gives as the step, not
// the shard over its centre.
func TestLocateFindsACoveredRegion(t *testing.T) {
	s := newSession(t, "program", map[string]string{"src": "placement 4; x = input 16,8 S(0); w = input 8,4 B; y = matmul x w; s = sum y 1,1; grad s"}, 2)
	sz := viz.Size{W: 940, H: 668}
	hots, err := s.Scene().Hots(s.Step(), sz)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, h := range hots {
		if h.Kind != viz.FocusStep {
			continue
		}
		steps++
		target := h.Focus
		x, y, err := s.Locate(sz, target)
		if err != nil {
			t.Fatal(err)
		}
		if h, ok := s.HitTest(sz, x, y); !ok || !h.Focus.Equal(target) {
			t.Errorf("the point Locate gives for %v hits %+v", target, h.Focus)
		}
	}
	if steps < 4 {
		t.Errorf("only %d step columns drawn", steps)
	}
}

// TestWordsSayWhatTheFocusMeans: the state's words are the scene's
// description of the focus, and name only the focus while a lesson's
// question is open.
func TestWordsSayWhatTheFocusMeans(t *testing.T) {
	s, err := New(mustExample("expand"))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.State().Words; w != "" {
		t.Errorf("nothing focused, words %q", w)
	}
	f := &viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: []int{2, 1, 2}}
	s.Hover(f)
	want, _ := s.Scene().Describe(s.Step(), *f)
	if w := s.State().Words; w != want || w != "out[2,1,2] reads x[8]" {
		t.Errorf("hovering out[2,1,2]: words %q, want %q", w, want)
	}
}

// TestOverviewClickJumps: on a program of more steps than columns, a
// click on the overview's slice of a step far from the one shown jumps
// there, pinned, and stops playing; the state names the statement
// behind the new step, which the playground keeps in view.
func TestOverviewClickJumps(t *testing.T) {
	var b strings.Builder
	b.WriteString("placement 4; x = input 64,32 S(0); w = input 32,32 B")
	prev := "x"
	for i := range 40 {
		fmt.Fprintf(&b, "; h%d = matmul %s w", i, prev)
		prev = fmt.Sprintf("h%d", i)
	}
	fmt.Fprintf(&b, "; s = sum %s 1,1; grad s", prev)
	s := newSession(t, "program", map[string]string{"src": b.String()}, 0)
	sz := viz.Size{W: 940, H: 668}
	s.TogglePlay()
	var jump *viz.Hot
	hots, err := s.Scene().Hots(s.Step(), sz)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hots {
		if h.Operand == viz.OverviewOperand && h.Offset >= 10 {
			jump = &hots[i]
			break
		}
	}
	if jump == nil {
		t.Fatal("no overview slice past step 10")
	}
	hit, ok := s.HitTest(sz, jump.X+jump.W/2, jump.Y+jump.H/2)
	if !ok || hit.Operand != viz.OverviewOperand {
		t.Fatalf("the slice's middle hits %+v", hit)
	}
	s.Click(&hit.Focus)
	st := s.State()
	if st.Step != jump.Offset || st.Playing || st.Pinned == nil || st.Pinned.Kind != viz.FocusStep || st.Pinned.Offset != jump.Offset {
		t.Errorf("after the click: step %d, playing %v, pinned %+v; want step %d, paused, pinned", st.Step, st.Playing, st.Pinned, jump.Offset)
	}
	if want := s.Scene().Statement(jump.Offset); st.Statement != want || want < 3 {
		t.Errorf("the state's statement is %d, the scene's %d", st.Statement, want)
	}
}
