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
// Answer computes it from the scene's model (viz.IndexModel or
// viz.ShardModel), and Judge compares a click, the viz.Focus the scene's
// HitTest returned, with it. The kinds:
//
//	ask: reads out[1,2,0]          which storage element(s) does this output cell read? click a storage cell
//	ask: reads out[1,2] from b     … only b's read counts (binary scenes)
//	ask: readers x[5]              which output cells read storage offset 5 of x? click one of them
//	ask: owner [5,2]               which device holds element [5,2] after the scene? click a device
//	ask: holds rank 2              what does rank 2 hold after the scene? click a cell of the logical tensor
//
// Index questions (reads, readers) need an index scene (expand, repeat,
// binary, reduce, view); shard questions (owner, holds) a shard scene
// (placement, plan, boxing), whose model is the layout after its last step.
type Question struct {
	Kind    string    // reads, readers, owner or holds
	About   viz.Focus // the cell, storage element or device asked about
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
	kind, rest, _ := strings.Cut(q.Spelled, " ")
	rest = strings.TrimSpace(rest)
	q.Kind = kind
	var err error
	switch kind {
	case "reads":
		about, from, hasFrom := strings.Cut(rest, " from ")
		if q.About, err = viz.ParseFocus(about); err != nil {
			return nil, err
		}
		if q.About.Kind != viz.FocusCell || q.About.Operand != "out" {
			return nil, fmt.Errorf("reads asks about an output cell, e.g. reads out[1,2,0], not %s", q.About)
		}
		if hasFrom {
			q.From = strings.TrimSpace(from)
			if !slices.Contains([]string{"x", "a", "b"}, q.From) {
				return nil, fmt.Errorf("reads … from %q: name an operand, x, a or b", q.From)
			}
		}
	case "readers":
		if q.About, err = viz.ParseFocus(rest); err != nil {
			return nil, err
		}
		if q.About.Kind != viz.FocusStorage {
			return nil, fmt.Errorf("readers asks about a storage element, e.g. readers x[5], not %s", q.About)
		}
	case "owner":
		if q.About, err = viz.ParseFocus(rest); err != nil {
			return nil, err
		}
		if q.About.Kind != viz.FocusCell || q.About.Operand != "global" {
			return nil, fmt.Errorf("owner asks about an element of the logical tensor, e.g. owner [5,2], not %s", q.About)
		}
	case "holds":
		if q.About, err = viz.ParseFocus(rest); err != nil {
			return nil, err
		}
		if q.About.Kind != viz.FocusDevice {
			return nil, fmt.Errorf("holds asks about a device, e.g. holds rank 2, not %s", q.About)
		}
	default:
		return nil, fmt.Errorf("unknown question %q: ask reads out[…], readers x[…], owner […] or holds rank N", kind)
	}
	return q, nil
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
		if t.Kind != q.clickKind() || (t.Kind == viz.FocusCell && t.Operand != q.clickOperand()) {
			return fmt.Errorf("%s is not what the learner clicks here (%s)", t, q.clickWhat())
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

// clickKind is the kind of focus an answer is clicked on.
func (q *Question) clickKind() viz.FocusKind {
	switch q.Kind {
	case "reads":
		return viz.FocusStorage
	case "owner":
		return viz.FocusDevice
	}
	return viz.FocusCell
}

func (q *Question) clickOperand() string {
	if q.Kind == "holds" {
		return "global"
	}
	return "out"
}

// clickWhat tells the learner where to click.
func (q *Question) clickWhat() string {
	switch q.Kind {
	case "reads":
		return "click a storage cell, in the strip under the grid"
	case "readers":
		return "click a cell of the output grid"
	case "owner":
		return "click a device's panel"
	}
	return "click a cell of the logical tensor"
}

// Prompt is the question in words for the learner, with where to click;
// sc is the step's scene (a reduce's reads are the elements it combines).
func (q *Question) Prompt(sc *viz.Scene) string {
	switch q.Kind {
	case "reads":
		if sc.Spec.Scene == "reduce" {
			return fmt.Sprintf("Which elements of x does %s combine? Predict them, then click one of them, in x's grid or its storage strip.", q.About)
		}
		from := "storage element"
		if q.From != "" {
			from = "element of " + q.From + "'s storage"
		}
		return fmt.Sprintf("Which %s does %s read? Predict it, then %s.", from, q.About, q.clickWhat())
	case "readers":
		return fmt.Sprintf("Which output cells read %s? Predict them, then %s that reads it.", q.About, q.clickWhat())
	case "owner":
		return capital(fmt.Sprintf("%swhich device holds element %s%s? Predict it, then click the panel of a device that holds it.", when(sc), q.About, of(sc)))
	}
	return capital(fmt.Sprintf("%swhat does %s hold%s? Predict it, then %s that it holds.", when(sc), q.About, of(sc), q.clickWhat()))
}

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
	// Targets are every right click (reads, readers, owner); holds
	// leaves it empty and gives Ranges.
	Targets []viz.Focus
	Ranges  [][2]int // holds: the rank's range per axis, [lo, hi)
	Text    string   // the answer spelled: "x[5]", "out[0,1] or out[1,1]", "rank 1"
	Why     string   // the explanation computed from the model
	Explain string   // the lesson's right: text with its placeholders filled, or Why
	// Reveal is the scene state that shows the answer: the step that
	// selects the asked cell, the scene with --offset lighting the
	// readers, or the last step of a shard scene.
	Reveal viz.Spec
}

// Matches reports whether a click on t is right.
func (a *Answer) Matches(t viz.Focus) bool {
	if a.Ranges != nil {
		if t.Kind != viz.FocusCell || t.Operand != "global" || len(t.Index) != len(a.Ranges) {
			return false
		}
		for d, r := range a.Ranges {
			if t.Index[d] < r[0] || t.Index[d] >= r[1] {
				return false
			}
		}
		return true
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
	var a *Answer
	var err error
	switch q.Kind {
	case "reads", "readers":
		m, ok := sc.Model().(*viz.IndexModel)
		if !ok {
			return nil, fmt.Errorf("%s needs an index scene (expand, repeat, binary, reduce, view), not %s", q.Kind, sc.Spec.Scene)
		}
		if q.Kind == "reads" {
			a, err = q.reads(sc, m)
		} else {
			a, err = q.readers(sc, m)
		}
	default:
		m, ok := sc.Model().(*viz.ShardModel)
		if !ok {
			return nil, fmt.Errorf("%s needs a shard scene (placement, plan, boxing), not %s", q.Kind, sc.Spec.Scene)
		}
		if q.Kind == "owner" {
			a, err = q.owner(sc, m)
		} else {
			a, err = q.holds(sc, m)
		}
	}
	if err != nil {
		return nil, err
	}
	a.Explain = a.Why
	if q.Right != "" {
		a.Explain = q.fill(q.Right, a, "")
	}
	return a, nil
}

func (q *Question) reads(sc *viz.Scene, m *viz.IndexModel) (*Answer, error) {
	pos := -1
	if err := inShape(q.About.Index, m.OutShape, "out"); err != nil {
		return nil, err
	}
	for i, c := range m.Cells {
		if slices.Equal(c.Index, q.About.Index) {
			pos = i
		}
	}
	if pos < 0 {
		return nil, fmt.Errorf("%s is elided from the drawing (the output %v is drawn in part): ask about a drawn cell", q.About, m.OutShape)
	}
	if _, ok := m.Operands[q.From]; q.From != "" && !ok {
		return nil, fmt.Errorf("the scene has no operand %s", q.From)
	}
	a := &Answer{Reveal: sc.Spec}
	a.Reveal.Step = pos
	var names []string
	var reads []viz.Read
	for _, r := range m.Cells[pos].Reads {
		if q.From != "" && r.Operand != q.From {
			continue
		}
		reads = append(reads, r)
		t := viz.Focus{Kind: viz.FocusStorage, Operand: r.Operand, Offset: r.Offset}
		if !a.Matches(t) {
			a.Targets = append(a.Targets, t)
			names = append(names, t.String())
		}
	}
	if m.Scene == "reduce" {
		op := sc.Spec.Get("op")
		if op == "" {
			op = "sum"
		}
		a.Text = listOf(clip(names, 8), "and")
		a.Why = fmt.Sprintf("%s is the %s of the %d elements %s (the x cells that agree with it on every kept axis)", q.About, op, len(names), a.Text)
		return a, nil
	}
	a.Text = listOf(names, "and")
	var why []string
	for _, r := range reads {
		f, err := formula(m, r, q.About.Index)
		if err != nil {
			return nil, err
		}
		why = append(why, f)
	}
	a.Why = strings.Join(why, "; ")
	return a, nil
}

// formula writes out how out[idx] reaches r through the operand's layout,
// from tensor's trace, and checks that it lands where the model says.
func formula(m *viz.IndexModel, r viz.Read, idx []int) (string, error) {
	ol := m.Operands[r.Operand]
	l, err := tensor.NewLayout(ol.Shape, ol.Strides, ol.Offset)
	if err != nil {
		return "", err
	}
	var pre string
	at := idx
	if !slices.Equal(ol.Shape, m.OutShape) {
		// repeat: the kernel reads the expanded view at the output
		// cell's row-major position (the last reshape is a copy).
		at, err = rowMajor(m.OutShape, idx, ol.Shape)
		if err != nil {
			return "", err
		}
		pre = fmt.Sprintf("out[%s] is element [%s] of the expanded view %v, so ", joinInts(idx), joinInts(at), ol.Shape)
	}
	tr, err := l.Trace(at)
	if err != nil {
		return "", err
	}
	if tr.Offset != r.Offset {
		return "", fmt.Errorf("the trace of %v gives %s offset %d but the scene's model says %d", at, r.Operand, tr.Offset, r.Offset)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s offset = %d", pre, r.Operand, tr.Base)
	for _, t := range tr.Terms {
		if t.Stride < 0 {
			fmt.Fprintf(&b, " + %d·(%d)", t.Index, t.Stride)
		} else {
			fmt.Fprintf(&b, " + %d·%d", t.Index, t.Stride)
		}
		if t.Broadcast {
			b.WriteString(" (broadcast)")
		}
	}
	fmt.Fprintf(&b, " = %d", tr.Offset)
	return b.String(), nil
}

func (q *Question) readers(sc *viz.Scene, m *viz.IndexModel) (*Answer, error) {
	ol, ok := m.Operands[q.About.Operand]
	if !ok {
		return nil, fmt.Errorf("the scene has no operand %s", q.About.Operand)
	}
	if q.About.Offset < 0 || q.About.Offset >= ol.Storage {
		return nil, fmt.Errorf("%s is outside %s's storage of %d elements", q.About, q.About.Operand, ol.Storage)
	}
	a := &Answer{Reveal: sc.Spec}
	var names []string
	for _, c := range m.Cells {
		for _, r := range c.Reads {
			if r.Operand == q.About.Operand && r.Offset == q.About.Offset {
				t := viz.Focus{Kind: viz.FocusCell, Operand: "out", Index: c.Index}
				a.Targets = append(a.Targets, t)
				names = append(names, t.String())
				break
			}
		}
	}
	if len(a.Targets) == 0 {
		return nil, fmt.Errorf("no drawn output cell reads %s", q.About)
	}
	if q.takesOffset(sc) {
		a.Reveal.Values = map[string]string{}
		for k, v := range sc.Spec.Values {
			a.Reveal.Values[k] = v
		}
		a.Reveal.Values["offset"] = strconv.Itoa(q.About.Offset)
	}
	n := len(names)
	a.Text = listOf(clip(names, 8), "and")
	cells := "cell reads"
	if n > 1 {
		cells = "cells read"
	}
	a.Why = fmt.Sprintf("%d drawn output %s %s: %s", n, cells, q.About, a.Text)
	if n > 1 {
		a.Why += fmt.Sprintf(" (stride 0 on %s's broadcast dims sends them all to one element)", q.About.Operand)
	}
	return a, nil
}

// takesOffset reports whether the reveal can light q.About's readers
// with the scene's --offset (the first operand of a scene that takes it).
func (q *Question) takesOffset(sc *viz.Scene) bool {
	first := map[string]string{"expand": "x", "repeat": "x", "view": "x", "binary": "a"}[sc.Spec.Scene]
	return first != "" && first == q.About.Operand
}

func (q *Question) owner(sc *viz.Scene, m *viz.ShardModel) (*Answer, error) {
	if err := inShape(q.About.Index, m.Shape, "the logical tensor"); err != nil {
		return nil, err
	}
	a := &Answer{Reveal: sc.Spec}
	a.Reveal.Step = sc.Steps - 1
	var names, whys []string
	partial := ""
	for _, r := range m.Ranks {
		if within(q.About.Index, r.Ranges) {
			t := viz.Focus{Kind: viz.FocusDevice, Rank: r.Rank}
			a.Targets = append(a.Targets, t)
			names = append(names, t.String())
			whys = append(whys, fmt.Sprintf("rank %d's block %s", r.Rank, viz.FormatRanges(r.Ranges)))
			if r.Partial != nil {
				partial = *r.Partial
			}
		}
	}
	sbpNow := ""
	if len(m.Ranks) > 0 {
		sbpNow = m.Ranks[0].Sbp
	}
	a.Text = listOf(names, "and")
	switch {
	case len(names) == len(m.Ranks) && partial != "":
		a.Why = fmt.Sprintf("Under %s every device holds a partial value of %s: the tensor's value is the %s of all %d", sbpNow, q.About, partial, len(names))
	case len(names) == len(m.Ranks) && len(names) > 1:
		a.Why = fmt.Sprintf("Under %s every device holds the whole %v, %s included", sbpNow, m.Shape, q.About)
	default:
		a.Why = fmt.Sprintf("Under %s, %s lies in %s", sbpNow, q.About, listOf(whys, "and"))
		if partial != "" {
			a.Why += fmt.Sprintf(", as partial values whose %s is the tensor's", partial)
		}
	}
	return a, nil
}

func (q *Question) holds(sc *viz.Scene, m *viz.ShardModel) (*Answer, error) {
	for _, r := range m.Ranks {
		if r.Rank != q.About.Rank {
			continue
		}
		a := &Answer{Reveal: sc.Spec, Ranges: r.Ranges}
		a.Reveal.Step = sc.Steps - 1
		a.Text = fmt.Sprintf("the block %s of %v", viz.FormatRanges(r.Ranges), m.Shape)
		a.Why = fmt.Sprintf("Under %s, rank %d holds %s, a %v block", r.Sbp, r.Rank, viz.FormatRanges(r.Ranges), r.Shape)
		if r.Partial != nil {
			a.Why += fmt.Sprintf(", as a partial value (the tensor is the %s over the devices)", *r.Partial)
		}
		for _, n := range r.Shape {
			if n == 0 {
				return nil, fmt.Errorf("rank %d holds nothing (%v): ask about another rank", r.Rank, r.Shape)
			}
		}
		return a, nil
	}
	return nil, fmt.Errorf("the placement has no rank %d", q.About.Rank)
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
	t := q.clicked(sc, hot)
	if t.Kind != q.clickKind() || (t.Kind == viz.FocusCell && t.Operand != q.clickOperand()) {
		return false, fmt.Sprintf("Not an answer to this question: %s.", q.clickWhat())
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

// clicked is what a click on h answers: for reads, a cell of an input's
// grid (a reduce draws its input beside the output) stands for the storage
// element it reads, through the operand's layout in the model.
func (q *Question) clicked(sc *viz.Scene, t viz.Focus) viz.Focus {
	m, ok := sc.Model().(*viz.IndexModel)
	if q.Kind != "reads" || !ok || t.Kind != viz.FocusCell || t.Operand == "out" {
		return t
	}
	ol, ok := m.Operands[t.Operand]
	if !ok {
		return t
	}
	l, err := tensor.NewLayout(ol.Shape, ol.Strides, ol.Offset)
	if err != nil || len(t.Index) != l.Rank() {
		return t
	}
	return viz.Focus{Kind: viz.FocusStorage, Operand: t.Operand, Offset: l.Offset(t.Index)}
}

// fill replaces the placeholders of text.
func (q *Question) fill(text string, a *Answer, clicked string) string {
	return strings.NewReplacer("{about}", q.About.String(), "{answer}", a.Text, "{why}", a.Why, "{clicked}", clicked).Replace(text)
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
		if t := q.clicked(sc, h.Focus); a.Matches(t) && t.Kind == q.clickKind() {
			clickable = true
			break
		}
	}
	if !clickable {
		return fmt.Errorf("the answer (%s) is not drawn at step %d, so the learner cannot click it: ask at a step that draws it, or about another cell", a.Text, step)
	}
	switch q.Kind {
	case "reads":
		if a.Reveal.Step == step {
			return fmt.Errorf("step %d of the scene already selects %s and wires its reads: ask at another --step (the reveal goes to step %d)", step, q.About, step)
		}
	case "readers":
		if q.takesOffset(sc) && sc.Spec.Get("offset") == strconv.Itoa(q.About.Offset) {
			return fmt.Errorf("the scene's --offset %d already lights the readers: drop it (the reveal adds it)", q.About.Offset)
		}
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

// rowMajor is the index of shape `to` at the row-major position that idx
// has in shape `from`, both positions from tensor's contiguous strides.
func rowMajor(from tensor.Shape, idx []int, to tensor.Shape) ([]int, error) {
	f, err := tensor.Contiguous(from)
	if err != nil {
		return nil, err
	}
	t, err := tensor.Contiguous(to)
	if err != nil {
		return nil, err
	}
	n := f.Offset(idx)
	at := make([]int, t.Rank())
	for d := range at {
		at[d] = n / max(t.Stride(d), 1) % max(t.Dim(d), 1)
	}
	return at, nil
}
