package main

import (
	"io"
	"os"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
)

// runCluster prints a cluster in the file form: stridelab cluster
// NAME|FILE [--placement P]. NAME is a preset (cluster.Preset); anything
// else is read as a cluster file, checked strictly (cluster.Parse) and
// printed as the preset would be. With --placement it prints the
// cluster as P sees it (cluster.Cluster.On: one link per mesh dim), or
// says why it does not fit.
func runCluster(args []string, stdout, stderr io.Writer) error {
	presets := cluster.PresetList()
	synopsis := "NAME|FILE [--placement P]\n\nprints a cluster (one link per mesh dim: alpha_s, beta_bytes_per_s, or levels innermost first: devices,\nalpha_s, beta_bytes_per_s; the device: flops_per_s, mem_bytes_per_s, mem_capacity_bytes) in the JSON form\n--cluster reads; a FILE is checked first. With --placement, the cluster as P sees it: one link per mesh dim.\npresets: " + presets + " (their sources: docs/reference.md)"
	name, args, err := leadWord(args, notFlag, usageLine("cluster", synopsis),
		usagef("say which cluster: stridelab cluster NAME|FILE; the presets are %s", presets), stderr)
	if err != nil {
		return err
	}
	fs := newFlags("cluster "+name, synopsis, stderr)
	placement := fs.String("placement", "", "print the cluster as this placement sees it, one link per mesh dim (4, [[0,1],[2,3]], …), or say why it does not fit")
	if err := fs.parse(args); err != nil {
		return err
	}
	c, err := cluster.Resolve(name, os.ReadFile)
	if err != nil {
		return err
	}
	if *placement != "" {
		p, err := sbp.ParsePlacement(*placement)
		if err != nil {
			return usagef("--placement: %v", err)
		}
		if c, err = c.On(p); err != nil {
			return err
		}
	}
	b, err := c.File()
	if err != nil {
		return err
	}
	_, err = stdout.Write(b)
	return err
}
