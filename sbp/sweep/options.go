package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stridelab/stridelab/sbp/cluster"
)

// ParseDevices reads device counts written 1,2,4,8: each a whole number
// from 1. Its error names what was written, for a flag or a field to
// prefix.
func ParseDevices(s string) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: give device counts from 1, comma-separated (1,2,4,8)", s)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

// ParseMesh reads a sweep's mesh: 1d or 2d (Options.Mesh).
func ParseMesh(s string) (int, error) {
	switch s {
	case "1d":
		return 1, nil
	case "2d":
		return 2, nil
	}
	return 0, fmt.Errorf("%q: choose 1d or 2d", s)
}

// ClusterOf gives Options.Cluster for a name: a family (h100-nodes,
// tpu-v5e) sized for each count (cluster.ForDevices), or the one cluster
// resolve makes of it for every count (the CLI's: a preset or a file;
// the page's: a preset or a cluster's JSON).
func ClusterOf(name string, resolve func(string) (cluster.Cluster, error)) (func(int) (cluster.Cluster, error), error) {
	if cluster.Family(name) {
		return func(n int) (cluster.Cluster, error) { return cluster.ForDevices(name, n) }, nil
	}
	c, err := resolve(name)
	if err != nil {
		return nil, err
	}
	return func(int) (cluster.Cluster, error) { return c, nil }, nil
}
