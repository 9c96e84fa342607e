package lessons

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/viz"
)

// TestBuiltinLessons loads every lesson file, builds every step's scene
// and, for every question, clicks the answer through the scene's own hit
// testing (the centre of a hot region of the frame the learner sees, or
// the point of it nearest the centre that is not covered: a program's
// step column under its devices' shards) and one drawn wrong click, and
// judges both.
func TestBuiltinLessons(t *testing.T) {
	ls, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range ls {
		ids = append(ids, l.ID)
		asked := 0
		if n := len(l.Steps); n < 6 || n > 12 {
			t.Errorf("%s: %d steps, want 6 to 12", l.File, n)
		}
		for _, st := range l.Steps {
			sc, err := st.Build()
			if err != nil {
				t.Fatalf("%s: step %d: %v", l.File, st.N, err)
			}
			if _, err := sc.Frame(st.Scene.Step, Size); err != nil {
				t.Fatalf("%s: step %d: %v", l.File, st.N, err)
			}
			if _, err := TextHTML(st.Text); err != nil {
				t.Fatalf("%s: step %d: %v", l.File, st.N, err)
			}
			q := st.Question
			if q == nil {
				continue
			}
			asked++
			a, err := q.Answer(sc)
			if err != nil {
				t.Fatalf("%s: step %d: %v", l.File, st.N, err)
			}
			if _, err := viz.Build(a.Reveal); err != nil {
				t.Fatalf("%s: step %d: the reveal %v does not build: %v", l.File, st.N, a.Reveal, err)
			}
			right, wrong := clicks(t, sc, st.Scene.Step, q, a)
			h, ok := hitIn(sc, st.Scene.Step, right)
			if !ok {
				t.Fatalf("%s: step %d: nothing in %+v hits it", l.File, st.N, right)
			}
			if ok, fb := q.Judge(sc, h.Focus); !ok || fb != a.Explain {
				t.Errorf("%s: step %d: clicking %s: got (%v, %q), want (true, %q)", l.File, st.N, h.Focus, ok, fb, a.Explain)
			}
			if wrong != nil {
				ok, fb := q.Judge(sc, wrong.Focus)
				if ok || !strings.Contains(fb, a.Why) {
					t.Errorf("%s: step %d: clicking %s: got (%v, %q), want false with %q", l.File, st.N, wrong.Focus, ok, fb, a.Why)
				}
			}
		}
		if asked < 3 {
			t.Errorf("%s: %d questions, want at least 3", l.File, asked)
		}
	}
	if want := []string{"expand-repeat", "views", "broadcast-backward", "global-view", "program", "tensor-parallel"}; !slices.Equal(ids, want) {
		t.Errorf("lessons %v, want %v in this order", ids, want)
	}
}

// hitIn clicks r where the learner sees it: its centre, or else the first
// point of a 9×9 grid over it, nearest the centre first, that the hit test
// gives as r's focus (as a script's hover finds it, session.Locate).
func hitIn(sc *viz.Scene, step int, r viz.Hot) (viz.Hot, bool) {
	var fallback viz.Hot
	ok := false
	for d := 0; d <= 4; d++ {
		for i := 5 - d; i <= 5+d; i++ {
			for j := 5 - d; j <= 5+d; j++ {
				h, hit := sc.HitTest(step, Size, r.X+r.W*float64(i)/10, r.Y+r.H*float64(j)/10)
				if hit && h.Focus.Equal(r.Focus) {
					return h, true
				}
				if hit && !ok {
					fallback, ok = h, true
				}
			}
		}
	}
	return fallback, ok
}

// clicks returns a drawn hot region whose click is right and, when the
// frame draws one, a region of the kind the question takes that is wrong.
func clicks(t *testing.T, sc *viz.Scene, step int, q *Question, a *Answer) (right viz.Hot, wrong *viz.Hot) {
	t.Helper()
	hots, err := sc.Hots(step, Size)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range hots {
		tg := h.Focus
		if !q.click().is(tg) {
			continue
		}
		if a.Matches(tg) {
			if !found {
				right, found = h, true
			}
		} else if wrong == nil {
			w := h
			wrong = &w
		}
	}
	if !found {
		t.Fatalf("%v: no right answer drawn at step %d", sc.Spec, step)
	}
	return right, wrong
}

