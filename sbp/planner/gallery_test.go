package planner

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/tensor"
)

// galleryEntry is one line of docs/gallery/gallery.sh: its program's
// source, cluster and cost, and its caption.
type galleryEntry struct {
	src, cluster, cost, caption string
	exact                       bool
}

// galleryEntries reads the gallery's program lines by name.
func galleryEntries(t *testing.T) map[string]galleryEntry {
	t.Helper()
	list, err := os.ReadFile("../../docs/gallery/gallery.sh")
	if err != nil {
		t.Fatal(err)
	}
	flag := func(args, name string) string {
		m := regexp.MustCompile(`--` + name + ` (\S+)`).FindStringSubmatch(args)
		if m == nil {
			return ""
		}
		return m[1]
	}
	out := map[string]galleryEntry{}
	for _, line := range strings.Split(string(list), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 5 || !strings.HasPrefix(f[1], "program ") {
			continue
		}
		m := regexp.MustCompile(`--src '([^']*)'`).FindStringSubmatch(f[1])
		if m == nil {
			continue
		}
		out[f[0]] = galleryEntry{src: m[1], cluster: flag(f[1], "cluster"), cost: flag(f[1], "cost"), caption: f[4],
			exact: strings.Contains(f[1], "--strategy exact")}
	}
	return out
}

// galleryPlan plans the gallery's program name as its line asks (its
// strategy, cluster and cost) and returns the plan and the caption.
func galleryPlan(t *testing.T, entries map[string]galleryEntry, name string) (*Plan, string) {
	t.Helper()
	strategy := Greedy
	if entries[name].exact {
		strategy = Exact
	}
	return galleryPlanAs(t, entries, name, strategy)
}

// galleryPlanAs plans the gallery's program name on its line's cluster
// and cost with the strategy given.
func galleryPlanAs(t *testing.T, entries map[string]galleryEntry, name string, strategy Strategy) (*Plan, string) {
	t.Helper()
	e, ok := entries[name]
	if !ok {
		t.Fatalf("the gallery has no %s", name)
	}
	o := Options{Cost: Cost(e.cost)}
	if e.cluster != "" {
		c, ok := cluster.Preset(e.cluster)
		if !ok {
			t.Fatalf("%s: no preset %q", name, e.cluster)
		}
		o.Cluster = &c
	}
	p := planned(t, e.src, strategy)
	pl, err := NewPlanWith(p.Program, strategy, o)
	if err != nil {
		t.Fatal(err)
	}
	return pl, e.caption
}

