package engine

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/stridelab/stridelab/sbp/planner"
)

// WriteTable writes r's report as a table, a row per device and step
// (and its setup, where the engine has one): the device's rank and pid,
// the step, its time, and for a boxing the
// collectives the plan names and the engine ran, with the bytes sent and
// received as measured beside the plan's ("=" where they agree). The
// notes follow, one a line.
//
//	rank  pid   step          time    collective            ran         sent        received
//	0     6869  x  input      4.1ms
//	0     6869  grad_w boxing 8.2ms   all-reduce            all_reduce  192 B = plan  192 B = plan
func WriteTable(w io.Writer, r *Result) error {
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rank\tpid\tstep\ttime\tcollective\tran\tsent\treceived\n")
	for _, rk := range r.Ranks {
		if rk.Setup > 0 {
			fmt.Fprintf(tw, "%d\t%d\t(setup)\t%s\t\t\t\t\n", rk.Rank, rk.Pid, rk.Setup.Round(time.Millisecond))
		}
		for _, s := range rk.Steps {
			t := "-"
			if s.Time > 0 {
				t = s.Time.Round(time.Microsecond).String()
			}
			fmt.Fprintf(tw, "%d\t%d\t%s %s\t%s", rk.Rank, rk.Pid, s.Name, s.Kind, t)
			if s.Kind != planner.StepBoxing {
				fmt.Fprintf(tw, "\t\t\t\t\n")
				continue
			}
			var names, ran []string
			for _, c := range s.Collectives {
				names = append(names, string(c.Collective))
				ran = append(ran, c.Ran)
			}
			if len(names) == 0 {
				names, ran = []string{"none"}, []string{"-"}
			}
			sent, planSent := s.Sent()
			recv, planRecv := s.Received()
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t%s\n", strings.Join(names, " + "), strings.Join(ran, " + "), beside(sent, planSent), beside(recv, planRecv))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(w, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	for _, n := range r.Notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	return nil
}

// beside spells measured bytes beside the plan's, exactly.
func beside(measured, planned int64) string {
	if measured == planned {
		return fmt.Sprintf("%d B = plan", measured)
	}
	return fmt.Sprintf("%d B (plan %d B)", measured, planned)
}