func TestJudgeFeedback(t *testing.T) {
	ls, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	st := Find(ls, "expand-repeat").Steps[0] // ask: reads out[2,1,2] of expand [4 1 3] → [4 2 3]
	sc, err := st.Build()
	if err != nil {
		t.Fatal(err)
	}
	q := st.Question
	for _, c := range []struct {
		hot  viz.Focus
		ok   bool
		want []string // substrings of the feedback
	}{
		{viz.Focus{Kind: viz.FocusStorage, Operand: "x", Offset: 8}, true, []string{"Yes: x offset = 0 + 2·3 + 1·0 (broadcast) + 2·1 = 8.", "adds nothing"}},
		{viz.Focus{Kind: viz.FocusStorage, Operand: "x", Offset: 5}, false, []string{"x[5] is where out[1,1,2] reads", "Check: x offset = 0 + 2·3 + 1·0 (broadcast) + 2·1 = 8."}},
		{viz.Focus{Kind: viz.FocusStorage, Operand: "x", Offset: 0}, false, []string{"You clicked x[0].", "strides [3, 0, 1]", "= 8."}},
		{viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: []int{2, 1, 2}}, false, []string{"Not an answer to this question: click a storage cell"}},
		{viz.Focus{Kind: viz.FocusDevice, Rank: 0}, false, []string{"Not an answer"}},
	} {
		ok, fb := q.Judge(sc, c.hot)
		if ok != c.ok {
			t.Errorf("Judge(%s) = %v (%q), want %v", c.hot, ok, fb, c.ok)
		}
		for _, w := range c.want {
			if !strings.Contains(fb, w) {
				t.Errorf("Judge(%s) feedback %q, want it to contain %q", c.hot, fb, w)
			}
		}
	}
	// A reduce draws its input beside the output: a cell of that grid
	// answers for the storage element it is.
	st = Find(ls, "broadcast-backward").Steps[1] // ask: reads out[1,0,0,1,1] of sum [2 2 2 2 2] to [2 2 1 2 2]
	red, err := st.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		idx []int
		ok  bool
	}{{[]int{1, 0, 1, 1, 1}, true}, {[]int{1, 0, 0, 1, 1}, true}, {[]int{0, 0, 0, 1, 1}, false}} {
		if ok, fb := st.Question.Judge(red, viz.Focus{Kind: viz.FocusCell, Operand: "x", Index: c.idx}); ok != c.ok {
			t.Errorf("reduce: clicking x%v = %v (%q), want %v", c.idx, ok, fb, c.ok)
		}
	}
	// The same question asked of another scene cannot be answered.
	other, err := viz.Build(mustScene(t, "placement --shape 4,4 --sbp S(0) --placement 4"))
	if err != nil {
		t.Fatal(err)
	}
	if ok, fb := q.Judge(other, viz.Focus{Kind: viz.FocusStorage, Operand: "x", Offset: 8}); ok || !strings.Contains(fb, "needs an index scene") {
		t.Errorf("Judge on a placement scene = (%v, %q), want false naming the scene kind", ok, fb)
	}
}

