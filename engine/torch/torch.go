package torch

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/graph"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/tensor/npyfile"
)

// workerPy is the worker each run writes to its job folder.
//
//go:embed worker.py
var workerPy []byte

// OpsPython is the local arithmetic every worker imports (ops.py): torch
// on one device's shards, as package sbp computes it on its simulated
// devices (float32 elementwise, sums accumulated in float64), with the
// helpers the ops share (part_range, numel, full, IDENTITY, DEV). A
// program that runs a plan without this engine holds it inline, so that
// it computes as the workers do: the torch.distributed file package
// engine/script writes.
//
//go:embed ops.py
var OpsPython string

// DefaultTimeout bounds a run when Options.Timeout is 0.
const DefaultTimeout = 120 * time.Second

// DefaultTimeRuns is Options.TimeRuns when it is 0: as many timed runs
// as `stridelab calibrate` gives each of its points (DefaultRuns), so a
// boxing's time and the calibration it is predicted on are medians of
// the same number of warm runs.
const DefaultTimeRuns = DefaultRuns

// Options configure the torch engine.
type Options struct {
	// Python is the interpreter (a path, or a name looked up on PATH);
	// "" picks one with FindPython.
	Python string
	// Timeout bounds a whole run, the workers' start included; past it
	// every worker is killed. 0 means DefaultTimeout.
	Timeout time.Duration
	// Port is MASTER_PORT on 127.0.0.1; 0 picks a free one.
	Port int
	// TimeRuns is how many more times each collective of a boxing runs,
	// timed, after the run's own call: on the same input, each after a
	// barrier of every worker, their outputs dropped, so the values and
	// bytes are the run's own call's. A collective's time is then their
	// median (CollectiveReport.Runs), as `stridelab calibrate` measures
	// its points, and the run's own call, gloo's first at that size on
	// tensors just made, is CollectiveReport.FirstTime. 0 means
	// DefaultTimeRuns; a negative number runs none, and the run's own
	// call is the time.
	TimeRuns int
	// Pool, when set, keeps each run's workers for the next run of
	// their kind (see Pool), which then pays none of their start; nil
	// starts the workers in Run and stops them before it returns.
	Pool *Pool

	// fault is handed to the workers as STRIDELAB_TORCH_TEST_FAULT
	// (KIND:RANK:STEP with KIND raise, kill or hang): the tests' way to
	// make a worker fail. It is never read from the environment.
	fault string
	// onStatus, when set, hears each status line of the workers of a
	// run without a Pool: the tests' way to act once a worker is at a
	// step.
	onStatus func(pos int, where string)
}

// Engine runs plans on torch.distributed: one process per device.
type Engine struct {
	opts Options
}

// New returns a torch engine with opts.
func New(opts Options) *Engine { return &Engine{opts: opts} }

// Name returns "torch".
func (*Engine) Name() string { return "torch" }

// Run runs plan with one worker process per device (see the package
// doc) and returns the values gathered from their shards and their
// reports. It is refused before a process starts when the run would
// pass the result budget (planner.Plan.CheckBudget, and on each rank
// every shard it holds) or no interpreter imports torch; a worker that
// fails, ctx's end and the timeout stop every worker and return an
// *Error of one line.
func (e *Engine) Run(ctx context.Context, plan *planner.Plan, inputs planner.Values) (*engine.Result, error) {
	if plan == nil || plan.Program == nil {
		return nil, fmt.Errorf("torch engine: no plan")
	}
	start := time.Now()
	p := plan.Program.Placement
	if err := plan.CheckBudget(); err != nil {
		return nil, err
	}
	if err := checkRanks(plan, e.timeRuns() > 0); err != nil {
		return nil, err
	}
	python, err := findPython(ctx, e.opts.Python, p)
	if err != nil {
		return nil, err
	}
	ranks, err := engine.Planned(plan)
	if err != nil {
		return nil, err
	}
	want, save := wanted(plan)
	b, err := buildJob(plan, inputs, save, e.timeout().Seconds())
	if err != nil {
		return nil, err
	}
	b.job.TimeRuns = e.timeRuns()
	defer b.release()
	ex, err := e.execute(ctx, b, python)
	if err != nil {
		return nil, err
	}
	defer ex.release()
	notes := []string{fmt.Sprintf("torch: %d processes of %s, torch.distributed gloo on 127.0.0.1:%d", p.Size(), ex.python, ex.port)}
	if ex.kept > 0 {
		notes = append(notes, fmt.Sprintf("torch: workers kept by the pool, this their job %d: they imported torch and joined torch.distributed in their first, so each rank's setup is this run's own (the groups no earlier job made, and their warm-up)", ex.kept+1))
	}
	if p.Device() != "cpu" {
		notes = append(notes, fmt.Sprintf("the placement is on %s, but this engine's workers run gloo on this machine's CPUs", p.Device()))
	}
	res := &engine.Result{Engine: e.Name(), Ranks: ranks, Notes: append(notes, b.notes...)}
	if err := fillReports(ex.reports, res); err != nil {
		return nil, err
	}
	if res.Values, err = gatherValues(ex, plan, want); err != nil {
		return nil, err
	}
	res.Wall = time.Since(start)
	return res, nil
}

