package lessons

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// A Question asks the learner to predict what the step's scene will show
// and to answer by clicking it. Its answer is never written in the lesson:
// Answer computes it from the scene's model (viz.IndexModel,
// viz.ShardModel or viz.ProgramModel), and Judge compares a click, the
// viz.Focus the scene's HitTest returned, with it. The kinds:
//
//	ask: reads out[1,2,0]          which storage element(s) does this output cell read? click a storage cell
//	ask: reads out[1,2] from b     … only b's read counts (binary scenes)
//	ask: readers x[5]              which output cells read storage offset 5 of x? click one of them
//	ask: owner [5,2]               which device holds element [5,2] after the scene? click a device
//	ask: holds rank 2              what does rank 2 hold after the scene? click a cell of the logical tensor
//	ask: boxes w                   which step boxes w, with which collective? click the boxing's column
//	ask: grad-sbp w                where is w's gradient first laid out as w is? click that step's column
//
// Index questions (reads, readers) need an index scene (expand, repeat,
// binary, reduce, view); shard questions (owner, holds) a shard scene
// (placement, plan, boxing), whose model is the layout after its last
// step; program questions (boxes, grad-sbp) a program scene, whose model
// is the plan, and they name a tensor of the program instead of a focus.
type Question struct {
	Kind    string    // reads, readers, owner, holds, boxes or grad-sbp: the name of one of askers
	About   viz.Focus // the cell, storage element or device asked about
	Name    string    // boxes, grad-sbp: the tensor of the program asked about
	From    string    // reads: only this operand's reads count; "" for all
	Spelled string    // the question as the file writes it, after "ask:"
	Right   string    // shown with a right answer and in the reveal; "" for the computed explanation
	Wrong   string    // shown with a wrong answer that has no Wrong for its own
	// WrongFor holds the feedback for particular wrong clicks, by the
	// click's viz.Focus.String(): "x[0]" → "that is where out[0,0,0] reads".
	WrongFor map[string]string
	Line     int // the ask: line in the file
}

// ParseQuestion reads what follows "ask:".
func ParseQuestion(s string) (*Question, error) {
	q := &Question{Spelled: strings.TrimSpace(s), WrongFor: map[string]string{}}
	name, rest, _ := strings.Cut(q.Spelled, " ")
	k, ok := askerNamed(name)
	if !ok {
		var usages []string
		for _, k := range askers {
			usages = append(usages, k.form().usage)
		}
		return nil, fmt.Errorf("unknown question %q: ask %s", name, listOf(usages, "or"))
	}
	q.Kind = name
	f := k.form()
	about, from, hasFrom := strings.TrimSpace(rest), "", false
	if f.from {
		about, from, hasFrom = strings.Cut(about, " from ")
	}
	if f.named {
		if about == "" || strings.ContainsAny(about, " \t[]") {
			return nil, fmt.Errorf("%s asks about %s, not %q", name, f.about.what, about)
		}
		q.Name = about
		return q, nil
	}
	var err error
	if q.About, err = viz.ParseFocus(about); err != nil {
		return nil, err
	}
	if !f.about.is(q.About) {
		return nil, fmt.Errorf("%s asks about %s, not %s", name, f.about.what, q.About)
	}
	if hasFrom {
		q.From = strings.TrimSpace(from)
		if !slices.Contains([]string{"x", "a", "b"}, q.From) {
			return nil, fmt.Errorf("%s … from %q: name an operand, x, a or b", name, q.From)
		}
	}
	return q, nil
}

// An asker is one kind of question: what its ask: line names, what the
// learner clicks, and how the scene's model answers it. Each kind has its
// own file, question_NAME.go; askers lists them, and is the one place a
// kind is added.
type asker interface {
	form() form
	// prompt is the question in words for the learner, with where to click.
	prompt(q *Question, sc *viz.Scene) string
	// answer computes the answer from sc's model (Explain is left to
	// Question.Answer).
	answer(q *Question, sc *viz.Scene) (*Answer, error)
	// shown fails when sc, at its step, already shows the answer a.
	shown(q *Question, sc *viz.Scene, a *Answer) error
	// clicked is what a click on t answers: t itself, or what it stands
	// for (a reads question takes an input's cell for its storage).
	clicked(sc *viz.Scene, t viz.Focus) viz.Focus
}

// A form is what a kind of question's ask: line and clicks look like.
type form struct {
	name  string // what an ask: line starts with: reads
	usage string // the ask: line in short, for errors: reads out[…]
	about target // what the ask: line names
	from  bool   // the line may end in "from OPERAND"
	named bool   // the line names a tensor of a program (Question.Name), not a focus
	click target // what the learner clicks to answer, right or wrong
}

// A target is a kind of focus and, for a cell, its operand, with words
// for a person: what it is, or where to click it.
type target struct {
	kind    viz.FocusKind
	operand string // FocusCell only
	what    string
}

// is reports whether f is a focus of t's kind.
func (t target) is(f viz.Focus) bool {
	return f.Kind == t.kind && (f.Kind != viz.FocusCell || f.Operand == t.operand)
}

