package engine

import (
	"fmt"
	"slices"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/planner"
)

// Timed is a plan's boxings as predicted on its cluster (planner.Options.
// Cluster: Step.TimeS, Step.BoxingTime) beside what an engine measured
// of the same plan: per boxing, per collective, the slowest device's
// time. It is the JSON form `stridelab sbp program --engine torch
// --json` prints as the plan's "measured" field.
type Timed struct {
	Engine    string `json:"engine"`
	Processes int    `json:"processes"` // the devices, one process each for torch
	// Cluster is the cluster the predictions are on, "" when the plan
	// has none (then every predicted_s is 0 and no ratio is given).
	Cluster string        `json:"cluster,omitempty"`
	Boxings []TimedBoxing `json:"boxings"`
	// PredictedS and MeasuredS are the boxings' times summed; Ratio is
	// MeasuredS / PredictedS (absent when nothing is predicted).
	PredictedS float64 `json:"predicted_s"`
	MeasuredS  float64 `json:"measured_s"`
	CallS      float64 `json:"call_s"`  // the boxings' CallS summed
	FirstS     float64 `json:"first_s"` // the boxings' FirstS summed
	Ratio      float64 `json:"ratio,omitempty"`
}

// TimedBoxing is one boxing step: its predicted time (Step.TimeS) and its
// measured one, the sum of its collectives' (each timed alone between
// barriers, so they do not overlap).
type TimedBoxing struct {
	Step        int               `json:"step"` // its index in the plan's steps
	Name        string            `json:"name"`
	Shape       []int             `json:"shape"`
	From        sbp.NdSbp         `json:"from"`
	To          sbp.NdSbp         `json:"to"`
	SendBytes   int64             `json:"send_bytes"` // the plan's, all devices together
	PredictedS  float64           `json:"predicted_s"`
	MeasuredS   float64           `json:"measured_s"`
	CallS       float64           `json:"call_s"`          // its collectives' CallS summed
	FirstS      float64           `json:"first_s"`         // its collectives' FirstS summed
	Ratio       float64           `json:"ratio,omitempty"` // MeasuredS / PredictedS
	Collectives []TimedCollective `json:"collectives"`
}

// TimedCollective is one boxing step (sbp.Step): one collective along
// one mesh dim.
type TimedCollective struct {
	MeshDim    int            `json:"mesh_dim"`
	Collective sbp.Collective `json:"collective"`
	Ran        string         `json:"ran"` // what the engine called (CollectiveReport.Ran)
	// PredictedS is the ring time of cluster.TimeBoxing's step, 0
	// without a cluster.
	PredictedS float64 `json:"predicted_s"`
	// MeasuredS is the collective's time as `stridelab calibrate` takes
	// a point's: each timed run's time is its slowest device's (every
	// device starts from the same barrier), and MeasuredS their median
	// (CollectiveReport.Runs). Without timed runs it is the slowest
	// device's time of the run's own call. RankS is each device's
	// CollectiveReport.Time, by position.
	MeasuredS float64   `json:"measured_s"`
	RankS     []float64 `json:"rank_s"`
	// Runs is the number of timed runs MeasuredS is the median of; 0
	// when it is the run's own call.
	Runs int `json:"runs"`
	// CallS is the slowest device's time in the library's call alone
	// (CollectiveReport.CallTime): MeasuredS less the device's own
	// padding, slicing and joining around it.
	CallS float64 `json:"call_s"`
	// FirstS is the slowest device's time of the run's own call
	// (CollectiveReport.FirstTime): cold, the first at its size.
	FirstS float64 `json:"first_s"`
	Ratio  float64 `json:"ratio,omitempty"`
}

