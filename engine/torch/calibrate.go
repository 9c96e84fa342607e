package torch

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/tensor"
)

// calibratePy is the worker Calibrate writes to its job folder.
//
//go:embed calibrate.py
var calibratePy []byte

// CalibrateTimeout bounds a calibration when CalibrateOptions.Timeout is
// 0: the default sweep takes about a minute on 4 processes of a 2-core
// machine, most of it in the 64 MiB sizes.
const CalibrateTimeout = 10 * time.Minute

// DefaultRuns is how many timed runs each collective gets at each size
// (after one warm-up run that is not kept).
const DefaultRuns = 5

// DefaultSizes are the sizes Calibrate measures, the bytes of the
// group's whole tensor S: 64 B to 64 MiB, ×4 a step (11 sizes). The
// small ones are all α, the large ones all S/β.
var DefaultSizes = func() []int64 {
	var s []int64
	for b := int64(64); b <= 64<<20; b *= 4 {
		s = append(s, b)
	}
	return s
}()

// maxCalibrateSize bounds a size: past 1 GiB a collective on a small
// machine measures its swap, not its link.
const maxCalibrateSize = 1 << 30

// Collectives are the collectives Calibrate measures, in order.
var Collectives = []sbp.Collective{sbp.AllGather, sbp.ReduceScatter, sbp.AllReduce, sbp.AllToAll}

// CalibrateOptions configure Calibrate.
type CalibrateOptions struct {
	Python    string        // as Options.Python
	Timeout   time.Duration // the whole calibration; 0: CalibrateTimeout
	Port      int           // as Options.Port
	Placement sbp.Placement // the processes, and the mesh dims measured
	Sizes     []int64       // S in bytes; nil: DefaultSizes
	Runs      int           // timed runs per collective and size; 0: DefaultRuns
	// Progress, when set, hears rank 0's progress: done of total
	// measurements begun. It is called from another goroutine.
	Progress func(done, total int)
}

// Measurement is one collective at one size along one mesh dim: the time
// of each run as its slowest rank took it (every rank starts between the
// same two barriers), and their median as the Point a fit reads.
type Measurement struct {
	MeshDim int `json:"mesh_dim"`
	cluster.Point
	Runs []float64 `json:"runs_s"`
}

// Calibration is what Calibrate measured.
type Calibration struct {
	Placement    sbp.Placement  `json:"placement"`
	Python       string         `json:"python"`
	Measurements []Measurement  `json:"measurements"`
	Device       cluster.Device `json:"-"` // the slowest rank's FLOP/s and bytes/s, the smallest capacity
	Wall         time.Duration  `json:"-"`
}