// askers are the kinds of question, in the order errors list them.
var askers = []asker{askReads{}, askReaders{}, askOwner{}, askHolds{}, askBoxes{}, askGradSbp{}}

// askerNamed returns the kind of question called name.
func askerNamed(name string) (asker, bool) {
	for _, k := range askers {
		if k.form().name == name {
			return k, true
		}
	}
	return nil, false
}

// asker returns q's kind; q.Kind must be one of askers (ParseQuestion
// sees to it), else it panics.
func (q *Question) asker() asker {
	k, ok := askerNamed(q.Kind)
	if !ok {
		panic(fmt.Sprintf("lessons: question %q has unknown kind %q", q.Spelled, q.Kind))
	}
	return k
}

// click is what the learner clicks to answer q.
func (q *Question) click() target { return q.asker().form().click }

// indexModel and shardModel are sc's model, or why q cannot ask sc.
func indexModel(q *Question, sc *viz.Scene) (*viz.IndexModel, error) {
	m, ok := sc.Model().(*viz.IndexModel)
	if !ok {
		return nil, fmt.Errorf("%s needs an index scene (expand, repeat, binary, reduce, view), not %s", q.Kind, sc.Spec.Scene)
	}
	return m, nil
}

func shardModel(q *Question, sc *viz.Scene) (*viz.ShardModel, error) {
	m, ok := sc.Model().(*viz.ShardModel)
	if !ok {
		return nil, fmt.Errorf("%s needs a shard scene (placement, plan, boxing), not %s", q.Kind, sc.Spec.Scene)
	}
	return m, nil
}

// addFeedback records a right:, wrong: or "wrong TARGET:" line.
func (q *Question) addFeedback(key, text string) error {
	if text == "" {
		return fmt.Errorf("the feedback is empty")
	}
	if strings.ContainsAny(text, "*`") {
		return fmt.Errorf("feedback is plain text, shown as it is: leave out * and `")
	}
	switch key {
	case "right":
		if q.Right != "" {
			return fmt.Errorf("two right: lines")
		}
		q.Right = text
	case "wrong":
		if q.Wrong != "" {
			return fmt.Errorf("two wrong: lines")
		}
		q.Wrong = text
	default:
		t, err := viz.ParseFocus(strings.TrimPrefix(key, "wrong "))
		if err != nil {
			return err
		}
		if !q.click().is(t) {
			return fmt.Errorf("%s is not what the learner clicks here (%s)", t, q.click().what)
		}
		if _, dup := q.WrongFor[t.String()]; dup {
			return fmt.Errorf("two wrong %s: lines", t)
		}
		q.WrongFor[t.String()] = text
	}
	return nil
}

// The placeholders feedback may use, filled from the scene's model.
var placeholderRE = regexp.MustCompile(`\{[^{}]*\}`)

// Placeholders are the words feedback text may hold in braces: {about}
// (what is asked about), {answer} (the right click(s)), {why} (the
// explanation computed from the model: the offset formula from the
// layout's trace, the readers, the ranks' ranges) and, in wrong:
// feedback only, {clicked} (what the learner clicked).
var Placeholders = []string{"{about}", "{answer}", "{why}", "{clicked}"}

func (q *Question) checkText() error {
	check := func(what, s string, clicked bool) error {
		for _, p := range placeholderRE.FindAllString(s, -1) {
			if !slices.Contains(Placeholders, p) || (p == "{clicked}" && !clicked) {
				return fmt.Errorf("%s: unknown placeholder %s here (use %s)", what, p, strings.Join(Placeholders[:3], ", ")+map[bool]string{true: ", {clicked}", false: ""}[clicked])
			}
		}
		return nil
	}
	if err := check("right", q.Right, false); err != nil {
		return err
	}
	if err := check("wrong", q.Wrong, true); err != nil {
		return err
	}
	for k, v := range q.WrongFor {
		if err := check("wrong "+k, v, true); err != nil {
			return err
		}
	}
	return nil
}

// Prompt is the question in words for the learner, with where to click;
// sc is the step's scene (a reduce's reads are the elements it combines).
func (q *Question) Prompt(sc *viz.Scene) string { return q.asker().prompt(q, sc) }

// capital makes a sentence's first letter upper case.
func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// when and of say which layout a shard question is about: the one after
// boxing, or a plan's output.
func when(sc *viz.Scene) string {
	if sc.Spec.Scene == "boxing" {
		return "after boxing, "
	}
	return ""
}

func of(sc *viz.Scene) string {
	if sc.Spec.Scene == "plan" {
		return " of the output"
	}
	return ""
}

// Answer is a question's answer as the scene's model gives it.
type Answer struct {
	// Targets are every right click (reads, readers, owner, boxes,
	// grad-sbp); holds leaves it empty and gives Ranges.
	Targets []viz.Focus
	Ranges  [][2]int // holds: the rank's range per axis, [lo, hi)
	Text    string   // the answer spelled: "x[5]", "out[0,1] or out[1,1]", "rank 1"
	Why     string   // the explanation computed from the model
	Explain string   // the lesson's right: text with its placeholders filled, or Why
	// Reveal is the scene state that shows the answer: the step that
	// selects the asked cell, the scene with --offset lighting the
	// readers, the last step of a shard scene, or a program's step that
	// boxes or lays out the gradient asked about.
	Reveal viz.Spec
}