// timeRuns is Options.TimeRuns with its default: 0 for none.
func (e *Engine) timeRuns() int {
	switch {
	case e.opts.TimeRuns == 0:
		return DefaultTimeRuns
	case e.opts.TimeRuns < 0:
		return 0
	}
	return e.opts.TimeRuns
}

func (e *Engine) timeout() time.Duration {
	if e.opts.Timeout <= 0 {
		return DefaultTimeout
	}
	return e.opts.Timeout
}

// execution is what a job's workers left: their reports and the shards
// of the steps the job saves.
type execution struct {
	python  string
	port    int
	kept    int                     // the jobs the workers ran before this one (started.kept)
	reports []workerReport          // by position
	shards  map[int][]tensor.Tensor // saved step index → shard per position
}

func (ex *execution) release() {
	for _, ts := range ex.shards {
		for _, t := range ts {
			if t.Valid() {
				t.Release()
			}
		}
	}
}

// execute writes b's job to a temporary folder, runs it on one worker
// per device (python, or Options.Python when ""; kept by Options.Pool
// when set), and reads back every worker's report and the saved steps'
// shards. The folder is removed before it returns. When ctx has ended
// already it starts nothing: the error wraps ErrCancelled (or
// ErrTimeout, for a deadline) and ctx's error.
func (e *Engine) execute(ctx context.Context, b *builder, python string) (*execution, error) {
	if python == "" {
		python = e.opts.Python
	}
	ex := &execution{shards: map[int][]tensor.Tensor{}}
	run := jobRun{python: python, port: e.opts.Port, p: b.p, timeout: e.timeout(), script: "worker.py", write: b.write, fault: e.opts.fault,
		onStatus: e.opts.onStatus, pool: e.opts.Pool}
	st, err := runJob(ctx, run, func(dir string) error { return ex.read(dir, b) })
	if err != nil {
		ex.release()
		return nil, err
	}
	ex.python, ex.port, ex.kept = st.python, st.port, st.kept
	return ex, nil
}