// TestGalleryTimeAndMemoryCaptions: the gallery's captions of time and
// memory say what the plans compute. On two-h100-nodes the plan with the
// fewest bytes is not the fastest (8.00 KiB in 23.0 µs, an all-reduce
// across the nodes, against 20.0 KiB in 13.1 µs); ZeRO-3 sends what data
// parallelism sends in an all-gather and a reduce-scatter, and at this
// size, where the activations outweigh the weight, holds more at its peak
// (the gathered copy is kept for the backward).
func TestGalleryTimeAndMemoryCaptions(t *testing.T) {
	entries := galleryEntries(t)
	plan := func(name string) (*Plan, string) { return galleryPlan(t, entries, name) }
	says := func(name, caption string, facts ...string) {
		for _, f := range facts {
			if !strings.Contains(caption, f) {
				t.Errorf("%s's caption does not say %q, which the plan computes", name, f)
			}
		}
	}
	collectives := func(p *Plan) []string {
		var out []string
		for _, s := range p.Steps {
			if s.Kind == StepBoxing && s.SendBytes > 0 {
				out = append(out, s.Collectives...)
			}
		}
		return out
	}

	byBytes, bc := plan("program-cluster-bytes")
	byTime, tc := plan("program-cluster-time")
	if byBytes.TotalSendBytes >= byTime.TotalSendBytes || byBytes.TimeS <= byTime.TimeS {
		t.Errorf("by bytes %d B in %g s, by time %d B in %g s: want fewer bytes but more time", byBytes.TotalSendBytes, byBytes.TimeS, byTime.TotalSendBytes, byTime.TimeS)
	}
	says("program-cluster-bytes", bc, tensor.FormatBytes(byBytes.TotalSendBytes), cluster.FormatSeconds(byBytes.TimeS))
	says("program-cluster-time", tc, tensor.FormatBytes(byTime.TotalSendBytes), cluster.FormatSeconds(byTime.TimeS), cluster.FormatSeconds(byTime.GreedyTimeS))
	if !slices.Contains(collectives(byBytes), "all-reduce") || slices.Contains(collectives(byTime), "all-reduce") {
		t.Errorf("by bytes %v, by time %v: want the all-reduce in the bytes plan only", collectives(byBytes), collectives(byTime))
	}

	dp, dc := plan("program-dp-memory")
	z3, zc := plan("program-zero3")
	dpPeak, _ := dp.Peak()
	z3Peak, _ := z3.Peak()
	if got := collectives(dp); !slices.Equal(got, []string{"all-reduce"}) {
		t.Errorf("data parallelism's collectives %v, want one all-reduce", got)
	}
	if got := collectives(z3); !slices.Equal(got, []string{"all-gather", "reduce-scatter"}) {
		t.Errorf("ZeRO-3's collectives %v, want an all-gather and a reduce-scatter", got)
	}
	if dp.TotalSendBytes != z3.TotalSendBytes || z3Peak[0] <= dpPeak[0] {
		t.Errorf("data parallelism %d B, peak %d; ZeRO-3 %d B, peak %d: want the same bytes and more held, as the caption says", dp.TotalSendBytes, dpPeak[0], z3.TotalSendBytes, z3Peak[0])
	}
	says("program-dp-memory", dc, tensor.FormatBytes(dp.TotalSendBytes), cluster.FormatSeconds(dp.CommTimeS), tensor.FormatBytes(dpPeak[0]))
	says("program-zero3", zc, tensor.FormatBytes(z3.TotalSendBytes), tensor.FormatBytes(z3Peak[0]), tensor.FormatBytes(dpPeak[0]))
}

// collectiveSeen is one collective a plan runs: the boxing's pass, the
// tensor it moves, the collective along one mesh dim, and the bytes the
// devices send for it together.
type collectiveSeen struct {
	pass       graph.Pass
	tensor     string
	collective string
	meshDim    int
	bytes      int64
}