// Matches reports whether a click on t is right.
func (a *Answer) Matches(t viz.Focus) bool {
	if a.Ranges != nil {
		return t.Kind == viz.FocusCell && t.Operand == "global" && len(t.Index) == len(a.Ranges) && within(t.Index, a.Ranges)
	}
	for _, u := range a.Targets {
		if u.Equal(t) {
			return true
		}
	}
	return false
}

// Answer computes the answer from sc's model; sc must be the step's scene.
// It fails when the scene cannot answer the question: the wrong kind of
// scene, a cell outside the tensor or elided from the drawing, an operand
// the scene does not have.
func (q *Question) Answer(sc *viz.Scene) (*Answer, error) {
	a, err := q.asker().answer(q, sc)
	if err != nil {
		return nil, err
	}
	a.Explain = a.Why
	if q.Right != "" {
		a.Explain = q.fill(q.Right, a, "")
	}
	return a, nil
}

// Judge says whether a click on hot (the focus of sc's HitTest at the step's
// state) answers the question, with feedback for the learner: the
// lesson's right: text, or its wrong: text for that click, its generic
// wrong: text, or the explanation the model gives.
func (q *Question) Judge(sc *viz.Scene, hot viz.Focus) (bool, string) {
	a, err := q.Answer(sc)
	if err != nil {
		return false, err.Error()
	}
	t := q.asker().clicked(sc, hot)
	if !q.click().is(t) {
		return false, fmt.Sprintf("Not an answer to this question: %s.", q.click().what)
	}
	if a.Matches(t) {
		return true, a.Explain
	}
	text, ok := q.WrongFor[t.String()]
	if !ok {
		text = q.Wrong
	}
	if text == "" {
		return false, fmt.Sprintf("Not %s: %s.", t, a.Why)
	}
	text = q.fill(text, a, t.String())
	if !strings.Contains(text, a.Why) {
		text += " Check: " + a.Why + "."
	}
	return false, text
}

// fill replaces the placeholders of text.
func (q *Question) fill(text string, a *Answer, clicked string) string {
	about := q.About.String()
	if q.Name != "" {
		about = q.Name
	}
	return strings.NewReplacer("{about}", about, "{answer}", a.Text, "{why}", a.Why, "{clicked}", clicked).Replace(text)
}

// Check answers the question from sc (the step's scene) and checks that
// the learner can click the answer: a right target is drawn at the step's
// state; the step does not already show the answer (the asked cell is not
// the one selected, its readers are not lit); every "wrong TARGET:" names
// something drawn that is wrong.
func (q *Question) Check(sc *viz.Scene) error {
	a, err := q.Answer(sc)
	if err != nil {
		return err
	}
	step := sc.Spec.Step
	hots, err := sc.Hots(step, Size)
	if err != nil {
		return err
	}
	drawn := func(t viz.Focus) bool {
		for _, h := range hots {
			if h.Focus.Equal(t) {
				return true
			}
		}
		return false
	}
	clickable := false
	for _, h := range hots {
		if t := q.asker().clicked(sc, h.Focus); a.Matches(t) && q.click().is(t) {
			clickable = true
			break
		}
	}
	if !clickable {
		return fmt.Errorf("the answer (%s) is not drawn at step %d, so the learner cannot click it: ask at a step that draws it, or about another cell", a.Text, step)
	}
	if err := q.asker().shown(q, sc, a); err != nil {
		return err
	}
	for k := range q.WrongFor {
		t, _ := viz.ParseFocus(k)
		if a.Matches(t) {
			return fmt.Errorf("wrong %s: that is a right answer", k)
		}
		if !drawn(t) {
			return fmt.Errorf("wrong %s: the scene does not draw it at step %d", k, step)
		}
	}
	return nil
}

// clip keeps the first n words and counts the rest: [a b c] → [a b "1 more"].
func clip(words []string, n int) []string {
	if len(words) <= n {
		return words
	}
	return append(slices.Clone(words[:n-1]), fmt.Sprintf("%d more", len(words)-n+1))
}

func inShape(idx []int, shape tensor.Shape, what string) error {
	if len(idx) != len(shape) {
		return fmt.Errorf("[%s] has %d coordinates; %s %v has %d dims", joinInts(idx), len(idx), what, shape, len(shape))
	}
	for d, i := range idx {
		if i < 0 || i >= shape[d] {
			return fmt.Errorf("[%s] is outside %s %v (dim %d has size %d)", joinInts(idx), what, shape, d, shape[d])
		}
	}
	return nil
}

func within(idx []int, ranges [][2]int) bool {
	for d, r := range ranges {
		if idx[d] < r[0] || idx[d] >= r[1] {
			return false
		}
	}
	return true
}

func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// listOf joins words as prose: "a", "a and b", "a, b and c".
func listOf(words []string, and string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + and + " " + words[len(words)-1]
}
