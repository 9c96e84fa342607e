package viz

import (
	"context"
	"fmt"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// The shard scenes (placement, plan, boxing) show a global tensor on a
// mesh of simulated devices: the logical tensor with every cell coloured
// and labelled by the devices that hold it, and one panel per device with
// its physical shard. Split blocks take their device's colour (uneven
// balanced splits show as they are); under B every device holds a full
// copy; a partial value is hatched and badged P(sum) until it is reduced.
// Shards, plans and boxing come from sbp; the scene only draws them.

// ShardModel is the meaning of a shard scene.
type ShardModel struct {
	Scene string       `json:"scene"`
	Shape tensor.Shape `json:"shape"`
	Ranks []RankShard  `json:"ranks"`
	Steps []StepBytes  `json:"steps"`
}

// RankShard is what one device holds: its logical range per axis of the
// global tensor, whether (and how) its value is partial, and its shape.
type RankShard struct {
	Rank    int          `json:"rank"`
	Coord   []int        `json:"coord"`
	Sbp     string       `json:"sbp"`
	Ranges  [][2]int     `json:"ranges"`
	Partial *string      `json:"partial"`
	Shape   tensor.Shape `json:"shape"`
}

// StepBytes is one boxing step's collective and every device's traffic,
// in placement order.
type StepBytes struct {
	Collective string  `json:"collective"`
	MeshDim    int     `json:"mesh_dim"`
	From       string  `json:"from"`
	To         string  `json:"to"`
	SendBytes  []int64 `json:"send_bytes"`
	RecvBytes  []int64 `json:"recv_bytes"`
}

// shardScene holds what the frames draw.
type shardScene struct {
	spec      Spec
	title     string
	notes     []string
	shape     tensor.Shape
	placement sbp.Placement
	layouts   []sbp.NdSbp // the layout shown at each step
	captions  [][]string  // the panel's lines at each step
	focus     []int       // the device position each step focuses on, -1 for none
	plan      *sbp.OpPlan // plan: the per-rank rewrite
	boxing    *sbp.Boxing // boxing: the steps
	op        sbp.Op      // plan: the op, its input shapes and SBPs
	inShapes  []tensor.Shape
	inSbps    []sbp.NdSbp
}

func buildShardScene(_ context.Context, spec Spec) (*Scene, error) {
	shape, err := tensor.ParseShape(spec.Get("shape"))
	if err != nil {
		return nil, onField("shape", err)
	}
	p, err := sbp.ParsePlacement(spec.Get("placement"))
	if err != nil {
		return nil, onField("placement", err)
	}
	s := &shardScene{spec: spec, shape: shape, placement: p}
	switch spec.Scene {
	case "placement":
		nd, err := sbp.ParseNd(spec.Get("sbp"))
		if err != nil {
			return nil, onField("sbp", err)
		}
		if err := sbp.Validate(shape, p, nd); err != nil {
			return nil, onField("sbp", err, "shape", "placement")
		}
		s.title = fmt.Sprintf("float32 %v as %v on %v", shape, nd, p)
		s.notes = []string{sbpMeaning(nd)}
		s.layouts = append(s.layouts, nd)
		s.captions = append(s.captions, []string{"every device's shard; step through them one by one"})
		s.focus = append(s.focus, -1)
		shards, _ := sbp.Shards(shape, p, nd)
		for _, sh := range shards {
			s.layouts = append(s.layouts, nd)
			s.focus = append(s.focus, sh.Position)
			s.captions = append(s.captions, shardLines(sh))
		}
	case "boxing":
		from, err := sbp.ParseNd(spec.Get("from"))
		if err != nil {
			return nil, onField("from", err)
		}
		if err := sbp.Validate(shape, p, from); err != nil {
			return nil, onField("from", err, "shape", "placement")
		}
		to, err := sbp.ParseNd(spec.Get("to"))
		if err != nil {
			return nil, onField("to", err)
		}
		b, err := sbp.PlanBoxing(shape, tensor.Float32, p, from, to)
		if err != nil {
			return nil, onField("to", err, "from", "shape", "placement")
		}
		s.boxing = &b
		s.title = fmt.Sprintf("boxing float32 %v from %v to %v on %v: %s", shape, from, to, p, b.Collective)
		s.notes = []string{fmt.Sprintf("%d step(s); %d bytes sent in all", len(b.Steps), b.SendBytes)}
		s.layouts = append(s.layouts, from)
		s.focus = append(s.focus, -1)
		s.captions = append(s.captions, []string{"before: " + from.String()})
		for k, st := range b.Steps {
			s.layouts = append(s.layouts, st.To)
			s.focus = append(s.focus, -1)
			lines := []string{fmt.Sprintf("step %d: %s along mesh dim %d", k+1, st.Collective, st.MeshDim), fmt.Sprintf("%v → %v", st.From, st.To), "rank   send B    recv B"}
			for _, t := range st.Ranks {
				lines = append(lines, fmt.Sprintf("%4d %8d  %8d", t.Rank, t.SendBytes, t.RecvBytes))
			}
			s.captions = append(s.captions, lines)
		}
	case "plan":
		op, shapes, nds, err := planArgs(spec, shape)
		if err != nil {
			return nil, err
		}
		plan, err := sbp.PlanOp(op, shapes, p, nds)
		if err != nil {
			return nil, onField("sbp", err, "shape", "placement", "b-shape", "b-sbp", "op", "size", "times", "to", "reduce", "permute", "dim")
		}
		s.plan, s.op, s.inShapes, s.inSbps = &plan, op, shapes, nds
		s.shape = plan.OutShape
		s.title = fmt.Sprintf("%s on %v", plan.Op, p)
		s.notes = []string{fmt.Sprintf("signature %s; the output is %v", strings.Join(plan.Signatures, " | "), plan.OutSbp)}
		for _, r := range plan.Ranks {
			s.layouts = append(s.layouts, plan.OutSbp)
			pos := 0
			for i := 0; i < p.Size(); i++ {
				if p.Rank(i) == r.Rank {
					pos = i
				}
			}
			s.focus = append(s.focus, pos)
			lines := []string{fmt.Sprintf("rank %d %v runs on its shard:", r.Rank, r.Coord),
				fmt.Sprintf("in  %v strides %v", r.InShape, r.InStride)}
			if r.BShape != nil {
				lines = append(lines, fmt.Sprintf("b   %v strides %v", r.BShape, r.BStride))
			}
			switch {
			case r.ExpandSize != nil:
				lines = append(lines, fmt.Sprintf("expand size %v", r.ExpandSize))
			case r.RepeatTimes != nil:
				lines = append(lines, fmt.Sprintf("repeat times %v", r.RepeatTimes))
			case r.ReduceTo != nil:
				lines = append(lines, fmt.Sprintf("reduce to %v", r.ReduceTo))
			}
			lines = append(lines, fmt.Sprintf("out %v strides %v", r.OutShape, r.OutStride), "out range "+FormatRanges(r.OutRange))
			if r.Partial {
				lines = append(lines, "its output is partial")
			}
			s.captions = append(s.captions, lines)
		}
	}
	m, err := s.model()
	if err != nil {
		return nil, err
	}
	return &Scene{Spec: spec, Title: s.title, Steps: len(s.layouts), impl: s, model: m}, nil
}

// planArgs turns a plan spec into sbp's op, the input shapes and SBPs;
// each fault is blamed on the field that holds it.
func planArgs(spec Spec, shape tensor.Shape) (sbp.Op, []tensor.Shape, []sbp.NdSbp, error) {
	name := spec.Get("op")
	args := OpArgs{Size: spec.Get("size"), Times: spec.Get("times"), To: spec.Get("to"), Reduce: spec.Get("reduce"),
		Perm: spec.Get("permute"), Dim: spec.Get("dim")}
	if name == "reduce" && args.Reduce != "" {
		if _, err := tensor.ParseReduceOp(args.Reduce); err != nil {
			return nil, nil, nil, onField("reduce", err)
		}
	}
	op, err := ParseOp(name, args)
	if err != nil {
		// ParseOp's fault is in the one argument name's op reads, or
		// in the name itself.
		key, ok := map[string]string{"expand": "size", "repeat": "times", "reduce": "to", "reshape": "to", "permute": "permute", "softmax": "dim"}[name]
		if !ok {
			key = "op"
		}
		return nil, nil, nil, onField(key, err, "op")
	}
	shapes := []tensor.Shape{shape}
	sbps := [][2]string{{"sbp", spec.Get("sbp")}}
	if op.Arity() == 2 {
		if spec.Get("b-shape") == "" {
			return nil, nil, nil, onField("b-shape", fmt.Errorf("viz: plan --op %s needs --b-shape", name), "op")
		}
		b, err := tensor.ParseShape(spec.Get("b-shape"))
		if err != nil {
			return nil, nil, nil, onField("b-shape", err)
		}
		shapes = append(shapes, b)
		bs := spec.Get("b-sbp")
		if bs == "" {
			bs = "B"
		}
		sbps = append(sbps, [2]string{"b-sbp", bs})
	}
	var nds []sbp.NdSbp
	for _, s := range sbps {
		nd, err := sbp.ParseNd(s[1])
		if err != nil {
			return nil, nil, nil, onField(s[0], err)
		}
		nds = append(nds, nd)
	}
	return op, shapes, nds, nil
}

func sbpMeaning(nd sbp.NdSbp) string {
	var parts []string
	for m, s := range nd {
		switch s.Kind {
		case sbp.Split:
			parts = append(parts, fmt.Sprintf("mesh dim %d splits axis %d (balanced: sizes differ by at most 1)", m, s.Axis))
		case sbp.Broadcast:
			parts = append(parts, fmt.Sprintf("mesh dim %d broadcasts (each device a full copy)", m))
		case sbp.Partial:
			parts = append(parts, fmt.Sprintf("mesh dim %d is partial: the devices' values %s to the tensor", m, map[tensor.ReduceOp]string{tensor.Sum: "sum", tensor.MaxAll: "max", tensor.MinAll: "min"}[s.Op]))
		}
	}
	return strings.Join(parts, "; ")
}

func shardLines(sh sbp.Shard) []string {
	lines := []string{fmt.Sprintf("rank %d at mesh %v holds", sh.Rank, sh.Coord), fmt.Sprintf("%v, range %s", sh.Shape, FormatRanges(shardRanges(sh)))}
	if sh.Partial {
		lines = append(lines, "a partial value of that range")
	}
	return lines
}

// FormatRanges spells a block of a tensor, one [lo, hi) range per axis,
// as a slice would: [[0 7] [0 33]] is "[0:7, 0:33]".
func FormatRanges(r [][2]int) string {
	parts := make([]string, len(r))
	for d, x := range r {
		parts[d] = fmt.Sprintf("%d:%d", x[0], x[1])
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// model is the scene's meaning: the layout after the last step.
func (s *shardScene) model() (*ShardModel, error) {
	last := s.layouts[len(s.layouts)-1]
	shards, err := sbp.Shards(s.shape, s.placement, last)
	if err != nil {
		return nil, err
	}
	m := &ShardModel{Scene: s.spec.Scene, Shape: s.shape.Clone(), Steps: []StepBytes{}}
	for _, sh := range shards {
		r := RankShard{Rank: sh.Rank, Coord: sh.Coord, Sbp: last.String(), Shape: sh.Shape, Ranges: shardRanges(sh)}
		if sh.Partial {
			for _, x := range last {
				if x.Kind == sbp.Partial {
					op := x.Op.String()
					r.Partial = &op
				}
			}
		}
		m.Ranks = append(m.Ranks, r)
	}
	if s.boxing != nil {
		for _, st := range s.boxing.Steps {
			sb := StepBytes{Collective: string(st.Collective), MeshDim: st.MeshDim, From: st.From.String(), To: st.To.String()}
			for _, t := range st.Ranks {
				sb.SendBytes = append(sb.SendBytes, t.SendBytes)
				sb.RecvBytes = append(sb.RecvBytes, t.RecvBytes)
			}
			m.Steps = append(m.Steps, sb)
		}
	}
	return m, nil
}