// planCollectives reads a plan's collectives from its JSON (the contract
// a front end reads): every boxing step that sends anything, split into
// its collectives per mesh dim (sbp.PlanBoxing of the step's shape, from
// and to), each with the bytes its devices send.
func planCollectives(t *testing.T, pl *Plan) []collectiveSeen {
	t.Helper()
	data, err := json.Marshal(pl)
	if err != nil {
		t.Fatal(err)
	}
	var read struct {
		Steps []struct {
			Kind      StepKind     `json:"kind"`
			Pass      graph.Pass   `json:"pass"`
			Tensor    string       `json:"tensor"`
			Shape     tensor.Shape `json:"shape"`
			From      string       `json:"from"`
			To        string       `json:"to"`
			SendBytes int64        `json:"send_bytes"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(data, &read); err != nil {
		t.Fatal(err)
	}
	var out []collectiveSeen
	for _, s := range read.Steps {
		if s.Kind != StepBoxing || s.SendBytes == 0 {
			continue
		}
		from, err := sbp.ParseNd(s.From)
		if err != nil {
			t.Fatal(err)
		}
		to, err := sbp.ParseNd(s.To)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sbp.PlanBoxing(s.Shape, tensor.Float32, pl.Program.Placement, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if b.SendBytes != s.SendBytes {
			t.Errorf("box %s %s -> %s: the JSON says %d B, its boxing %d B", s.Tensor, s.From, s.To, s.SendBytes, b.SendBytes)
		}
		for _, st := range b.Steps {
			var sent int64
			for _, r := range st.Ranks {
				sent += r.SendBytes
			}
			if sent > 0 {
				out = append(out, collectiveSeen{s.Pass, s.Tensor, string(st.Collective), st.MeshDim, sent})
			}
		}
	}
	return out
}

// TestGalleryLayerCaptions: the gallery's real layers run the collectives
// their captions name, forward and backward, and no others. Megatron's
// MLP (Shoeybi et al. 2019): one all-reduce of y in the forward (the g
// operator) and one of x's gradient in the backward (f); attention with
// its heads split (reshape, permute, batched matmul and softmax on each
// device's heads) the same two and nothing else. Sequence
// parallelism (Korthikanti et al. 2022): an all-gather before the
// column-parallel matmul and a reduce-scatter after the row-parallel one,
// and in the backward the same two the other way round. ZeRO-3 / FSDP
// (Rajbhandari et al. 2020): the weight all-gathered before use, its
// gradient reduce-scattered. Each caption gives every collective's word
// and bytes and the total.
func TestGalleryLayerCaptions(t *testing.T) {
	entries := galleryEntries(t)
	cases := []struct {
		name string
		want []collectiveSeen
	}{
		{"program-megatron-mlp", []collectiveSeen{
			{graph.Forward, "y", "all-reduce", 0, 48 << 10},
			{graph.Backward, "grad_x.h", "all-reduce", 0, 48 << 10},
		}},
		{"program-sequence-parallel", []collectiveSeen{
			{graph.Forward, "nn", "all-gather", 0, 24 << 10},
			{graph.Forward, "y", "reduce-scatter", 0, 24 << 10},
			{graph.Backward, "grad_o", "all-gather", 0, 24 << 10},
			{graph.Backward, "grad_nb", "reduce-scatter", 0, 24 << 10},
			// the layer norm's scale and shift: each device's sum over its own tokens
			{graph.Backward, "grad_gm.ns", "all-reduce", 0, 768},
			{graph.Backward, "grad_bt.nn", "all-reduce", 0, 768},
		}},
		{"program-attention-heads", []collectiveSeen{
			{graph.Forward, "y", "all-reduce", 0, 12 << 10},
			{graph.Backward, "grad_x.sum", "all-reduce", 0, 12 << 10},
		}},
		{"program-zero3", []collectiveSeen{
			{graph.Forward, "w", "all-gather", 0, 384 << 10},
			{graph.Backward, "grad_wb", "reduce-scatter", 0, 384 << 10},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pl, caption := galleryPlan(t, entries, tc.name)
			got := planCollectives(t, pl)
			if !slices.Equal(got, tc.want) {
				t.Errorf("collectives %+v, want %+v", got, tc.want)
			}
			var total int64
			for _, c := range tc.want {
				total += c.bytes
				for _, fact := range []string{c.collective, tensor.FormatBytes(c.bytes)} {
					if !strings.Contains(caption, fact) {
						t.Errorf("the caption does not say %q (the %s %s of %s)", fact, c.pass, c.collective, c.tensor)
					}
				}
			}
			if pl.TotalSendBytes != total || !strings.Contains(caption, tensor.FormatBytes(total)) {
				t.Errorf("the plan sends %d B, its collectives %d B: want the caption to say %s", pl.TotalSendBytes, total, tensor.FormatBytes(total))
			}
			if greedy := tensor.FormatBytes(pl.GreedySendBytes); pl.GreedySendBytes != total && !strings.Contains(caption, "Greedy, OneFlow's eager rule, sends "+greedy) {
				t.Errorf("greedy sends %s, exact %s: want the caption to say so", greedy, tensor.FormatBytes(total))
			}
		})
	}
}

// TestGallerySoftmaxPair: the gallery's two softmaxes of x split along
// the softmax's dim send what their captions say. The softmax op boxes x
// and w to whole rows (two all-to-alls in the forward), its backward,
// OneFlow's softmax_grad, runs on whole rows too, and the gradients are
// boxed back (two all-to-alls); written out of max,
// sub, exp, sum and div, x stays split and the forward all-reduces the
// rows' partial max and partial sum, [8 1] each, half the bytes.
func TestGallerySoftmaxPair(t *testing.T) {
	entries := galleryEntries(t)
	type sent struct {
		collectives []string // "all-to-all 384 B", in order
		bytes       int64
	}
	plan := func(name string) (*Plan, map[graph.Pass]*sent, string) {
		e, ok := entries[name]
		if !ok || !e.exact {
			t.Fatalf("the gallery has no exact %s", name)
		}
		p := planned(t, e.src, Exact)
		by := map[graph.Pass]*sent{graph.Forward: {}, graph.Backward: {}}
		for _, s := range p.Steps {
			if s.Kind == StepBoxing && s.SendBytes > 0 {
				ps := by[s.Pass]
				for _, c := range s.Collectives {
					ps.collectives = append(ps.collectives, c+" "+tensor.FormatBytes(s.SendBytes))
				}
				ps.bytes += s.SendBytes
			}
		}
		return p, by, e.caption
	}
	says := func(name, caption string, facts ...string) {
		for _, f := range facts {
			if !strings.Contains(caption, f) {
				t.Errorf("%s's caption does not say %q, which the plan computes", name, f)
			}
		}
	}
	fused, fs, fc := plan("program-softmax")
	byHand, hs, hc := plan("program-softmax-by-hand")
	if got := strings.Join(fs[graph.Forward].collectives, ", "); got != "all-to-all 384 B, all-to-all 384 B" {
		t.Errorf("the softmax op's forward sends %s, want two all-to-alls of 384 B", got)
	}
	if got := strings.Join(fs[graph.Backward].collectives, ", "); got != "all-to-all 384 B, all-to-all 384 B" {
		t.Errorf("the softmax op's backward sends %s, want two all-to-alls of 384 B", got)
	}
	if got := strings.Join(hs[graph.Forward].collectives, ", "); got != "all-reduce 192 B, all-reduce 192 B" {
		t.Errorf("the written-out softmax's forward sends %s, want two all-reduces of 192 B (the rows' max and sum)", got)
	}
	if got := strings.Join(hs[graph.Backward].collectives, ", "); got != "all-reduce 192 B, reduce-scatter 96 B, reduce-scatter 96 B, all-gather 96 B" {
		t.Errorf("the written-out softmax's backward sends %s", got)
	}
	if 2*hs[graph.Forward].bytes != fs[graph.Forward].bytes {
		t.Errorf("forward bytes: written out %d, softmax %d; want half", hs[graph.Forward].bytes, fs[graph.Forward].bytes)
	}
	says("program-softmax", fc, "an all-to-all, 384 B", "another all-to-all, 384 B", tensor.FormatBytes(fs[graph.Forward].bytes)+" in the forward",
		"(two all-to-alls, 384 B each)", tensor.FormatBytes(fused.TotalSendBytes)+" in all", "sends the same "+tensor.FormatBytes(fused.GreedySendBytes))
	says("program-softmax-by-hand", hc, "P(max)", "all-reduce of those 8 maxima (192 B)", "P(sum), all-reduced too (192 B)",
		tensor.FormatBytes(hs[graph.Forward].bytes)+" in the forward", "an all-reduce (192 B), two reduce-scatters and an all-gather (96 B each)",
		tensor.FormatBytes(byHand.TotalSendBytes)+" in all against the fused softmax's "+tensor.FormatBytes(fused.TotalSendBytes),
		tensor.FormatBytes(byHand.GreedySendBytes))
}