// read reads every worker's report and the saved steps' shards from the
// job folder dir. On an error the caller releases what it read.
func (ex *execution) read(dir string, b *builder) error {
	for pos := range b.p.Size() {
		raw, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("report.%d.json", pos)))
		var wr workerReport
		if err == nil {
			err = json.Unmarshal(raw, &wr)
		}
		if err != nil {
			return fmt.Errorf("torch engine: rank %d's report: %w", b.p.Rank(pos), err)
		}
		ex.reports = append(ex.reports, wr)
	}
	for pos := range b.p.Size() {
		arrays, _, err := npyfile.ReadNpz(filepath.Join(dir, "out", fmt.Sprintf("%d.npz", pos)), npyfile.Options{})
		if err != nil {
			return fmt.Errorf("torch engine: rank %d's shards: %w", b.p.Rank(pos), err)
		}
		for _, i := range b.job.Save {
			if ex.shards[i] == nil {
				ex.shards[i] = make([]tensor.Tensor, b.p.Size())
			}
			t := arrays[strconv.Itoa(i)]
			delete(arrays, strconv.Itoa(i))
			if t.Valid() && t.DType() != tensor.Float32 { // ids: assembled in float32 (gatherValues)
				f, ferr := tensor.ExactFloat32(t)
				t.Release()
				if ferr != nil {
					return fmt.Errorf("torch engine: rank %d's shard of step %d: %w", b.p.Rank(pos), i, ferr)
				}
				t = f
			}
			ex.shards[i][pos] = t
		}
		for name, t := range arrays {
			t.Release()
			err = fmt.Errorf("torch engine: rank %d wrote a shard %s the job did not ask for", b.p.Rank(pos), name)
		}
		if err != nil {
			return err
		}
	}
	for _, i := range b.job.Save {
		for pos, t := range ex.shards[i] {
			if !t.Valid() {
				return fmt.Errorf("torch engine: rank %d wrote no shard of %s", b.p.Rank(pos), b.job.Steps[i].Name)
			}
		}
	}
	return nil
}

// wanted maps every value a run returns (the program's names, grad_NAME
// for the gradients) to the index of the step that holds it, and lists
// those steps.
func wanted(plan *planner.Plan) (map[string]int, []int) {
	at := map[string]int{}
	for i, s := range plan.Steps {
		at[s.Name] = i
	}
	want := map[string]int{}
	for _, st := range plan.Program.Stmts {
		if st.Kind != program.Grad {
			want[st.Name] = at[st.Name]
		}
	}
	for name, step := range plan.Grads {
		want[graph.GradName(name)] = at[step]
	}
	seen := map[int]bool{}
	var save []int
	for i := range plan.Steps {
		for _, k := range want {
			if k == i && !seen[i] {
				seen[i] = true
				save = append(save, i)
			}
		}
	}
	return want, save
}

// checkRanks asks the result budget whether each rank's process can hold
// its part of the run: every step's output shard and every collective's
// receive buffer on that rank, all at once (a worker keeps them all),
// and with timed runs (again) one more of its largest receive buffers,
// the output of a run that is dropped.
func checkRanks(plan *planner.Plan, again bool) error {
	p := plan.Program.Placement
	per := make([]int64, p.Size())
	largest := make([]int64, p.Size()) // per rank, its largest receive buffer's bytes
	add := func(pos int, shape tensor.Shape) error {
		b, err := tensor.ResultBytes(tensor.Float32, shape)
		if err == nil {
			per[pos], err = tensor.AddBytes("torch engine", per[pos], b)
		}
		return err
	}
	for _, s := range plan.Steps {
		shards, err := sbp.Shards(s.Shape, p, s.Out())
		if err != nil {
			return err
		}
		for pos, sh := range shards {
			if err := add(pos, sh.Shape); err != nil {
				return err
			}
		}
		if s.Kind != planner.StepBoxing {
			continue
		}
		bx, err := s.PlannedBoxing()
		if err != nil {
			return err
		}
		for _, st := range bx.Steps {
			for pos, t := range st.Ranks {
				if err := add(pos, t.After); err != nil {
					return err
				}
				n, _ := tensor.ResultBytes(tensor.Float32, t.After) // add has checked it
				largest[pos] = max(largest[pos], n)
			}
		}
	}
	for pos, n := range largest {
		var err error
		if again {
			per[pos], err = tensor.AddBytes("torch engine", per[pos], n)
		}
		if err != nil {
			return err
		}
	}
	for pos, b := range per {
		what := fmt.Sprintf("rank %d's worker", p.Rank(pos))
		if err := tensor.CheckBytes("a torch run of the program", what, b, "every shard and receive buffer it holds"); err != nil {
			return err
		}
	}
	return nil
}

