package desktoptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

// The window is 1280×720 with the sidebar (340 px) on the left and the
// transport bar (52 px) at the bottom: the scene is drawn in the rest.
var sceneRect = image.Rect(340, 0, 1280, 720-52)

// Tolerance of a window's scene against the headless PNG of the same
// frame. Text is drawn from the same glyph masks in both; what differs is
// anti-aliasing of shapes (the window fills rects and draws lines and
// hatching as triangles without it), so the means measured are
// 0.2–1.7/255 (the most where hatching covers a mesh: the placement's
// partial shards, 1.67 since the devices' boxes fit their shards) with
// 0.1–0.5% of pixels far off. A frame one step apart (one cell and one
// formula changed) measures 1.2–2.5/255 with 1.3–3.5% far off: outside
// the far tolerance, which is what tells frames apart, and each
// comparison also checks that the window is clearly closer to its own
// frame than to its neighbour's.
const (
	maxMean = 2.0
	maxFar  = 0.008
)

var desktop string // the built app

// skipWhy says why the app cannot be given a display here ("" when it
// can): each test skips saying so, or fails under
// STRIDELAB_REQUIRE_DISPLAY (set it to 1).
var skipWhy string

func TestMain(m *testing.M) {
	if skipWhy = noDisplay(); skipWhy != "" {
		os.Exit(m.Run()) // the app is not built: every test skips or fails in needDisplay
	}
	dir, err := os.MkdirTemp("", "desktoptest")
	if err != nil {
		panic(err)
	}
	desktop = filepath.Join(dir, "stridelab-desktop")
	build := exec.Command("go", "build", "-o", desktop, "github.com/stridelab/stridelab/native/cmd/stridelab-desktop")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "desktoptest: building the app: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// noDisplay says why the tests cannot give the app a display, or "": they
// run it under xvfb-run (so the session's own DISPLAY is not used), which
// needs Xvfb and xauth.
func noDisplay() string {
	var missing []string
	for _, prog := range []string{"xvfb-run", "Xvfb", "xauth"} {
		if _, err := exec.LookPath(prog); err != nil {
			missing = append(missing, prog)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("no display for the desktop app: %s not found (apt-get install xvfb xauth, or make deps)", strings.Join(missing, ", "))
}

// needDisplay skips t, saying why, where the app cannot have a display,
// and fails it instead when STRIDELAB_REQUIRE_DISPLAY is set.
func needDisplay(t *testing.T) {
	t.Helper()
	if skipWhy == "" {
		return
	}
	if os.Getenv("STRIDELAB_REQUIRE_DISPLAY") != "" {
		t.Fatalf("%s, and STRIDELAB_REQUIRE_DISPLAY requires one", skipWhy)
	}
	t.Skipf("%s; set STRIDELAB_REQUIRE_DISPLAY=1 to fail instead", skipWhy)
}

// runApp runs the app under Xvfb with args and fails the test on a
// non-zero exit.
func runApp(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("xvfb-run", append([]string{"-a", "-s", "-screen 0 1280x720x24", desktop}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("stridelab-desktop %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// headless is the headless renderer's picture of the scene's frame.
func headless(t *testing.T, s *viz.Scene, step int, f *viz.Focus) image.Image {
	t.Helper()
	fr, err := s.FrameFocus(step, f, viz.Size{W: sceneRect.Dx(), H: sceneRect.Dy()})
	if err != nil {
		t.Fatal(err)
	}
	return render.Raster(fr)
}

func build(t *testing.T, scene string, flags map[string]string, step int) *viz.Scene {
	t.Helper()
	spec, err := viz.ParseSpec(scene, flags, step)
	if err != nil {
		t.Fatal(err)
	}
	s, err := viz.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func args(scene string, flags map[string]string, step int) []string {
	a := []string{scene, "--step", fmt.Sprint(step), "--backend", "cpu"}
	for k, v := range flags {
		a = append(a, "--"+k, v)
	}
	return a
}

// The window's scene agrees with the headless PNG of the same scene and
// step, and disagrees with the next step's (or a focused device's).
func TestScreenshotsMatchHeadless(t *testing.T) {
	needDisplay(t)
	cases := []struct {
		scene string
		flags map[string]string
		step  int
	}{
		{"expand", map[string]string{"shape": "4,1,3", "size": "4,2,3"}, 5},
		{"repeat", map[string]string{"shape": "3,1", "times": "2,1,3"}, 7},
		{"reduce", map[string]string{"shape": "2,3,4", "to": "1,3,1"}, 1},
		{"placement", map[string]string{"shape": "8,6", "sbp": "(S(0), P)", "placement": "[[0,1],[2,3]]"}, 0},
		{"boxing", map[string]string{"shape": "25,33", "from": "S(0)", "to": "S(1)", "placement": "4"}, 1},
		// The data-parallel program in its backward (x's transpose, with
		// x's gradient beside it). Its shards' 1-pixel outlines fall at
		// fractional x (the columns share the width), where the window's
		// unsmoothed lines land a pixel off the headless ones: 0.65-0.85%
		// of pixels far off from step to step, the most of any scene.
		{"program", map[string]string{"src": dataParallel}, 8},
	}
	for _, c := range cases {
		t.Run(c.scene, func(t *testing.T) {
			t.Parallel()
			shot := filepath.Join(t.TempDir(), c.scene+".png")
			runApp(t, append(args(c.scene, c.flags, c.step), "--screenshot", shot, "--frames", "3")...)
			got := readPNG(t, shot)
			s := build(t, c.scene, c.flags, c.step)
			d, err := Compare(headless(t, s, c.step, nil), got, sceneRect)
			if err != nil {
				t.Fatal(err)
			}
			if d.Mean > maxMean || d.Far > maxFar {
				t.Errorf("%s step %d: the window and the headless PNG differ: %v (tolerance mean %.1f, far %.1f%%)", s.Spec, c.step, d, maxMean, 100*maxFar)
			}
			// The negative control: another frame of the same scene (the
			// next step, or a device lit) must be clearly further.
			other := headless(t, s, (c.step+1)%s.Steps, nil)
			if s.Steps == 1 {
				other = headless(t, s, c.step, &viz.Focus{Kind: viz.FocusDevice, Rank: 1})
			}
			od, _ := Compare(other, got, sceneRect)
			if !d.Closer(od) {
				t.Errorf("%s: the window is not clearly closer to its own frame (%v) than to another frame of the scene (%v)", s.Spec, d, od)
			}
			t.Logf("%s step %d: %v; another frame: %v", c.scene, c.step, d, od)
		})
	}
}

// dataParallel is the gallery's data-parallel linear layer, one
// statement a line and with a comment, as a file would hold it.
const dataParallel = "placement 4\nx = input 64,32 S(0)  # the batch, split by rows\nw = input 32,16 B\ny = matmul x w\ns = sum y 1,1\ngrad s"

type appState struct {
	session.State
	Results string `json:"results"`
}

func readState(t *testing.T, path string) appState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s appState
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// A script hovers a cell, pins it, steps, types a bad shape, an
// impossible expand and an oversized one, then a good shape: the window
// shows each as expected and the app keeps working.
func TestScriptDrivesTheApp(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	script := strings.Join([]string{
		"wait 2",
		"hover out 1,1,2",
		"wait 1",
		"screenshot " + p("hover.png"),
		"state " + p("hover.json"),
		"click",
		"key .",
		"wait 1",
		"screenshot " + p("pinned.png"),
		"state " + p("pinned.json"),
		"field shape",
		"type 4,x,3",
		"wait 2",
		"screenshot " + p("bad.png"),
		"state " + p("bad.json"),
		"type 4,5,3",
		"wait 1",
		"state " + p("impossible.json"),
		"field size",
		"type 4,100000,100000,3",
		"field shape",
		"type 1",
		"wait 30",
		"state " + p("oversized.json"),
		"field shape",
		"type 4,1,1",
		"field size",
		"type 4,2,3",
		"wait 1",
		"state " + p("fixed.json"),
	}, "\n")
	if err := os.WriteFile(p("script.txt"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := map[string]string{"shape": "4,1,3", "size": "4,2,3"}
	runApp(t, append(args("expand", flags, 3), "--script", p("script.txt"), "--max-bytes", "1MiB")...)
	s := build(t, "expand", flags, 3)
	focus := viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: []int{1, 1, 2}}

	hover := readState(t, p("hover.json"))
	if hover.Hover == nil || fmt.Sprint(*hover.Hover) != fmt.Sprint(focus) || hover.Pinned != nil || hover.Step != 3 {
		t.Errorf("after hovering out [1 1 2]: hover %v, pinned %v, step %d; want the hover on that cell at step 3, nothing pinned", hover.Hover, hover.Pinned, hover.Step)
	}
	hoverPNG := readPNG(t, p("hover.png"))
	d, _ := Compare(headless(t, s, 3, &focus), hoverPNG, sceneRect)
	unlit, _ := Compare(headless(t, s, 3, nil), hoverPNG, sceneRect)
	if d.Mean > maxMean || d.Far > maxFar || !d.Closer(unlit) {
		t.Errorf("hovering out [1 1 2]: the window (%v from the frame with that cell lit, %v from the unlit frame) should show the cell lit", d, unlit)
	}
	pinned := readState(t, p("pinned.json"))
	if pinned.Pinned == nil || fmt.Sprint(*pinned.Pinned) != fmt.Sprint(focus) || pinned.Step != 4 || pinned.Playing {
		t.Errorf("after click and \".\": pinned %v, step %d, playing %v; want out [1 1 2] pinned, step 4, paused", pinned.Pinned, pinned.Step, pinned.Playing)
	}
	if d, _ := Compare(headless(t, s, 4, &focus), readPNG(t, p("pinned.png")), sceneRect); d.Mean > maxMean || d.Far > maxFar {
		t.Errorf("pinned at step 4: the window is not the headless frame: %v", d)
	}
	bad := readState(t, p("bad.json"))
	if bad.Error == "" || bad.ErrorField != "shape" || !strings.Contains(bad.Spec, "--shape '4,1,3'") || strings.Contains(bad.Error, "\n") {
		t.Errorf("after typing shape 4,x,3: error %q on field %q, scene %q; want one line on shape and the last good scene", bad.Error, bad.ErrorField, bad.Spec)
	}
	if d, _ := Compare(headless(t, s, 4, &focus), readPNG(t, p("bad.png")), sceneRect); d.Mean > maxMean || d.Far > maxFar {
		t.Errorf("after a bad shape the last good scene should stay: %v", d)
	}
	if n := redPixels(readPNG(t, p("bad.png")), image.Rect(0, 0, 340, 300)); n < 40 {
		t.Errorf("after a bad shape the sidebar shows %d error-red pixels; the error should be written in place", n)
	}
	impossible := readState(t, p("impossible.json"))
	if !strings.Contains(impossible.Error, "[4 5 3]") || !strings.Contains(impossible.Spec, "--shape '4,1,3'") {
		t.Errorf("expand [4 5 3] to [4 2 3]: error %q, scene %q; want the shapes named and the last good scene", impossible.Error, impossible.Spec)
	}
	oversized := readState(t, p("oversized.json"))
	if oversized.Error != "" || !strings.Contains(oversized.Spec, "--size '4,100000,100000,3'") || !strings.Contains(oversized.Results, "limit") {
		t.Errorf("expand [1] to [4 100000 100000 3] with --max-bytes 1MiB: error %q, scene %q, results %q; want the view drawn and the compute refused against the limit", oversized.Error, oversized.Spec, oversized.Results)
	}
	fixed := readState(t, p("fixed.json"))
	if fixed.Error != "" || !strings.Contains(fixed.Spec, "--shape '4,1,1' --size '4,2,3'") {
		t.Errorf("after fixing the fields: error %q, scene %q; want no error and the new scene", fixed.Error, fixed.Spec)
	}
}

// The keyboard alone: the first arrow focuses the first output cell, the
// arrows walk on (right at a row's end to the next row), the focused cell
// is lit in the window as a hover is and its words (Scene.Describe) head
// the results panel; Enter pins it, "." steps with it pinned, Escape
// unpins.
func TestScriptWalksTheKeys(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	script := strings.Join([]string{
		"wait 2",
		"key down",
		"key right",
		"key right",
		"key right",
		"wait 1",
		"screenshot " + p("keys.png"),
		"state " + p("keys.json"),
		"key enter",
		"key .",
		"wait 1",
		"state " + p("pinned.json"),
		"key escape",
		"key pagedown",
		"wait 1",
		"state " + p("unpinned.json"),
	}, "\n")
	if err := os.WriteFile(p("script.txt"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := map[string]string{"shape": "4,1,3", "size": "4,2,3"}
	runApp(t, append(args("expand", flags, 0), "--script", p("script.txt"))...)
	s := build(t, "expand", flags, 0)
	focus := viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: []int{0, 1, 0}}
	words, err := s.Describe(0, focus)
	if err != nil {
		t.Fatal(err)
	}
	keys := readState(t, p("keys.json"))
	if keys.Hover == nil || !keys.Hover.Equal(focus) || keys.Pinned != nil || keys.Step != 0 {
		t.Errorf("after down and three rights: hover %v, pinned %v, step %d; want %v focused at step 0, nothing pinned", keys.Hover, keys.Pinned, keys.Step, focus)
	}
	if keys.Words != words || !strings.HasPrefix(keys.Results, "focus\n  "+words+"\n") {
		t.Errorf("after the keys: words %q, results %q; want %q, first in the results", keys.Words, keys.Results[:min(200, len(keys.Results))], words)
	}
	shot := readPNG(t, p("keys.png"))
	d, _ := Compare(headless(t, s, 0, &focus), shot, sceneRect)
	unlit, _ := Compare(headless(t, s, 0, nil), shot, sceneRect)
	if d.Mean > maxMean || d.Far > maxFar || !d.Closer(unlit) {
		t.Errorf("the keyboard's focus on %v: the window (%v from the frame with it lit, %v from the unlit frame) should show it lit", focus, d, unlit)
	}
	pinned := readState(t, p("pinned.json"))
	if pinned.Pinned == nil || !pinned.Pinned.Equal(focus) || pinned.Step != 1 {
		t.Errorf("after enter and \".\": pinned %v, step %d; want %v pinned at step 1", pinned.Pinned, pinned.Step, focus)
	}
	unpinned := readState(t, p("unpinned.json"))
	if unpinned.Pinned != nil || unpinned.Step != 2 {
		t.Errorf("after escape and page down: pinned %v, step %d; want nothing pinned, step 2", unpinned.Pinned, unpinned.Step)
	}
}

// redPixels counts pixels of the error colour in r.
func redPixels(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr>>8 > 140 && cg>>8 < 80 && cb>>8 < 90 {
				n++
			}
		}
	}
	return n
}

// A script opens a lesson's step, answers its question wrong and then
// right (the scene's own model judges), and moves to the next step.
// While the question is open, the results panel, pointed at the cell
// asked about, hides what it reads and the computed values; once
// answered it shows them.
func TestScriptWalksALesson(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	script := strings.Join([]string{
		"lesson expand-repeat 1",
		"wait 2",
		"hover out 2,1,2",
		"wait 1",
		"state " + p("open.json"),
		"screenshot " + p("open.png"),
		"hover storage x 5",
		"click",
		"state " + p("wrong.json"),
		"hover storage x 8",
		"click",
		"wait 1",
		"state " + p("right.json"),
		"screenshot " + p("lesson.png"),
		"key n",
		"wait 1",
		"state " + p("next.json"),
	}, "\n")
	if err := os.WriteFile(p("script.txt"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	runApp(t, "--script", p("script.txt"), "--backend", "cpu")
	open, wrong, right, next := readState(t, p("open.json")), readState(t, p("wrong.json")), readState(t, p("right.json")), readState(t, p("next.json"))
	// out[2,1,2] reads x[8]: its formula ends "= 8", and over arange
	// inputs its value is 8.
	reads8 := regexp.MustCompile(`(?m)^\s*= 8$`)
	if open.Lesson == nil || open.Lesson.Right || reads8.MatchString(open.Results) ||
		!strings.Contains(open.Results, "= ?") || !strings.Contains(open.Results, "values hidden until you answer") {
		t.Errorf("with the question open and the pointer on out[2,1,2], the results panel gives the answer away or does not say it is hidden:\n%s", open.Results)
	}
	if !reads8.MatchString(right.Results) || strings.Contains(right.Results, "hidden until you answer") {
		t.Errorf("once answered, the results panel should show that out[2,1,2] reads 8 and the values:\n%s", right.Results)
	}
	if wrong.Lesson == nil || wrong.Lesson.Right || wrong.Lesson.Tries != 1 || !strings.Contains(wrong.Lesson.Feedback, "= 8") {
		t.Errorf("a click on x[5] for out[2,1,2]: %+v; want judged wrong with the formula that gives 8", wrong.Lesson)
	}
	if right.Lesson == nil || !right.Lesson.Right || right.Lesson.Tries != 2 || !strings.Contains(right.Spec, "--step") {
		t.Errorf("a click on x[8]: lesson %+v, scene %q; want judged right and the scene moved to the step that reveals it", right.Lesson, right.Spec)
	}
	if !strings.Contains(right.Results, "lesson: Expand and repeat, step 1 of") {
		t.Errorf("the results panel should start with the lesson's step: %q", right.Results[:min(200, len(right.Results))])
	}
	if next.Lesson == nil || next.Lesson.Step != 2 || next.Lesson.Tries != 0 || next.Lesson.Right {
		t.Errorf("after n: %+v; want step 2, unanswered", next.Lesson)
	}
	readPNG(t, p("lesson.png"))
	readPNG(t, p("open.png"))
}

// A program in the desktop's one-line field: opened from its flags it
// keeps its newlines and comment until typed over; a program typed with
// "; " between its statements draws; a bad one names its line and column
// while the last good scene stays; the strategy field switches the plan.
// Then the program lesson's question is answered by clicking step columns.
func TestScriptEditsAProgram(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	const typed = "placement 2; x = input 8,4 S(0); w = input 4,2 B; y = matmul x w; s = sum y 1,1; grad s"
	script := strings.Join([]string{
		"wait 2",
		"state " + p("opened.json"),
		"field src",
		"type " + typed,
		"wait 2",
		"state " + p("typed.json"),
		"screenshot " + p("typed.png"),
		"type placement 2; x = input 8,4 S(0); y = matmul x q",
		"wait 2",
		"state " + p("bad.json"),
		"type " + typed,
		"field strategy",
		"type exact",
		"wait 2",
		"state " + p("exact.json"),
		"lesson program 3",
		"wait 2",
		"hover step 8",
		"click",
		"state " + p("wrong.json"),
		"hover step 9",
		"click",
		"wait 1",
		"state " + p("right.json"),
	}, "\n")
	if err := os.WriteFile(p("script.txt"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	runApp(t, append(args("program", map[string]string{"src": dataParallel}, 0), "--script", p("script.txt"))...)
	opened := readState(t, p("opened.json"))
	if opened.Fields["src"] != dataParallel || opened.Error != "" {
		t.Errorf("opened: src %q, error %q; want the program as given, newlines and comment kept", opened.Fields["src"], opened.Error)
	}
	got := readState(t, p("typed.json"))
	s := build(t, "program", map[string]string{"src": typed}, 0)
	if got.Fields["src"] != typed || got.Error != "" || got.Steps != s.Steps {
		t.Errorf("typed: src %q, error %q, %d steps; want the typed program planned in %d steps, as viz plans it", got.Fields["src"], got.Error, got.Steps, s.Steps)
	}
	if d, _ := Compare(headless(t, s, got.Step, nil), readPNG(t, p("typed.png")), sceneRect); d.Mean > maxMean || d.Far > maxFar {
		t.Errorf("the typed program's window is not its headless frame: %v", d)
	}
	bad := readState(t, p("bad.json"))
	if bad.ErrorField != "src" || !strings.Contains(bad.Error, "program: line 1, column 34: y = matmul x q: q is not defined") || bad.Spec != got.Spec {
		t.Errorf("a bad program: error %q on %q, scene %q; want its line and column on src and the last good scene %q", bad.Error, bad.ErrorField, bad.Spec, got.Spec)
	}
	exact := readState(t, p("exact.json"))
	if exact.Error != "" || !strings.Contains(exact.Spec, "--strategy exact") || !strings.Contains(exact.Results, "exact plan") {
		t.Errorf("strategy exact: error %q, scene %q; want the exact plan", exact.Error, exact.Spec)
	}
	wrong, right := readState(t, p("wrong.json")), readState(t, p("right.json"))
	if wrong.Lesson == nil || wrong.Lesson.Right || wrong.Lesson.Tries != 1 {
		t.Errorf("a click on step 8 (w's partial gradient) for w's gradient as w is: %+v; want judged wrong", wrong.Lesson)
	}
	if right.Lesson == nil || !right.Lesson.Right || right.Lesson.Tries != 2 || !strings.Contains(right.Lesson.Feedback, "all-reduce") || right.Step != 8 {
		t.Errorf("a click on step 9: lesson %+v at step %d; want judged right (the all-reduce) and the scene at the all-reduce, step index 8", right.Lesson, right.Step)
	}
}

// The cluster field: a preset typed into it plans the program on that
// cluster and the window draws the time axis and the memory lines as
// the headless renderer does; a cluster that is no preset is an error on
// that field while the last good scene stays; a cost typed beside the
// cluster replans.
func TestScriptSetsACluster(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	const mesh = "placement [[0,1],[2,3]]; x = input 64,32 (S(0), B); w = input 32,16 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s"
	script := strings.Join([]string{
		"wait 2",
		"field cluster",
		"type two-h100-nodes",
		"wait 2",
		"state " + p("timed.json"),
		"screenshot " + p("timed.png"),
		"type dgx-9000",
		"wait 2",
		"state " + p("bad.json"),
		"type two-h100-nodes",
		"field cost",
		"type bytes",
		"wait 2",
		"state " + p("bytes.json"),
	}, "\n")
	if err := os.WriteFile(p("script.txt"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	runApp(t, append(args("program", map[string]string{"src": mesh, "strategy": "exact", "memory": "show"}, 9), "--script", p("script.txt"))...)
	timed := readState(t, p("timed.json"))
	s := build(t, "program", map[string]string{"src": mesh, "strategy": "exact", "memory": "show", "cluster": "two-h100-nodes"}, 9)
	if timed.Error != "" || !strings.Contains(timed.Spec, "--cluster two-h100-nodes") || timed.Steps != s.Steps {
		t.Fatalf("cluster two-h100-nodes: error %q, scene %q; want the plan on it, in %d steps", timed.Error, timed.Spec, s.Steps)
	}
	if d, _ := Compare(headless(t, s, timed.Step, nil), readPNG(t, p("timed.png")), sceneRect); d.Mean > maxMean || d.Far > maxFar {
		t.Errorf("the window on a cluster is not its headless frame: %v", d)
	}
	bad := readState(t, p("bad.json"))
	if bad.ErrorField != "cluster" || !strings.Contains(bad.Error, "cluster dgx-9000: no preset of that name") || bad.Spec != timed.Spec {
		t.Errorf("cluster dgx-9000: error %q on %q, scene %q; want it on cluster and the last good scene", bad.Error, bad.ErrorField, bad.Spec)
	}
	if bytes := readState(t, p("bytes.json")); bytes.Error != "" || !strings.Contains(bytes.Spec, "--cost bytes") {
		t.Errorf("cost bytes: error %q, scene %q; want the plan of fewest bytes", bytes.Error, bytes.Spec)
	}
}

// The export keys write, in the working directory, the bytes the
// headless renderers (and so `stridelab draw`) write for the same scene
// and step.
func TestExportsAreTheHeadlessBytes(t *testing.T) {
	needDisplay(t)
	dir := t.TempDir()
	script := "wait 2\nkey s\nkey p\nkey g\nwait 2\n"
	if err := os.WriteFile(filepath.Join(dir, "script.txt"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := map[string]string{"shape": "3,1", "size": "2,3,4"}
	cmd := exec.Command("xvfb-run", append([]string{"-a", "-s", "-screen 0 1280x720x24", desktop}, append(args("expand", flags, 4), "--script", "script.txt")...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	s := build(t, "expand", flags, 4)
	for name, format := range map[string]string{"expand-step4.svg": "svg", "expand-step4.png": "png", "expand.gif": "gif"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("the %s key wrote no %s: %v", format, name, err)
			continue
		}
		var want bytes.Buffer
		if err := render.Encode(&want, s, format, 4, viz.DefaultSize); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: %d bytes, not the %d bytes render.Encode (stridelab draw) writes", name, len(got), want.Len())
		}
	}
}
