package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/stridelab/stridelab/engine"
	"github.com/stridelab/stridelab/sbp/cluster"
	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/tensor"
)

// This file is `sbp program --engine torch`'s predicted against
// measured: each boxing's time on the plan's cluster (--cluster) beside
// the time the torch engine's workers measured (engine.Times), as a
// table after the per-rank report, and as the plan JSON's "measured"
// field with --json.

// writeTimes prints, for every boxing of plan, the time predicted on its
// cluster beside the time res measured (and the part of it spent in the
// library's calls, without the workers' own padding, slicing and
// joining; and the run's own first call, cold), their ratio, and the
// totals; a boxing of several collectives (one per mesh dim it crosses)
// has a row for each under its own. res nil prints nothing.
//
//	predicted on loopback against measured on 4 torch.distributed processes (each collective's median of 5 timed runs after its own call, each run alone after a barrier of all of them, its slowest process's time):
//	step   boxing    shape    from -> to  collectives  sent      predicted  measured  in the call  first call  measured/predicted
//	3      w@B       [32 16]  S(0) -> B   all-gather   6.00 KiB  699 µs     1.91 ms   1.6 ms       8.2 ms      2.73
//	total  1 boxing                                    6.00 KiB  699 µs     1.91 ms   1.6 ms       8.2 ms      2.73
func writeTimes(w io.Writer, plan *planner.Plan, res *engine.Result) error {
	if res == nil {
		return nil
	}
	tm, err := engine.Times(plan, res)
	if err != nil {
		return err
	}
	how := "each collective alone after a barrier of all of them, its slowest process's time"
	if runs := timedRuns(tm); runs > 0 {
		how = fmt.Sprintf("each collective's median of %s after its own call, each run alone after a barrier of all of them, its slowest process's time", count(runs, "timed run"))
	}
	if tm.Cluster == "" {
		fmt.Fprintf(w, "\nmeasured on %d %s processes (%s); --cluster NAME|FILE predicts each boxing's time beside it:\n", tm.Processes, engineWords(tm.Engine), how)
	} else {
		fmt.Fprintf(w, "\npredicted on %s against measured on %d %s processes (%s):\n", tm.Cluster, tm.Processes, engineWords(tm.Engine), how)
	}
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "step\tboxing\tshape\tfrom -> to\tcollectives\tsent\tpredicted\tmeasured\tin the call\tfirst call\tmeasured/predicted")
	var sent int64
	for _, b := range tm.Boxings {
		var names []string
		for _, c := range b.Collectives {
			names = append(names, string(c.Collective))
		}
		if len(names) == 0 {
			names = []string{"none"}
		}
		sent += b.SendBytes
		fmt.Fprintf(tw, "%d\t%s\t%v\t%s -> %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", b.Step+1, b.Name, b.Shape, b.From, b.To, strings.Join(names, " + "),
			tensor.FormatBytes(b.SendBytes), predicted(b.PredictedS, tm.Cluster), cluster.FormatSeconds(b.MeasuredS), cluster.FormatSeconds(b.CallS), cluster.FormatSeconds(b.FirstS), ratioWords(b.Ratio))
		if len(b.Collectives) < 2 {
			continue
		}
		for _, c := range b.Collectives {
			ran := string(c.Collective)
			if c.Ran != "" {
				ran += " (" + c.Ran + ")"
			}
			fmt.Fprintf(tw, "\t  mesh dim %d\t\t\t%s\t\t%s\t%s\t%s\t%s\t%s\n", c.MeshDim, ran,
				predicted(c.PredictedS, tm.Cluster), cluster.FormatSeconds(c.MeasuredS), cluster.FormatSeconds(c.CallS), cluster.FormatSeconds(c.FirstS), ratioWords(c.Ratio))
		}
	}
	fmt.Fprintf(tw, "total\t%s\t\t\t\t%s\t%s\t%s\t%s\t%s\t%s\n", count(len(tm.Boxings), "boxing"), tensor.FormatBytes(sent),
		predicted(tm.PredictedS, tm.Cluster), cluster.FormatSeconds(tm.MeasuredS), cluster.FormatSeconds(tm.CallS), cluster.FormatSeconds(tm.FirstS), ratioWords(tm.Ratio))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(w, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	return nil
}

// timedRuns is the number of timed runs tm's collectives are the median
// of: the most any has (local steps and groups of one are timed the same
// way); 0 when every time is a run's own call.
func timedRuns(tm engine.Timed) int {
	runs := 0
	for _, b := range tm.Boxings {
		for _, c := range b.Collectives {
			runs = max(runs, c.Runs)
		}
	}
	return runs
}

// engineWords names an engine's processes: torch's are torch.distributed's.
func engineWords(name string) string {
	if name == "torch" {
		return "torch.distributed"
	}
	return name
}

// predicted spells a predicted time, "-" when no cluster predicts it.
func predicted(s float64, clusterName string) string {
	if clusterName == "" {
		return "-"
	}
	return cluster.FormatSeconds(s)
}

// ratioWords spells measured/predicted with 2 decimals (none from 100
// on), "-" when nothing is predicted.
func ratioWords(r float64) string {
	switch {
	case r <= 0:
		return "-"
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

// writeProgramJSON prints plan as JSON (planner.Plan's form) and, after
// a run of an engine (res not nil), a last field "measured": each
// boxing's predicted and measured times (engine.Timed).
func writeProgramJSON(w io.Writer, plan *planner.Plan, res *engine.Result) error {
	if res == nil {
		return writeJSON(w, plan)
	}
	tm, err := engine.Times(plan, res)
	if err != nil {
		return err
	}
	planJSON, err := compactJSON(plan)
	if err != nil {
		return err
	}
	timesJSON, err := compactJSON(tm)
	if err != nil {
		return err
	}
	// The plan's object with one more field: its own MarshalJSON (the
	// peak fields after the plan's) stays the one that writes the rest.
	var whole bytes.Buffer
	whole.Write(bytes.TrimSuffix(planJSON, []byte("}")))
	whole.WriteString(`,"measured":`)
	whole.Write(timesJSON)
	whole.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, whole.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// compactJSON is v as one line of JSON, HTML characters unescaped (as
// writeJSON writes them).
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
