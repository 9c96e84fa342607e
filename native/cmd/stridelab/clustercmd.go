package main

import (
	"io"
	"os"
	"strings"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/sbp/cluster"
)

// runCluster prints a cluster in the file form: stridelab cluster
// NAME|FILE [--placement P]. NAME is a preset (cluster.Preset); anything
// else is read as a cluster file, checked strictly (cluster.Parse) and
// printed as the preset would be. --placement also checks that the
// cluster has one link per mesh dim of P.
func runCluster(args []string, stdout, stderr io.Writer) error {
	presets := strings.Join(cluster.PresetNames(), ", ")
	synopsis := "NAME|FILE [--placement P]\n\nprints a cluster (one link per mesh dim: alpha_s, beta_bytes_per_s; the device: flops_per_s,\nmem_bytes_per_s, mem_capacity_bytes) in the JSON form --cluster reads; a FILE is checked first.\npresets: " + presets + " (their sources: docs/reference.md)"
	name, args, err := leadWord(args, notFlag, usageLine("cluster", synopsis),
		usagef("say which cluster: stridelab cluster NAME|FILE; the presets are %s", presets), stderr)
	if err != nil {
		return err
	}
	fs := newFlags("cluster "+name, synopsis, stderr)
	placement := fs.String("placement", "", "also check that the cluster has one link per mesh dim of this placement (4, [[0,1],[2,3]], …)")
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
		if err := c.Check(p); err != nil {
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
