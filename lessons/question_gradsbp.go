package lessons

import (
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// askGradSbp is "grad-sbp w": where does the backward first lay out w's
// gradient as w is? A parameter's gradient lives as the parameter does,
// but the op that computes it gives it whatever SBP its signature gives:
// the learner predicts that SBP and clicks the step where the gradient
// first has w's own, the op itself when it comes out that way, else the
// boxing after it (a B weight's P(sum) gradient: the all-reduce). The
// answer is the step of the plan (the program scene's model) that holds
// w's gradient, plan.Grads[w], which the planner lays out as w is (the
// truth test checks it).
type askGradSbp struct{}

func (askGradSbp) form() form {
	return form{name: "grad-sbp", usage: "grad-sbp NAME", named: true,
		about: target{what: "an input of the program, e.g. grad-sbp w"},
		click: stepClick}
}

func (k askGradSbp) prompt(q *Question, sc *viz.Scene) string {
	in := "its input"
	if g, err := gradOf(q, sc); err == nil {
		in = g.input.Sbp.String()
	}
	return fmt.Sprintf("%s is %s. Where does the backward first lay out %s's gradient as %s is? Predict the SBP its op gives it, then %s: the op itself if it comes out %s, or the boxing after it.",
		q.Name, in, q.Name, q.Name, k.form().click.what, in)
}

// gradient is where an input's gradient is computed and laid out.
type gradient struct {
	input  planner.Step
	at     int // the step that holds it as the input is: plan.Grads[NAME]
	op     int // the step that computes it (at, or the op before a boxing)
	opStep planner.Step
}

func gradOf(q *Question, sc *viz.Scene) (*gradient, error) {
	plan, err := programModel(q, sc)
	if err != nil {
		return nil, err
	}
	g := &gradient{at: -1, op: -1}
	found := false
	for _, st := range plan.Steps {
		if st.Kind == planner.StepInput && st.Pass == graph.Forward && st.Name == q.Name {
			g.input, found = st, true
		}
	}
	if !found {
		return nil, fmt.Errorf("%s is not an input of the program: grad-sbp asks where an input's gradient is laid out as the input is", q.Name)
	}
	name, ok := plan.Grads[q.Name]
	if !ok {
		return nil, fmt.Errorf("the program has no gradient of %s: end it with grad NAME", q.Name)
	}
	for i, st := range plan.Steps {
		if st.Pass == graph.Backward && st.Name == name {
			g.at = i
		}
	}
	if g.at < 0 {
		return nil, fmt.Errorf("no step of the plan holds %s, the gradient of %s", name, q.Name)
	}
	g.op = g.at
	if st := plan.Steps[g.at]; st.Kind == planner.StepBoxing {
		for i, op := range plan.Steps[:g.at] {
			if op.Pass == graph.Backward && op.Name == st.Tensor {
				g.op = i
			}
		}
	}
	g.opStep = plan.Steps[g.op]
	return g, nil
}

func (askGradSbp) answer(q *Question, sc *viz.Scene) (*Answer, error) {
	g, err := gradOf(q, sc)
	if err != nil {
		return nil, err
	}
	plan, _ := programModel(q, sc)
	t := viz.Focus{Kind: viz.FocusStep, Offset: g.at}
	a := &Answer{Reveal: sc.Spec, Targets: []viz.Focus{t}, Text: t.String()}
	a.Reveal.Step = g.at
	op, at := g.opStep, plan.Steps[g.at]
	switch {
	case op.Kind == planner.StepInput:
		a.Why = fmt.Sprintf("%s does not reach the result: its gradient is zeros, laid out as %s is (%s) at step %d", q.Name, q.Name, at.Sbp, g.at+1)
	case g.op == g.at:
		a.Why = fmt.Sprintf("%s's gradient %s = %s %s (step %d) runs under %s and comes out %s, as %s is: no boxing", q.Name, op.Name, op.Op, strings.Join(op.Inputs, " "), g.op+1, op.Signature, op.OutSbp, q.Name)
	default:
		a.Why = fmt.Sprintf("%s's gradient %s = %s %s (step %d) runs under %s and comes out %s; step %d boxes it to %s, as %s is, with %s (%s)",
			q.Name, op.Name, op.Op, strings.Join(op.Inputs, " "), g.op+1, op.Signature, op.OutSbp, g.at+1, at.To, q.Name, strings.Join(at.Collectives, " + "), tensor.FormatBytes(at.SendBytes))
	}
	return a, nil
}

// shown: the step must come before the op that computes the gradient,
// whose column then shows its SBP.
func (askGradSbp) shown(q *Question, sc *viz.Scene, _ *Answer) error {
	g, err := gradOf(q, sc)
	if err != nil {
		return err
	}
	if step := sc.Spec.Step; step >= g.op {
		return fmt.Errorf("at --step %d the scene has computed %s's gradient already (--step %d): ask at an earlier --step", step, q.Name, g.op)
	}
	return nil
}

func (askGradSbp) clicked(_ *viz.Scene, t viz.Focus) viz.Focus { return programStep(t) }
