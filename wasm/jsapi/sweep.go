//go:build js && wasm

package jsapi

import (
	"context"
	"fmt"
	"syscall/js"
	"time"

	"github.com/stridelab/stridelab/sbp/planner"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/sbp/sweep"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/wasm/jsvalue"
)

// sweepTimeout is the longest a playground's sweep runs: the worker
// computes nothing else meanwhile.
const sweepTimeout = 2 * time.Minute

// runSweep is `stridelab sweep` for the playground's program (package
// sweep): {src, cluster: a family (h100-nodes, tpu-v5e), a preset or a
// cluster's JSON, devices: "1,2,4,8", mesh: "1d"|"2d" (default: the
// program's placement's), strategy: "exact" (the default) | "greedy"} ->
// {strategy, mesh, rows: [{devices, placement, cluster, time_s, …}],
// table: {header, rows, notes}}: the JSON `stridelab sweep --json`
// prints, and the table it prints without (sweep.Result.Table). A fault is the one line the
// CLI's would say, its field named (`--devices "1,x": …`).
func runSweep(req js.Value) (any, error) {
	src := jsvalue.Str(req, "src")
	p, err := program.Parse(src)
	if err != nil {
		return nil, err
	}
	devices := jsvalue.Str(req, "devices")
	if devices == "" {
		devices = "1,2,4,8"
	}
	counts, err := sweep.ParseDevices(devices)
	if err != nil {
		return nil, fmt.Errorf("--devices %w", err)
	}
	o := sweep.Options{Devices: counts, Mesh: p.Placement.MeshRank(), Strategy: planner.Exact}
	if m := jsvalue.Str(req, "mesh"); m != "" {
		if o.Mesh, err = sweep.ParseMesh(m); err != nil {
			return nil, fmt.Errorf("--mesh %w", err)
		}
	}
	if s := jsvalue.Str(req, "strategy"); s != "" {
		if o.Strategy, err = planner.ParseStrategy(s); err != nil {
			return nil, fmt.Errorf("--strategy %q: choose greedy or exact", s)
		}
	}
	// a cluster's JSON as the program scene's field takes it (viz.ParseCluster)
	if o.Cluster, err = sweep.ClusterOf(jsvalue.Str(req, "cluster"), viz.ParseCluster); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), sweepTimeout)
	defer cancel()
	res, err := sweep.Run(ctx, src, o)
	collectSoon()
	if err != nil {
		return nil, err
	}
	return struct {
		*sweep.Result
		Table sweep.Table `json:"table"`
	}{res, res.Table()}, nil
}
