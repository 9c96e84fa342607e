package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/cluster"
)

// TestClusterPrintsPresets: every preset prints in the file form, which
// reads back as the preset, and a file prints as its preset would.
func TestClusterPrintsPresets(t *testing.T) {
	dir := t.TempDir()
	for _, c := range cluster.Presets() {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"cluster", c.Name}, &stdout, &stderr); code != 0 {
			t.Fatalf("cluster %s: exit %d: %s", c.Name, code, stderr.String())
		}
		want, _ := c.File()
		if stdout.String() != string(want) {
			t.Errorf("cluster %s printed\n%s\nwant\n%s", c.Name, stdout.String(), want)
		}
		back, err := cluster.Parse(c.Name, stdout.Bytes())
		if err != nil || back.Name != c.Name {
			t.Errorf("cluster %s: its output reads back as %+v, %v", c.Name, back, err)
		}
		path := filepath.Join(dir, c.Name+".json")
		os.WriteFile(path, []byte(strings.ReplaceAll(stdout.String(), "\n", " ")), 0o644)
		stdout.Reset()
		if code := run([]string{"cluster", path}, &stdout, &stderr); code != 0 || stdout.String() != string(want) {
			t.Errorf("cluster %s: exit %d, printed %q, want %q (%s)", path, code, stdout.String(), want, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"cluster", "two-h100-nodes", "--placement", "[[0,1,2,3],[4,5,6,7]]"}, &stdout, &stderr); code != 0 {
		t.Fatalf("cluster two-h100-nodes on a 2-D placement: exit %d: %s", code, stderr.String())
	}
	// A family's cluster as a placement sees it: across the nodes
	// InfiniBand, inside a node NVLink.
	stdout.Reset()
	if code := run([]string{"cluster", "h100-nodes:2", "--placement", "[[0,1,2,3,4,5,6,7],[8,9,10,11,12,13,14,15]]"}, &stdout, &stderr); code != 0 {
		t.Fatalf("cluster h100-nodes:2 on a 2×8 mesh: exit %d: %s", code, stderr.String())
	}
	c, err := cluster.Parse("", stdout.Bytes())
	if err != nil || c.Name != "h100-nodes:2" || len(c.Links) != 2 || c.Links[0].Beta != 5e10 || c.Links[1].Beta != 4.5e11 {
		t.Errorf("cluster h100-nodes:2 on a 2×8 mesh printed %s (%v), want links InfiniBand then NVLink", stdout.String(), err)
	}
}

// TestClusterRefuses: every bad command line is one line on stderr.
func TestClusterRefuses(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "two.json")
	os.WriteFile(bad, []byte(`{"name": "two", "links": [{"alpha_s": 1e-5, "beta_bytes_per_s": 5e10}, {"alpha_s": 1e-5, "beta_bytes_per_s": 0}], "device": {"flops_per_s": 1, "mem_bytes_per_s": 1, "mem_capacity_bytes": 1}}`), 0o644)
	refuses(t, []refused{
		{[]string{"cluster"}, 2, "say which cluster: stridelab cluster NAME|FILE; the presets are h100-node, two-h100-nodes, tpu-v5e"},
		{[]string{"cluster", "h200"}, 1, "cluster h200: no preset of that name and no such file; the presets are h100-node, two-h100-nodes"},
		{[]string{"cluster", bad}, 1, "cluster " + bad + ": links[1].beta_bytes_per_s: must be a positive number of bytes per second, got 0"},
		{[]string{"cluster", dir}, 1, "the file cannot be read: is a directory"},
		{[]string{"cluster", "loopback", "--placement", "[[0,1],[2,3]]"}, 1, "cluster loopback: links: 1 link for cpu:[[0, 1], [2, 3]], a 2-D mesh; give one link per mesh dim"},
		{[]string{"cluster", "h100-node", "--placement", "9"}, 1, "cluster h100-node: levels: it has 8 devices (8), and device 8 of the placement's 9 is past them"},
		{[]string{"cluster", "h100-nodes:0"}, 1, `cluster h100-nodes:0: the number of nodes must be a whole number from 1 to 1024, got "0"`},
		{[]string{"cluster", "h100-node", "--placement", "[[0,1],[2]]"}, 2, "--placement: sbp: placement"},
		{[]string{"cluster", "h100-node", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"cluster", "h100-node", "extra"}, 2, `unexpected argument "extra"`},
	})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"cluster", "--help"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "usage: stridelab cluster NAME|FILE") {
		t.Errorf("cluster --help: exit %d, %q", code, stderr.String())
	}
}

// refused is a command line the CLI refuses: the exit status it wants
// and a phrase of the one line it says on stderr.
type refused struct {
	args []string
	code int
	want string
}

// refuses runs every command line: each must exit with its status, say one
// line on stderr that holds its phrase, and print nothing on stdout.
func refuses(t *testing.T, cases []refused) {
	t.Helper()
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		msg := stderr.String()
		if code != c.code || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) || stdout.Len() != 0 {
			t.Errorf("stridelab %q: exit %d, stderr %q, stdout %q; want exit %d and one line containing %q", c.args, code, msg, stdout.String(), c.code, c.want)
		}
	}
}

// contains fails t for each of wants that out (what, in words) lacks.
func contains(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, out)
		}
	}
}