// Calibrate measures this machine's gloo: one process per device of
// opts.Placement (started as Engine.Run starts its workers, running the
// embedded calibrate.py), and along each mesh dim each of Collectives at
// each size, opts.Runs times after a warm-up, each run timed alone after
// a barrier of all the processes. Each run is the engine's own boxing
// step (worker.py's code: the torch.distributed call and the padding,
// slicing and joining of shards around it, into tensors made for the
// run), so a point measures what a run's collective measures; a
// reduce-scatter is therefore an all_reduce and the rank's slice (gloo in
// torch 1.13 has none). Each process also measures its device: a 512×512 float32
// torch.mm for FLOP/s, a copy of 64 MiB for memory bytes/s, and the
// machine's memory over the processes for capacity.
//
// Every mesh dim needs 2 devices or more. A run that would pass the
// result budget (every process's buffers together) is refused before any
// process starts; the faults of a run (a worker failing, the timeout,
// ctx ending) are Engine.Run's.
func Calibrate(ctx context.Context, opts CalibrateOptions) (*Calibration, error) {
	start := time.Now()
	p := opts.Placement
	if p.Size() == 0 {
		return nil, fmt.Errorf("torch engine: calibrate: no placement")
	}
	for m, n := range p.Hierarchy() {
		if n < 2 {
			return nil, fmt.Errorf("torch engine: calibrate on %v: mesh dim %d has %d device; a collective needs 2 or more", p, m, n)
		}
	}
	sizes := opts.Sizes
	if sizes == nil {
		sizes = DefaultSizes
	}
	var largest int64
	for _, s := range sizes {
		if s < 1 || s > maxCalibrateSize {
			return nil, fmt.Errorf("torch engine: calibrate: size %d bytes: give sizes from 1 B to 1 GiB", s)
		}
		largest = max(largest, s)
	}
	if len(sizes) < 2 {
		return nil, fmt.Errorf("torch engine: calibrate: %d sizes; a fit needs 2 or more", len(sizes))
	}
	runs := opts.Runs
	if runs == 0 {
		runs = DefaultRuns
	}
	if runs < 1 {
		return nil, fmt.Errorf("torch engine: calibrate: %d runs; give 1 or more", runs)
	}
	// Each process holds its largest size about three times (the whole
	// tensor, its shards, all_gather's outputs) and the 64 MiB copy's two.
	per := 3*largest + 2*(64<<20)
	if err := tensor.CheckBytes("torch engine: calibrate", fmt.Sprintf("%d processes", p.Size()), per*int64(p.Size()), "each one's buffers"); err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = CalibrateTimeout
	}
	job := calibrateJob{Mesh: p.Hierarchy(), Sizes: sizes, Runs: runs, TimeoutS: timeout.Seconds()}
	for m := range p.MeshRank() {
		job.Groups = append(job.Groups, p.Groups(m))
	}
	for _, c := range Collectives {
		job.Collectives = append(job.Collectives, string(c))
	}
	run := jobRun{python: opts.Python, port: opts.Port, p: p, timeout: timeout, script: "calibrate.py",
		write: func(dir string) error {
			raw, err := json.Marshal(job)
			if err != nil {
				return err
			}
			return writeBytes(filepath.Join(dir, "job.json"), raw)
		}}
	if opts.Progress != nil {
		var mu sync.Mutex
		run.onStatus = func(pos int, where string) {
			if done, total, ok := progressOf(where); ok && pos == 0 {
				mu.Lock()
				defer mu.Unlock()
				opts.Progress(done, total)
			}
		}
	}
	reports := make([]calibrateReport, p.Size())
	st, err := runJob(ctx, run, func(dir string) error {
		for pos := range reports {
			raw, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("report.%d.json", pos)))
			if err == nil {
				err = json.Unmarshal(raw, &reports[pos])
			}
			if err != nil {
				return fmt.Errorf("torch engine: rank %d's calibration report: %w", p.Rank(pos), err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cal, err := combine(p, reports, runs)
	if err != nil {
		return nil, err
	}
	cal.Python, cal.Wall = st.python, time.Since(start)
	return cal, nil
}

// calibrateJob is JOB/job.json of a calibration.
type calibrateJob struct {
	Mesh        []int     `json:"mesh"`
	Groups      [][][]int `json:"groups"`
	Sizes       []int64   `json:"sizes"`
	Runs        int       `json:"runs"`
	Collectives []string  `json:"collectives"`
	TimeoutS    float64   `json:"timeout_s"`
}

// calibrateReport is JOB/report.POS.json of a calibration.
type calibrateReport struct {
	Samples []struct {
		MeshDim    int       `json:"mesh_dim"`
		Collective string    `json:"collective"`
		Devices    int       `json:"devices"`
		Bytes      float64   `json:"bytes"`
		Seconds    []float64 `json:"seconds"`
	} `json:"samples"`
	Device struct {
		FLOPs       float64 `json:"flops_per_s"`
		MemBytes    float64 `json:"mem_bytes_per_s"`
		MemCapacity float64 `json:"mem_capacity_bytes"`
	} `json:"device"`
}

// combine joins the ranks' reports: each run's time is its slowest
// rank's, each measurement's point their median; the device is the
// slowest rank's.
func combine(p sbp.Placement, reports []calibrateReport, runs int) (*Calibration, error) {
	cal := &Calibration{Placement: p}
	first := reports[0]
	for pos, r := range reports {
		if len(r.Samples) != len(first.Samples) {
			return nil, fmt.Errorf("torch engine: rank %d reports %d measurements, rank %d %d", p.Rank(pos), len(r.Samples), p.Rank(0), len(first.Samples))
		}
		d := cluster.Device{FLOPs: r.Device.FLOPs, MemBytes: r.Device.MemBytes, MemCapacity: r.Device.MemCapacity}
		if pos == 0 {
			cal.Device = d
		}
		cal.Device.FLOPs = min(cal.Device.FLOPs, d.FLOPs)
		cal.Device.MemBytes = min(cal.Device.MemBytes, d.MemBytes)
		cal.Device.MemCapacity = min(cal.Device.MemCapacity, d.MemCapacity)
	}
	for i, s := range first.Samples {
		m := Measurement{MeshDim: s.MeshDim, Point: cluster.Point{Collective: sbp.Collective(s.Collective), Devices: s.Devices, Bytes: s.Bytes}, Runs: make([]float64, runs)}
		for pos, r := range reports {
			if len(r.Samples[i].Seconds) != runs {
				return nil, fmt.Errorf("torch engine: rank %d reports %d runs of %s; the job asked for %d", p.Rank(pos), len(r.Samples[i].Seconds), s.Collective, runs)
			}
			for j, t := range r.Samples[i].Seconds {
				m.Runs[j] = max(m.Runs[j], t)
			}
		}
		m.Seconds = engine.Median(m.Runs)
		cal.Measurements = append(cal.Measurements, m)
	}
	return cal, nil
}

// progressOf reads "measure K/TOTAL: …".
func progressOf(where string) (done, total int, ok bool) {
	rest, found := strings.CutPrefix(where, "measure ")
	if !found {
		return 0, 0, false
	}
	frac, _, _ := strings.Cut(rest, ":")
	a, b, found := strings.Cut(frac, "/")
	if !found {
		return 0, 0, false
	}
	done, err1 := strconv.Atoi(a)
	total, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return done, total, true
}

// DimFit is the fit of one mesh dim's link: over every collective
// (the link a cluster file gets), and each collective's own beside it,
// so that a collective gloo runs another way shows.
type DimFit struct {
	MeshDim int
	Points  []cluster.Point
	All     cluster.Fitted
	// Each is each collective's own fit, in Collectives' order; Err
	// holds why one could not be fitted.
	Each []CollectiveFit
}

// CollectiveFit is one collective's own fit.
type CollectiveFit struct {
	Collective sbp.Collective
	Fitted     cluster.Fitted
	Err        error
}

// Fit fits a link per mesh dim to the measurements (cluster.Fit over
// every collective, and over each alone) and returns the cluster named
// name: per mesh dim the link fitted over every collective, carrying
// each collective's own fit as that collective's own α and β
// (cluster.Link.Collectives; a collective whose own fit failed has none
// and goes at the link's), and the measured device. Link.Plain drops the
// own ones: the plain form.
func (cal *Calibration) Fit(name string) (cluster.Cluster, []DimFit, error) {
	c := cluster.Cluster{Name: name, Device: cal.Device}
	var fits []DimFit
	for m := range cal.Placement.MeshRank() {
		df := DimFit{MeshDim: m}
		byCollective := map[sbp.Collective][]cluster.Point{}
		for _, ms := range cal.Measurements {
			if ms.MeshDim == m {
				df.Points = append(df.Points, ms.Point)
				byCollective[ms.Collective] = append(byCollective[ms.Collective], ms.Point)
			}
		}
		all, err := cluster.Fit(df.Points)
		if err != nil {
			return cluster.Cluster{}, nil, fmt.Errorf("torch engine: calibrate: mesh dim %d: %w", m, err)
		}
		df.All = all
		link := all.Link
		for _, col := range Collectives {
			if pts := byCollective[col]; len(pts) > 0 {
				f, err := cluster.Fit(pts)
				df.Each = append(df.Each, CollectiveFit{Collective: col, Fitted: f, Err: err})
				if err == nil {
					if link, err = link.WithOwn(col, cluster.Own{Alpha: f.Link.Alpha, Beta: f.Link.Beta}); err != nil {
						return cluster.Cluster{}, nil, fmt.Errorf("torch engine: calibrate: %w", err)
					}
				}
			}
		}
		c.Links = append(c.Links, link)
		fits = append(fits, df)
	}
	if err := c.Validate(); err != nil {
		return cluster.Cluster{}, nil, fmt.Errorf("torch engine: calibrate: %w", err)
	}
	return c, fits, nil
}
