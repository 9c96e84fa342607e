package lessons

import (
	"fmt"

	"github.com/stridelab/stridelab/viz"
)

// askHolds is "holds rank 2": what does rank 2 hold after the scene? The
// learner clicks a cell of the logical tensor; the answer is the rank's
// block in the shard model, one range per axis, and any cell in it is
// right.
type askHolds struct{}

func (askHolds) form() form {
	return form{name: "holds", usage: "holds rank N",
		about: target{viz.FocusDevice, "", "a device, e.g. holds rank 2"},
		click: target{viz.FocusCell, "global", "click a cell of the logical tensor"}}
}

func (k askHolds) prompt(q *Question, sc *viz.Scene) string {
	return capital(fmt.Sprintf("%swhat does %s hold%s? Predict it, then %s that it holds.", when(sc), q.About, of(sc), k.form().click.what))
}

func (askHolds) answer(q *Question, sc *viz.Scene) (*Answer, error) {
	m, err := shardModel(q, sc)
	if err != nil {
		return nil, err
	}
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

// shown: a shard scene shows no answer before its reveal, the last step.
func (askHolds) shown(*Question, *viz.Scene, *Answer) error { return nil }

func (askHolds) clicked(_ *viz.Scene, t viz.Focus) viz.Focus { return t }
