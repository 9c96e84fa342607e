package lessons

import (
	"fmt"

	"github.com/stridelab/stridelab/viz"
)

// askOwner is "owner [5,2]": which device holds element [5,2] of the
// logical tensor after the scene? The learner clicks a device's panel;
// the answer is every rank whose block in the shard model holds it.
type askOwner struct{}

func (askOwner) form() form {
	return form{name: "owner", usage: "owner […]",
		about: target{viz.FocusCell, "global", "an element of the logical tensor, e.g. owner [5,2]"},
		click: target{viz.FocusDevice, "", "click a device's panel"}}
}

func (askOwner) prompt(q *Question, sc *viz.Scene) string {
	return capital(fmt.Sprintf("%swhich device holds element %s%s? Predict it, then click the panel of a device that holds it.", when(sc), q.About, of(sc)))
}

func (askOwner) answer(q *Question, sc *viz.Scene) (*Answer, error) {
	m, err := shardModel(q, sc)
	if err != nil {
		return nil, err
	}
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

// shown: a shard scene shows no answer before its reveal, the last step.
func (askOwner) shown(*Question, *viz.Scene, *Answer) error { return nil }

func (askOwner) clicked(_ *viz.Scene, t viz.Focus) viz.Focus { return t }
