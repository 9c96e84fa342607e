package lessons

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// askBoxes is "boxes w": which step boxes w, and with which collective?
// The learner clicks a step's column; the answer is every boxing step of
// the plan (the program scene's model) that boxes the tensor w or makes
// the copy named w (a gradient boxed to its input's SBP, grad_w), and the
// reveal moves the scene to the first of them.
type askBoxes struct{}

func (askBoxes) form() form {
	return form{name: "boxes", usage: "boxes NAME", named: true,
		about: target{what: "a tensor of the program, e.g. boxes w"},
		click: stepClick}
}

// stepClick is what a program question's learner clicks.
var stepClick = target{viz.FocusStep, "", "click the step's column"}

func (k askBoxes) prompt(q *Question, sc *viz.Scene) string {
	return fmt.Sprintf("Which step boxes %s, and with which collective? Predict it, then %s.", q.Name, k.form().click.what)
}

func (askBoxes) answer(q *Question, sc *viz.Scene) (*Answer, error) {
	plan, err := programModel(q, sc)
	if err != nil {
		return nil, err
	}
	a := &Answer{Reveal: sc.Spec}
	var names, boxings []string
	for i, st := range plan.Steps {
		if st.Kind != planner.StepBoxing {
			continue
		}
		boxings = append(boxings, fmt.Sprintf("%s (step %d)", st.Tensor, i+1))
		if st.Tensor != q.Name && st.Name != q.Name {
			continue
		}
		t := viz.Focus{Kind: viz.FocusStep, Offset: i}
		if len(a.Targets) == 0 {
			a.Reveal.Step = i
			a.Why = fmt.Sprintf("Step %d boxes %s %v from %s to %s with %s, sending %s: %s",
				i+1, st.Tensor, []int(st.Shape), st.From, st.To, strings.Join(st.Collectives, " + "), tensor.FormatBytes(st.SendBytes), st.Why)
		}
		a.Targets = append(a.Targets, t)
		names = append(names, t.String())
	}
	if len(a.Targets) == 0 {
		if len(boxings) == 0 {
			return nil, fmt.Errorf("the plan boxes nothing: ask about another program")
		}
		return nil, fmt.Errorf("the plan never boxes %s; it boxes %s", q.Name, listOf(boxings, "and"))
	}
	a.Text = listOf(names, "or")
	return a, nil
}

// shown: the step must come before the boxing, which the scene marks as
// done once it has run.
func (askBoxes) shown(q *Question, sc *viz.Scene, a *Answer) error {
	if step := sc.Spec.Step; step >= a.Reveal.Step {
		return fmt.Errorf("at --step %d the scene has run the boxing of %s already: ask at an earlier --step (the reveal goes to --step %d)", step, q.Name, a.Reveal.Step)
	}
	return nil
}

func (askBoxes) clicked(_ *viz.Scene, t viz.Focus) viz.Focus { return programStep(t) }

// programModel is sc's model, the plan, or why q cannot ask sc.
func programModel(q *Question, sc *viz.Scene) (*viz.ProgramModel, error) {
	m, ok := sc.Model().(*viz.ProgramModel)
	if !ok {
		return nil, fmt.Errorf("%s needs a program scene, not %s", q.Kind, sc.Spec.Scene)
	}
	return m, nil
}

// programStep is what a click in a program scene answers: a step, also
// when the click lands on a device's shard under it.
func programStep(t viz.Focus) viz.Focus {
	if t.Kind == viz.FocusDevice {
		return viz.Focus{Kind: viz.FocusStep, Offset: t.Offset}
	}
	return t
}
