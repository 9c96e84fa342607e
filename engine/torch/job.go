package torch

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/npyfile"
)

// The job is what a run hands its workers: JOB/job.json (the types
// below), JOB/in/POS.npz (the input shards of the device at position
// POS, INDEX.npy for each input step), JOB/worker.py and the ops.py it
// imports (the local arithmetic, which Emit inlines). Shapes are lists
// of ints ([] for a scalar); every shard is float32, C order.

// job is JOB/job.json.
type job struct {
	Version  int       `json:"version"`    // 1
	World    int       `json:"world_size"` // one process per device
	Backend  string    `json:"backend"`    // gloo
	Device   string    `json:"device"`     // cpu
	DType    string    `json:"dtype"`      // float32, the programs' dtype
	Mesh     []int     `json:"mesh"`       // the placement's hierarchy
	Ranks    []int     `json:"ranks"`      // the placement's rank at each position
	Groups   [][][]int `json:"groups"`     // per mesh dim, its groups of positions: the ranks of each torch.distributed.new_group
	TimeoutS float64   `json:"timeout_s"`  // init_process_group's timeout
	Steps    []jobStep `json:"steps"`      // the plan's steps, in order
	Save     []int     `json:"save"`       // the steps whose shards the workers write to JOB/out/INDEX.POS.npy
}

// jobStep is one plan step, with what every device needs to run it.
type jobStep struct {
	Index int      `json:"index"`
	Kind  string   `json:"kind"` // input, op or boxing
	Name  string   `json:"name"`
	Shape []int    `json:"shape"` // logical
	Sbp   string   `json:"sbp"`   // of its output
	Reads []string `json:"reads"` // op: its inputs' step names; boxing: the tensor boxed

	// op
	Op     string     `json:"op,omitempty"`     // the sbp op's name: expand, repeat, reduce, repeat_grad, matmul, transpose, scale, add … eq
	Reduce string     `json:"reduce,omitempty"` // reduce: sum, max or min
	Factor float64    `json:"factor,omitempty"` // scale
	Args   []rankArgs `json:"args,omitempty"`   // per position: sbp.PlanOp's rewrite

	// boxing
	Collectives []jobCollective `json:"collectives,omitempty"`
}

// rankArgs is sbp.PlanOp's rewrite of an op on one device.
type rankArgs struct {
	InShapes    [][]int `json:"in_shapes"`
	OutShape    []int   `json:"out_shape"`
	OutStride   []int   `json:"out_stride"`
	ExpandSize  []int   `json:"expand_size"`  // expand
	RepeatTimes []int   `json:"repeat_times"` // repeat, repeat_grad
	ReduceTo    []int   `json:"reduce_to"`    // reduce, repeat_grad
	View        []int   `json:"view"`         // repeat_grad: the input viewed as its repeat's ExpandSize …
	ViewTo      []int   `json:"view_to"`      // … and summed to its InReshape (tensor.RepeatBackward)
}

// jobCollective is one sbp.Step of a boxing: one collective along one
// mesh dim, x -> y, and every device's shard shape before and after.
type jobCollective struct {
	MeshDim    int     `json:"mesh_dim"`
	Collective string  `json:"collective"` // sbp's name: all-gather, all-reduce, reduce-scatter, all-to-all, local-slice, local-zero, local-pad
	X          jobSbp  `json:"x"`
	Y          jobSbp  `json:"y"`
	Before     [][]int `json:"before"` // per position
	After      [][]int `json:"after"`
}

// jobSbp is one SBP: kind S, B or P; the split axis; the partial's op.
type jobSbp struct {
	Kind string `json:"kind"`
	Axis int    `json:"axis"`
	Op   string `json:"op"`
}

func toJobSbp(s sbp.SBP) jobSbp {
	switch s.Kind {
	case sbp.Split:
		return jobSbp{Kind: "S", Axis: s.Axis}
	case sbp.Partial:
		return jobSbp{Kind: "P", Op: s.Op.String()}
	}
	return jobSbp{Kind: "B"}
}