func mustScene(t *testing.T, line string) viz.Spec {
	t.Helper()
	s, err := viz.ParseCommand(line)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// prog is a program scene whose plan boxes w (step 3, an all-gather).
const prog = "scene: program --src 'placement 2; x = input 4,2 S(0); w = input 2,2 S(0); y = matmul x w'"

const front = "---\nid: broken\ntitle: A broken lesson\nsource: none\nsummary: for the tests\n---\n\n"

// TestBrokenLessons: every kind of mistake a teacher can make is an error
// that names the file, the step and what is wrong.
func TestBrokenLessons(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"no front matter", "## a\ntext\nscene: expand --shape 1 --size 2\n", "broken.md: front matter: the file must start with a --- line"},
		{"missing key", "---\nid: broken\ntitle: t\nsource: s\n---\n## a\ntext\nscene: expand --shape 1 --size 2\n", "broken.md: front matter: summary is missing"},
		{"unknown key", "---\nid: broken\ntitle: t\nsource: s\nsummary: s\nauthor: me\n---\n", `broken.md: front matter: unknown key "author"`},
		{"id not the file", strings.Replace(front, "id: broken", "id: other", 1) + "## a\nt\nscene: expand --shape 1 --size 2\n", `id "other" must be the file's name, "broken"`},
		{"no steps", front, "broken.md: steps: the lesson has no ## steps"},
		{"text before steps", front + "hello\n## a\nt\nscene: expand --shape 1 --size 2\n", "broken.md: text: text before the first ## step heading"},
		{"other heading", front + "## a\nt\n### b\nscene: expand --shape 1 --size 2\n", "broken.md: step 1: text: only ## headings are allowed"},
		{"no text", front + "## a\nscene: expand --shape 1 --size 2\n", "broken.md: step 1: text: the step says nothing"},
		{"no scene", front + "## a\nt\n## b\nt\n", "broken.md: step 1: scene: the step has no scene: line"},
		{"two scenes", front + "## a\nt\nscene: expand --shape 1 --size 2\nscene: expand --shape 1 --size 2\n", "step 1: scene: a step shows one scene"},
		{"unknown scene", front + "## a\nt\nscene: expand --shape 1 --size 2\n## b\nt\nscene: explode --shape 1\n", `broken.md: step 2: scene: viz: unknown scene "explode"`},
		{"unknown flag", front + "## a\nt\nscene: expand --shape 1 --sise 2\n", "broken.md: step 1: scene: viz: unknown flag --sise"},
		{"flag of another scene", front + "## a\nt\nscene: expand --shape 1 --size 2 --times 3\n", "broken.md: step 1: scene: viz: scene expand takes no --times"},
		{"unclosed quote", front + "## a\nt\nscene: placement --shape 4 --sbp 'S(0) --placement 4\n", "step 1: scene: viz: unclosed ' quote"},
		{"bad shape", front + "## a\nt\nscene: expand --shape 4,x --size 4,2\n", "broken.md: step 1: scene: tensor: shape \"4,x\""},
		{"impossible expand", front + "## a\nt\nscene: expand --shape 4,3 --size 4,5\n", "broken.md: step 1: scene: tensor: expand [4 3] to [4 5]"},
		{"step past the end", front + "## a\nt\nscene: expand --shape 2 --size 2 --step 9\n", "broken.md: step 1: scene: viz: expand: step 9 is out of range"},
		{"unknown question", front + "## a\nt\nscene: expand --shape 1 --size 2\nask: why\n", `broken.md: step 1: ask: unknown question "why"`},
		{"bad target", front + "## a\nt\nscene: expand --shape 1 --size 2\nask: reads x[0]\n", "step 1: ask: reads asks about an output cell"},
		{"feedback before ask", front + "## a\nt\nscene: expand --shape 1 --size 2\nright: yes\n", "step 1: right: comes before any ask: line"},
		{"unknown placeholder", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3 --step 1\nask: reads out[0,0]\nright: {offset}\n", "step 1: ask: reads out[0,0]: right: unknown placeholder {offset}"},
		{"clicked in right", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3 --step 1\nask: reads out[0,0]\nright: not {clicked}\n", "right: unknown placeholder {clicked}"},
		{"wrong of another kind", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3 --step 1\nask: reads out[0,0]\nwrong rank 1: no\n", "step 1: wrong rank 1: rank 1 is not what the learner clicks here"},
		{"markup in feedback", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3\nask: reads out[1,1]\nwrong: not *that*\n", "step 1: wrong: feedback is plain text"},
		{"unclosed code", front + "## a\nthe `code\nscene: expand --shape 1 --size 2\n", "step 1: text: an unclosed `"},
		{"shard question of an index scene", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3\nask: owner [0,1]\n", "broken.md: step 1: ask: owner [0,1]: owner needs a shard scene (placement, plan, boxing), not expand"},
		{"index question of a shard scene", front + "## a\nt\nscene: placement --shape 4,4 --sbp S(0) --placement 4\nask: reads out[0,1]\n", "step 1: ask: reads out[0,1]: reads needs an index scene"},
		{"cell outside the output", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3\nask: reads out[2,0]\n", "step 1: ask: reads out[2,0]: [2,0] is outside out [2 3] (dim 0 has size 2)"},
		{"wrong rank of index", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3\nask: reads out[1]\n", "[1] has 1 coordinates; out [2 3] has 2 dims"},
		{"answer cell elided", front + "## a\nt\nscene: expand --shape 1,40 --size 30,40\nask: reads out[10,20]\n", "step 1: ask: reads out[10,20]: out[10,20] is elided from the drawing"},
		{"answer storage elided", front + "## a\nt\nscene: expand --shape 4,1,3,5 --size 2,1,4,4,3,5 --step 20\nask: reads out[1,0,2,3,1,4]\n", "step 1: ask: reads out[1,0,2,3,1,4]: the answer (x[39]) is not drawn at step 20"},
		{"answer already shown", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3 --step 4\nask: reads out[1,1]\n", "step 1: ask: reads out[1,1]: step 4 of the scene already selects out[1,1]"},
		{"readers already lit", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3 --offset 1\nask: readers x[1]\n", "the scene's --offset 1 already lights the readers"},
		{"storage outside", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3\nask: readers x[3]\n", "x[3] is outside x's storage of 3 elements"},
		{"no such operand", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3\nask: readers b[0]\n", "the scene has no operand b"},
		{"nobody reads it", front + "## a\nt\nscene: view --shape 4 --index 0:2\nask: readers x[3]\n", "no drawn output cell reads x[3]"},
		{"wrong that is right", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3\nask: reads out[1,1]\nwrong x[1]: no\n", "step 1: ask: reads out[1,1]: wrong x[1]: that is a right answer"},
		{"wrong not drawn", front + "## a\nt\nscene: expand --shape 1,3 --size 2,3\nask: reads out[1,1]\nwrong x[7]: no\n", "wrong x[7]: the scene does not draw it"},
		{"no such rank", front + "## a\nt\nscene: placement --shape 4,4 --sbp S(0) --placement 4\nask: holds rank 7\n", "step 1: ask: holds rank 7: the placement has no rank 7"},
		{"element outside", front + "## a\nt\nscene: placement --shape 4,4 --sbp S(0) --placement 4\nask: owner [4,0]\n", "[4,0] is outside the logical tensor [4 4]"},
		{"empty shard", front + "## a\nt\nscene: placement --shape 2,4 --sbp S(0) --placement 4\nask: holds rank 3\n", "rank 3 holds nothing"},
		{"program question of a shard scene", front + "## a\nt\nscene: placement --shape 4,4 --sbp S(0) --placement 4\nask: boxes w\n", "step 1: ask: boxes w: boxes needs a program scene, not placement"},
		{"program question of a focus", front + "## a\nt\n" + prog + "\nask: boxes [0,1]\n", `boxes asks about a tensor of the program, e.g. boxes w, not "[0,1]"`},
		{"never boxed", front + "## a\nt\n" + prog + "\nask: boxes x\n", "step 1: ask: boxes x: the plan never boxes x; it boxes w (step 3)"},
		{"nothing boxed", front + "## a\nt\nscene: program --src 'placement 2; x = input 4 S(0); y = sum x 1'\nask: boxes x\n", "the plan boxes nothing"},
		{"boxing already run", front + "## a\nt\n" + prog + " --step 2\nask: boxes w\n", "at --step 2 the scene has run the boxing of w already: ask at an earlier --step (the reveal goes to --step 2)"},
		{"gradient of a result", front + "## a\nt\n" + prog + "\nask: grad-sbp y\n", "y is not an input of the program"},
		{"no grad", front + "## a\nt\n" + prog + "\nask: grad-sbp x\n", "the program has no gradient of x: end it with grad NAME"},
		{"gradient computed already", front + "## a\nt\nscene: program --src 'placement 2; x = input 4,2 S(0); w = input 2,2 B; y = matmul x w; s = sum y 1,1; grad s' --step 8\nask: grad-sbp w\n", "at --step 8 the scene has computed w's gradient already"},
		{"wrong of a device", front + "## a\nt\n" + prog + "\nask: boxes w\nwrong rank 1: no\n", "wrong rank 1: rank 1 is not what the learner clicks here (click the step's column"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := Parse("lessons/broken.md", []byte(c.src))
			if err == nil {
				err = l.Check()
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "lessons/broken.md: ") {
				t.Fatalf("got %q, want it to start with the file and contain %q", err, c.want)
			}
			var le *Error
			if !errors.Is(err, ErrLesson) || !errors.As(err, &le) {
				t.Fatalf("%v: want an *Error wrapping ErrLesson", err)
			}
		})
	}
}

func TestTextHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"one\ntwo\n\nthree", "<p>one two</p>\n<p>three</p>\n"},
		{"a *b* **c** `d*e`", "<p>a <em>b</em> <strong>c</strong> <code>d*e</code></p>\n"},
		{"2 * 3 < 7 & `<b>`", "<p>2 * 3 &lt; 7 &amp; <code>&lt;b&gt;</code></p>\n"},
		{"intro\n- one\n  more\n- two\nafter", "<p>intro</p>\n<ul>\n<li>one more</li>\n<li>two</li>\n</ul>\n<p>after</p>\n"},
		{"1. a\n2. b", "<ol>\n<li>a</li>\n<li>b</li>\n</ol>\n"},
		// a code block keeps its indentation and escapes its text, * and ` included
		{"the code:\n```python\nclass M(nn.Module):\n    def f(self, x):  # a *note*\n        return x < `1`\n```\nafter", "<p>the code:</p>\n<pre><code>class M(nn.Module):\n    def f(self, x):  # a *note*\n        return x &lt; `1`</code></pre>\n<p>after</p>\n"},
	} {
		got, err := TextHTML(c.in)
		if err != nil || got != c.want {
			t.Errorf("TextHTML(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"a `b", "a **b", "a *b c", "```\nopen"} {
		if _, err := TextHTML(bad); err == nil {
			t.Errorf("TextHTML(%q): no error", bad)
		}
	}
}

func TestRoute(t *testing.T) {
	ls, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	l := Find(ls, "expand-repeat")
	r, ok := ParseRoute("#/lesson/expand-repeat/3?done=2,1,99,2", ls)
	if !ok || r.ID != "expand-repeat" || r.Step != 3 || !slices.Equal(r.Done, []int{1, 2}) {
		t.Fatalf("ParseRoute = %+v, %v", r, ok)
	}
	if got := r.Answered(3).Next(l).String(); got != "#/lesson/expand-repeat/4?done=1,2,3" {
		t.Errorf("next after answering = %q", got)
	}
	if got := r.Prev().Prev().Prev().String(); got != "#/lesson/expand-repeat/1?done=1,2" {
		t.Errorf("prev thrice = %q", got)
	}
	last := Route{ID: l.ID, Step: len(l.Steps)}
	if got := last.Next(l); got.Step != len(l.Steps) {
		t.Errorf("next of the last step = %d", got.Step)
	}
	if r, _ := ParseRoute("#/lesson/views/99", ls); r.Step != len(Find(ls, "views").Steps) {
		t.Errorf("a step past the end = %d, want the last", r.Step)
	}
	for _, bad := range []string{"#/expand?shape=4", "#/lesson/nope/1", "#/lesson/views/x", ""} {
		if _, ok := ParseRoute(bad, ls); ok {
			t.Errorf("ParseRoute(%q) ok", bad)
		}
	}
}

// TestBuiltinLessonsCheck: every embedded lesson passes Check, as a
// teacher's lessons must to Load (Builtin parses them without checking,
// so the front ends list them at once).
func TestBuiltinLessonsCheck(t *testing.T) {
	ls, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if err := l.Check(); err != nil {
			t.Error(err)
		}
	}
}