// workerReport is JOB/report.POS.json.
type workerReport struct {
	Position      int     `json:"position"`
	Pid           int     `json:"pid"`
	ImportSeconds float64 `json:"import_seconds"` // import torch
	InitSeconds   float64 `json:"init_seconds"`   // init_process_group, the mesh's groups and the collectives' warm-up
	WriteSeconds  float64 `json:"write_seconds"`  // writing the saved shards
	Steps         []struct {
		Index       int     `json:"index"`
		Seconds     float64 `json:"seconds"`
		Collectives []struct {
			Ran     string    `json:"ran"`
			Handed  int64     `json:"handed"`
			Send    int64     `json:"send"`
			Recv    int64     `json:"recv"`
			Seconds float64   `json:"seconds"` // the median of Runs, else First
			Call    float64   `json:"call_seconds"`
			First   float64   `json:"first_seconds"` // the run's own call
			FirstC  float64   `json:"first_call_seconds"`
			Runs    []float64 `json:"runs"` // the timed runs after it (Options.TimeRuns)
			Note    string    `json:"note"`
		} `json:"collectives"`
	} `json:"steps"`
}

// fillReports fills res.Ranks in from the workers' reports, and adds
// each distinct note to res.Notes.
func fillReports(reports []workerReport, res *engine.Result) error {
	seen := map[string]bool{}
	for pos, wr := range reports {
		r := &res.Ranks[pos]
		r.Pid, r.Setup = wr.Pid, seconds(wr.ImportSeconds+wr.InitSeconds)
		if len(wr.Steps) != len(r.Steps) {
			return fmt.Errorf("torch engine: rank %d reports %d steps; the plan has %d", r.Rank, len(wr.Steps), len(r.Steps))
		}
		for k, ws := range wr.Steps {
			s := &r.Steps[k]
			s.Time = seconds(ws.Seconds)
			if len(ws.Collectives) != len(s.Collectives) {
				return fmt.Errorf("torch engine: rank %d ran %d collectives in step %d; the plan has %d", r.Rank, len(ws.Collectives), k, len(s.Collectives))
			}
			for j, wc := range ws.Collectives {
				c := &s.Collectives[j]
				c.Ran, c.HandedBytes, c.SendBytes, c.RecvBytes, c.Time, c.CallTime, c.Note = wc.Ran, wc.Handed, wc.Send, wc.Recv, seconds(wc.Seconds), seconds(wc.Call), wc.Note
				c.FirstTime, c.FirstCallTime = seconds(wc.First), seconds(wc.FirstC)
				c.Runs = nil
				for _, r := range wc.Runs {
					c.Runs = append(c.Runs, seconds(r))
				}
				note := ranNotes[wc.Ran]
				if wc.Ran == "all_gather" && wc.Note == "" {
					note = ""
				}
				if note != "" && !seen[note] {
					seen[note] = true
					res.Notes = append(res.Notes, note)
				}
			}
		}
	}
	return nil
}

// ranNotes says, once a run, how the engine ran a collective where that
// differs from the plan or needs saying.
var ranNotes = map[string]string{
	"all_reduce+slice": "reduce-scatter done as all-reduce + slice: gloo has no reduce_scatter; its bytes are the all-reduce's, more than the plan's reduce-scatter",
	"all_reduce":       "all-reduce: gloo picks its own algorithm; the bytes counted are a ring's over the tensor handed (a reduce-scatter, then an all-gather), as the plan counts them",
	"all_gather":       "all-gather of uneven shards: all_gather takes equal tensors, so the shards went padded to the largest and were trimmed; the bytes counted are the shards' (HandedBytes has the padded size)",
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// gatherValues assembles the logical values, by name, from the saved
// steps' shards.
func gatherValues(ex *execution, plan *planner.Plan, want map[string]int) (planner.Values, error) {
	p := plan.Program.Placement
	vals := planner.Values{}
	for name, i := range want {
		s := plan.Steps[i]
		v, err := assemble(s.Shape, p, s.Out(), ex.shards[i])
		if err == nil && s.Int {
			ids := v
			v, err = tensor.ExactInt32(ids) // assembled through float32, which holds every id below 2^24
			ids.Release()
		}
		if err != nil {
			vals.Release()
			return nil, fmt.Errorf("torch engine: gathering %s: %w", s.Name, err)
		}
		vals[name] = v
	}
	return vals, nil
}