// ints is s as a JSON list that is never null.
func ints(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// groupsOf returns the positions of the devices that differ only in mesh
// dim m, one group per setting of the other coordinates, each in mesh
// order: the devices a collective along m runs among (sbp's groups).
func groupsOf(p sbp.Placement, m int) [][]int {
	h := p.Hierarchy()
	inner := 1
	for _, n := range h[m+1:] {
		inner *= n
	}
	var out [][]int
	for i := range p.Size() {
		if (i/inner)%h[m] != 0 {
			continue
		}
		g := make([]int, h[m])
		for c := range g {
			g[c] = i + c*inner
		}
		out = append(out, g)
	}
	return out
}

// builder makes a job step by step: each input's shards, each op's
// per-device arguments (sbp.PlanOp), each boxing's collectives
// (sbp.PlanBoxing). It knows every step's shape and SBP by name.
type builder struct {
	p      sbp.Placement
	job    job
	shards map[int][]tensor.Tensor // input step index → shard per position
	notes  []string
	shape  map[string]tensor.Shape
	sbp    map[string]sbp.NdSbp
	// layoutOnly records the inputs' shapes and SBPs without their
	// values (Emit: the emitted file makes its own shards).
	layoutOnly bool
}

func newBuilder(p sbp.Placement, timeoutS float64) *builder {
	b := &builder{p: p, shards: map[int][]tensor.Tensor{}, shape: map[string]tensor.Shape{}, sbp: map[string]sbp.NdSbp{}}
	b.job = job{Version: 1, World: p.Size(), Backend: "gloo", Device: "cpu", DType: "float32",
		Mesh: p.Hierarchy(), Ranks: p.Ranks(), TimeoutS: timeoutS, Save: []int{}}
	for m := range p.MeshRank() {
		b.job.Groups = append(b.job.Groups, groupsOf(p, m))
	}
	return b
}

func (b *builder) release() {
	for _, ts := range b.shards {
		for _, t := range ts {
			t.Release()
		}
	}
}

// add appends a step and records its name's shape and SBP.
func (b *builder) add(js jobStep, shape tensor.Shape, nd sbp.NdSbp) int {
	js.Index, js.Shape, js.Sbp = len(b.job.Steps), ints(shape), nd.String()
	if js.Reads == nil {
		js.Reads = []string{}
	}
	b.job.Steps = append(b.job.Steps, js)
	b.shape[js.Name], b.sbp[js.Name] = shape.Clone(), nd.Clone()
	return js.Index
}

// save asks the workers for the shards of step i.
func (b *builder) save(i int) {
	if !slices.Contains(b.job.Save, i) {
		b.job.Save = append(b.job.Save, i)
	}
}

// input lays full out on the placement by nd (inputShards).
func (b *builder) input(name string, full tensor.Tensor, nd sbp.NdSbp) error {
	shards, note, err := inputShards(full, b.p, nd)
	if err != nil {
		return err
	}
	if note != "" {
		b.notes = append(b.notes, fmt.Sprintf("input %s: %s", name, note))
	}
	b.shards[b.add(jobStep{Kind: string(program.StepInput), Name: name}, full.Shape(), nd)] = shards
	return nil
}

// op appends op on the steps reads, laid out as in (sbp.PlanOp's
// rewrite per device), and returns its plan.
func (b *builder) op(name string, op sbp.Op, reads []string, in []sbp.NdSbp) (sbp.OpPlan, error) {
	var shapes []tensor.Shape
	for i, r := range reads {
		sh, ok := b.shape[r]
		if !ok {
			return sbp.OpPlan{}, fmt.Errorf("it reads %s, which no earlier step defines", r)
		}
		if i < len(in) && !b.sbp[r].Equal(in[i]) {
			return sbp.OpPlan{}, fmt.Errorf("it takes %s as %v, but %s is %v", r, in[i], r, b.sbp[r])
		}
		shapes = append(shapes, sh)
	}
	plan, err := sbp.PlanOp(op, shapes, b.p, in)
	if err != nil {
		return sbp.OpPlan{}, err
	}
	par := sbp.Params(op)
	js := jobStep{Kind: string(program.StepOp), Name: name, Reads: slices.Clone(reads), Op: par.Name, Factor: par.Factor}
	if par.Name == "reduce" {
		js.Reduce = par.Reduce.String()
	}
	for _, rp := range plan.Ranks {
		a := rankArgs{InShapes: [][]int{ints(rp.InShape)}, OutShape: ints(rp.OutShape), OutStride: ints(rp.OutStride)}
		if len(shapes) > 1 {
			a.InShapes = append(a.InShapes, ints(rp.BShape))
		}
		switch par.Name {
		case "expand":
			a.ExpandSize = ints(rp.ExpandSize)
		case "repeat":
			a.RepeatTimes = ints(rp.RepeatTimes)
		case "reduce":
			a.ReduceTo = ints(rp.ReduceTo)
		case "repeat_grad":
			a.RepeatTimes, a.ReduceTo = ints(rp.RepeatTimes), ints(rp.ReduceTo)
			rep, err := tensor.PlanRepeat(rp.ReduceTo, rp.RepeatTimes)
			if err != nil {
				return sbp.OpPlan{}, err
			}
			a.View, a.ViewTo = ints(rep.ExpandSize), ints(rep.InReshape)
		}
		js.Args = append(js.Args, a)
	}
	b.add(js, plan.OutShape, plan.OutSbp)
	return plan, nil
}

// boxing appends the boxing of the step read to the nd-SBP to, one
// collective per sbp.Step of its plan, and returns the plan.
func (b *builder) boxing(name, read string, to sbp.NdSbp) (sbp.Boxing, error) {
	shape, ok := b.shape[read]
	if !ok {
		return sbp.Boxing{}, fmt.Errorf("it boxes %s, which no earlier step defines", read)
	}
	bx, err := sbp.PlanBoxing(shape, tensor.Float32, b.p, b.sbp[read], to)
	if err != nil {
		return sbp.Boxing{}, err
	}
	js := jobStep{Kind: string(program.StepBoxing), Name: name, Reads: []string{read}}
	for _, st := range bx.Steps {
		c := jobCollective{MeshDim: st.MeshDim, Collective: string(st.Collective), X: toJobSbp(st.From[st.MeshDim]), Y: toJobSbp(st.To[st.MeshDim])}
		for _, t := range st.Ranks {
			c.Before, c.After = append(c.Before, ints(t.Before)), append(c.After, ints(t.After))
		}
		js.Collectives = append(js.Collectives, c)
	}
	b.add(js, shape, to)
	return bx, nil
}

// buildJob turns plan into a job: every input's shards (from inputs by
// name, else the step's arange, ones or zeros), every op and every
// boxing as the plan has them, and the steps whose shards come back
// (save).
func buildJob(plan *program.Plan, inputs program.Values, save []int, timeoutS float64) (*builder, error) {
	b := newBuilder(plan.Program.Placement, timeoutS)
	for i, s := range plan.Steps {
		if err := b.step(s, inputs); err != nil {
			b.release()
			return nil, fmt.Errorf("torch engine: step %d (%s %s): %w", i, s.Kind, s.Name, err)
		}
	}
	for _, i := range save {
		b.save(i)
	}
	return b, nil
}

// step appends one plan step, and checks that the builder lays its
// output out as the plan says.
func (b *builder) step(s program.Step, inputs program.Values) error {
	nd, err := engine.StepSbp(s)
	if err != nil {
		return err
	}
	switch s.Kind {
	case program.StepInput:
		if b.layoutOnly {
			b.add(jobStep{Kind: string(program.StepInput), Name: s.Name}, s.Shape, nd)
			return nil
		}
		full, err := inputValue(s, inputs)
		if err != nil {
			return err
		}
		defer full.Release()
		return b.input(s.Name, full, nd)
	case program.StepOp:
		if s.Operation() == nil {
			return fmt.Errorf("the step has no op")
		}
		var in []sbp.NdSbp
		for _, text := range s.InSbp {
			n, err := sbp.ParseNd(text)
			if err != nil {
				return err
			}
			in = append(in, n)
		}
		plan, err := b.op(s.Name, s.Operation(), s.Reads(), in)
		if err == nil && !plan.OutSbp.Equal(nd) {
			err = fmt.Errorf("sbp.PlanOp gives %v, but the plan says %v", plan.OutSbp, nd)
		}
		return err
	case program.StepBoxing:
		if r := s.Reads(); len(r) != 1 {
			return fmt.Errorf("a boxing reads one tensor, not %v", r)
		}
		_, err := b.boxing(s.Name, s.Reads()[0], nd)
		return err
	}
	return fmt.Errorf("unknown step kind %q", s.Kind)
}

// inputValue is an input step's logical value, as program.Plan.Run takes
// it: the one given by name, ones, zeros, or 0, 1, 2, ….
func inputValue(s program.Step, given program.Values) (tensor.Tensor, error) {
	switch s.Values {
	case "ones":
		return filled(s.Shape, 1)
	case "zeros":
		return tensor.Zeros(tensor.Float32, s.Shape)
	}
	if t, ok := given[s.Name]; ok {
		if !t.Shape().Equal(s.Shape) || t.DType() != tensor.Float32 {
			return tensor.Tensor{}, fmt.Errorf("the program's input is float32 %v, but the values given are %v %v", s.Shape, t.DType(), t.Shape())
		}
		return tensor.CPU{}.Materialize(t)
	}
	if s.Values != "arange" {
		return tensor.Tensor{}, fmt.Errorf("its values come from %s, but none were given", s.Values)
	}
	return tensor.Arange(tensor.Float32, s.Shape)
}

// filled is a float32 tensor of shape holding v everywhere.
func filled(shape tensor.Shape, v float32) (tensor.Tensor, error) {
	n, err := shape.NumElements()
	if err != nil {
		return tensor.Tensor{}, err
	}
	data := make([]float32, n)
	for i := range data {
		data[i] = v
	}
	return tensor.FromSlice(shape, data)
}

// spreadLimit bounds the values a P(sum) input is spread over its
// devices: whole numbers of at most 2^20 stay whole, so v - Σc + Σc = v
// exactly in float32 (24-bit significand).
const spreadLimit = 1 << 20

// inputShards cuts the logical value full into every device's shard, as
// nd lays it out. A split device holds its range; under P the devices of
// each partial group (those that differ only on the P mesh dims) hold
// partial values that combine to full: for P(max) (P(min)) the first
// device of the group holds the value and the others values below
// (above) it; for P(sum) the others hold -1, 0 or 1 by element and the
// first the value less their sum. A device's part depends only on its
// coordinates on the P mesh dims, so the replicas along a B mesh dim
// hold the same values, as B requires. When a P(sum) input is not made
// of small whole numbers, spreading it would round: its first device
// holds the value and the others 0, as sbp.Scatter lays it out, and the
// note says so.
func inputShards(full tensor.Tensor, p sbp.Placement, nd sbp.NdSbp) ([]tensor.Tensor, string, error) {
	shards, err := sbp.Shards(full.Shape(), p, nd)
	if err != nil {
		return nil, "", err
	}
	var part sbp.SBP
	peers := 1 // the devices of a partial group
	for m, s := range nd {
		if s.Kind == sbp.Partial {
			part, peers = s, peers*p.Hierarchy()[m]
		}
	}
	data, err := tensor.Buffer[float32](full)
	if err != nil {
		return nil, "", err
	}
	spread, note := true, ""
	if part.Kind == sbp.Partial && part.Op == tensor.Sum {
		for _, v := range data[:full.NumElements()] {
			if v != float32(math.Trunc(float64(v))) || math.Abs(float64(v)) > spreadLimit {
				spread, note = false, "P(sum) laid out as sbp.Scatter does (the first device of each partial group holds the value, the others 0): its values are not whole numbers of at most 2^20, which spreading could round"
				break
			}
		}
	}
	out := make([]tensor.Tensor, len(shards))
	for i, sh := range shards {
		local := make([]float32, product(sh.Shape))
		forEach(sh, full.Shape(), func(j, off int) { local[j] = data[off] })
		if q := partialIndex(p, nd, i); sh.Partial {
			for j := range local {
				switch {
				case !spread && q > 0:
					local[j] = 0
				case !spread:
				case part.Op == tensor.Sum && q == 0:
					for o := 1; o < peers; o++ {
						local[j] -= sumPart(j, o)
					}
				case part.Op == tensor.Sum:
					local[j] = sumPart(j, q)
				case q > 0 && part.Op == tensor.MaxAll:
					local[j] -= float32(1 + (j+q)%2)
				case q > 0:
					local[j] += float32(1 + (j+q)%2)
				}
			}
		}
		t, err := tensor.FromSlice(sh.Shape, local)
		if err != nil {
			for _, o := range out[:i] {
				o.Release()
			}
			return nil, "", err
		}
		out[i] = t
	}
	return out, note, nil
}

// sumPart is what the device of partial index q holds of element j of a
// spread P(sum) input: -1, 0 or 1.
func sumPart(j, q int) float32 { return float32((j+q)%3 - 1) }

// partialIndex numbers the device at position i within its partial
// group: its coordinates on the P mesh dims, read as a mixed-radix
// number (0: the group's first device, which keeps the value).
func partialIndex(p sbp.Placement, nd sbp.NdSbp, i int) int {
	c, h := p.Coord(i), p.Hierarchy()
	q := 0
	for m, s := range nd {
		if s.Kind == sbp.Partial {
			q = q*h[m] + c[m]
		}
	}
	return q
}

// product is the number of elements of shape.
func product(shape tensor.Shape) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// forEach calls fn(j, off) for every element of the shard: j its index in
// the shard's own buffer, off its offset in the logical tensor of shape
// (both C order).
func forEach(sh sbp.Shard, shape tensor.Shape, fn func(j, off int)) {
	n := product(sh.Shape)
	if n == 0 {
		return
	}
	strides := tensor.ContiguousStrides(shape)
	idx := make([]int, len(sh.Shape))
	for j := range n {
		off := 0
		for d, i := range idx {
			off += (sh.Lo[d] + i) * strides[d]
		}
		fn(j, off)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < sh.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// write writes the job to dir: job.json, and per device its input
// shards in in/POS.npz (INDEX.npy for each input step), each file to a
// temporary name renamed when whole.
func (b *builder) write(dir string) error {
	for _, sub := range []string{"in", "out"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for pos := range b.p.Size() {
		arrays := map[string]tensor.Tensor{}
		for i, ts := range b.shards {
			arrays[strconv.Itoa(i)] = ts[pos]
		}
		if err := writeAtomic(filepath.Join(dir, "in", fmt.Sprintf("%d.npz", pos)), func(tmp string) error { return writeNpz(tmp, arrays) }); err != nil {
			return err
		}
	}
	raw, err := json.Marshal(b.job)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "job.json"), func(path string) error { return os.WriteFile(path, raw, 0o644) })
}

// writeNpz writes arrays as a NumPy .npz file: a zip archive holding
// NAME.npy for each, stored uncompressed (numpy.savez's layout).
func writeNpz(path string, arrays map[string]tensor.Tensor) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	z := zip.NewWriter(f)
	names := slices.Sorted(maps.Keys(arrays))
	for _, name := range names {
		w, err := z.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
		if err == nil {
			err = npyfile.Encode(w, arrays[name])
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	if err := z.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readNpz reads every array of a .npz file, by name (without .npy).
func readNpz(path string) (map[string]tensor.Tensor, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	out := map[string]tensor.Tensor{}
	for _, f := range z.File {
		t, err := readMember(f)
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, fmt.Errorf("%s in %s: %w", f.Name, path, err)
		}
		out[strings.TrimSuffix(f.Name, ".npy")] = t
	}
	return out, nil
}

// readMember decodes one .npy member of a .npz file, after asking the
// result budget about its size.
func readMember(f *zip.File) (tensor.Tensor, error) {
	if err := tensor.CheckBytes("reading a shard", f.Name, int64(min(f.UncompressedSize64, math.MaxInt64)), "the .npy member's size"); err != nil {
		return tensor.Tensor{}, err
	}
	r, err := f.Open()
	if err != nil {
		return tensor.Tensor{}, err
	}
	defer r.Close()
	raw, err := io.ReadAll(r)
	if err != nil {
		return tensor.Tensor{}, err
	}
	t, _, err := npyfile.Decode(raw, npyfile.Options{})
	return t, err
}

// writeAtomic writes path through fill on a temporary name beside it,
// then renames it: a reader sees the whole file or none.
func writeAtomic(path string, fill func(tmp string) error) error {
	tmp := path + ".tmp"
	if err := fill(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