// Times pairs plan's boxings, as predicted on its cluster, with r's
// measurements of them. r must be a run of plan (Engine.Run's result):
// a device per position of its placement, a report per step, a
// collective report per step of each boxing's plan, and every device
// the same number of timed runs of a collective. A measurement of 0
// (Sim times only the whole run) stays 0.
func Times(plan *planner.Plan, r *Result) (Timed, error) {
	if plan == nil || plan.Program == nil || r == nil {
		return Timed{}, fmt.Errorf("engine: times: no plan or no result")
	}
	n := plan.Program.Placement.Size()
	if len(r.Ranks) != n {
		return Timed{}, fmt.Errorf("engine: times: the result has %d devices; the plan's placement has %d", len(r.Ranks), n)
	}
	out := Timed{Engine: r.Engine, Processes: n, Boxings: []TimedBoxing{}}
	if plan.Cluster != nil {
		out.Cluster = plan.Cluster.Name
	}
	for k, s := range plan.Steps {
		if s.Kind != planner.StepBoxing {
			continue
		}
		b := TimedBoxing{Step: k, Name: s.Name, Shape: []int(s.Shape.Clone()), From: s.From, To: s.To, SendBytes: s.SendBytes,
			PredictedS: s.TimeS, Collectives: []TimedCollective{}}
		if b.Shape == nil {
			b.Shape = []int{}
		}
		for pos, rk := range r.Ranks {
			if len(rk.Steps) != len(plan.Steps) {
				return Timed{}, fmt.Errorf("engine: times: device %d reports %d steps; the plan has %d", pos, len(rk.Steps), len(plan.Steps))
			}
			cs := rk.Steps[k].Collectives
			if pos == 0 {
				for _, c := range cs {
					b.Collectives = append(b.Collectives, TimedCollective{MeshDim: c.MeshDim, Collective: c.Collective, Ran: c.Ran, RankS: make([]float64, n)})
				}
			}
			if len(cs) != len(b.Collectives) {
				return Timed{}, fmt.Errorf("engine: times: device %d ran %d collectives in step %s; device 0 ran %d", pos, len(cs), s.Name, len(b.Collectives))
			}
			for j, c := range cs {
				tc := &b.Collectives[j]
				if pos == 0 {
					tc.Runs = len(c.Runs)
				}
				if len(c.Runs) != tc.Runs {
					return Timed{}, fmt.Errorf("engine: times: device %d timed %d runs of collective %d of step %s; device 0 %d", pos, len(c.Runs), j, s.Name, tc.Runs)
				}
				tc.RankS[pos] = c.Time.Seconds()
				tc.MeasuredS = max(tc.MeasuredS, c.Time.Seconds())
				tc.CallS = max(tc.CallS, c.CallTime.Seconds())
				tc.FirstS = max(tc.FirstS, c.FirstTime.Seconds())
			}
		}
		for j := range b.Collectives {
			if b.Collectives[j].Runs > 0 {
				b.Collectives[j].MeasuredS = slowestRuns(r.Ranks, k, j)
			}
		}
		if bt := s.BoxingTime; bt != nil {
			if len(bt.Steps) != len(b.Collectives) {
				return Timed{}, fmt.Errorf("engine: times: step %s: the cluster timed %d collectives; the engine ran %d", s.Name, len(bt.Steps), len(b.Collectives))
			}
			for j := range b.Collectives {
				b.Collectives[j].PredictedS = bt.Steps[j].TimeS
				b.Collectives[j].Ratio = ratio(b.Collectives[j].MeasuredS, bt.Steps[j].TimeS)
			}
		}
		for _, c := range b.Collectives {
			b.MeasuredS += c.MeasuredS
			b.CallS += c.CallS
			b.FirstS += c.FirstS
		}
		b.Ratio = ratio(b.MeasuredS, b.PredictedS)
		out.Boxings = append(out.Boxings, b)
		out.PredictedS += b.PredictedS
		out.MeasuredS += b.MeasuredS
		out.CallS += b.CallS
		out.FirstS += b.FirstS
	}
	out.Ratio = ratio(out.MeasuredS, out.PredictedS)
	return out, nil
}

// slowestRuns is collective j of step k as calibrate takes a point: run
// by run the slowest device's time, then their median.
func slowestRuns(ranks []RankReport, k, j int) float64 {
	runs := make([]float64, len(ranks[0].Steps[k].Collectives[j].Runs))
	for _, rk := range ranks {
		for i, t := range rk.Steps[k].Collectives[j].Runs {
			runs[i] = max(runs[i], t.Seconds())
		}
	}
	return Median(runs)
}

// Median is the middle of v (the mean of the two middles for an even
// count), v left as it is: how a point of `stridelab calibrate` and a
// collective's timed runs (Times) are taken from their runs.
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	h := len(s) / 2
	if len(s)%2 == 1 {
		return s[h]
	}
	return (s[h-1] + s[h]) / 2
}

// ratio is measured / predicted, or 0 when nothing is predicted.
func ratio(measured, predicted float64) float64 {
	if predicted <= 0 {
		return 0
	}
	return measured / predicted
}
