// Command stridelab runs and explains tensor views, broadcasting and
// repeat on NumPy .npy files.
//
//	stridelab expand  --in X.npy --size 2,-1,4        [--out Y.npy] [--backend cpu]
//	stridelab repeat  --in X.npy --times 2,1,3
//	stridelab reduce  --in X.npy --op sum|max|min --to 1,3,1
//	stridelab binary  --op add|sub|mul|div|max|min|eq --a A.npy --b B.npy
//	stridelab grad expand --in-shape 3,1 --size 2,3,4 --grad G.npy
//	stridelab grad repeat --in-shape 3,1 --times 2,3 --grad G.npy
//	stridelab layout expand --shape 4,1,3,5 --size 2,1,4,4,3,5 [--json]
//	stridelab layout repeat --shape 3,1,5 --times 2,5,3,1 [--json]
//	stridelab sbp plan   --op expand --shape 4,3,1,2 --size 2,4,3,4,2 --sbp 'S(3)' --placement 2 [--strict] [--cluster NAME|FILE] [--cost bytes|time] [--json] [--emit oneflow|pytorch]
//	stridelab sbp boxing --shape 25,33 --from 'S(0)' --to 'S(1)' --placement 4 [--cluster NAME|FILE] [--json] [--in X.npy --out Y.npy]
//	stridelab sbp run    --op add --in A.npy --b B.npy --sbp 'S(0)' --placement 0-3 --out Y.npy [--engine sim|torch]
//	stridelab sbp program --file P | --src 'placement 4; x = input 8,4 S(0); …' [--strategy greedy|exact] [--cluster NAME|FILE] [--cost bytes|time] [--json] [--out DIR] [--emit oneflow|pytorch] [--engine sim|torch]
//	stridelab draw expand --shape 4,1,3 --size 4,2,3 -o e.gif   (svg, png, gif, json)
//	stridelab draw program --file P [--cluster NAME|FILE] [--cost bytes|time] -o p.svg
//	stridelab serve [--addr 127.0.0.1:8080] [--write DIR]       the browser page, embedded
//	stridelab lessons -o DIR [--from FOLDER]   the lessons as HTML pages with SVG and GIF figures
//	stridelab calibrate --engine torch [--placement 4] [-o FILE]   fit α and β to this machine's gloo collectives
//	stridelab cluster NAME|FILE [--placement P]   a preset (h100-node, two-h100-nodes, tpu-v5e, …) or a checked file, as JSON
//	stridelab demo     walk through the worked examples
//	stridelab bench    time the kernels beside NumPy
//
// Every error exits non-zero with one line naming what was wrong.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/stridelab/stridelab/tensor"
)

// command is one subcommand: its one-line summary and its entry point,
// which gets the arguments after its name.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() map[string]command {
	return map[string]command{
		"expand":    {"materialize X expanded to a size (stride 0 on broadcast dims)", expandCommand.run},
		"repeat":    {"tile X along each dim (PyTorch repeat, NumPy tile)", repeatCommand.run},
		"reduce":    {"sum, max or min X down to a broadcast-compatible shape", reduceCommand.run},
		"binary":    {"an elementwise op of two broadcast tensors", binaryCommand.run},
		"grad":      {"backward of expand or repeat: sum the gradient over the copies", runGrad},
		"layout":    {"show shapes, strides, the repeat plan and an index trace", runLayout},
		"demo":      {"walk through the worked examples of expand and repeat", runDemo},
		"bench":     {"time the kernels on the benchmark cases beside NumPy", runBench},
		"devices":   {"list the WebGPU adapters found, with their limits", runDevices},
		"sbp":       {"global tensors on simulated devices: plan an op, plan a boxing, run; plan and run a whole program (sbp program)", runSbp},
		"serve":     {"serve the browser page built into this binary (make run), or --write it to a folder", runServe},
		"draw":      {"draw a scene (expand, repeat, binary, reduce, view, placement, plan, boxing, program, …) as SVG, PNG, GIF or JSON", runDraw},
		"lessons":   {"write the lessons as HTML pages with SVG figures and GIF animations", runLessons},
		"calibrate": {"measure this machine's collectives (torch.distributed, gloo) and fit a cluster file's α and β", runCalibrate},
		"import":    {"trace a PyTorch module's forward and loss into a program (model.st, params.json, the values)", runImport},
		"cluster":   {"print a cluster preset, or check a cluster file, as the JSON --cluster reads", runCluster},
		"sweep":     {"plan a program on 1, 2, 4, … devices of a growing cluster: step time, compute and communication, peak memory", runSweep},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit status: 0 on
// success, 1 when the operation failed, 2 for a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || isHelp(args[0]) || args[0] == "help" {
		usage(stdout, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "stridelab: unknown command %q; run stridelab --help for the list\n", args[0])
		return 2
	}
	// Every command starts from the environment's result limit (not from
	// what an earlier command in this process set); --max-bytes overrides.
	if limit, err := tensor.ResolveLimit(""); err == nil {
		tensor.SetMaxBytes(limit)
	}
	err := c.run(args[1:], stdout, stderr)
	name := args[0]
	if _, ok := sbpCommands[optional(args, 1)]; ok && name == "sbp" {
		name += " " + args[1] // stridelab sbp program: …
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(*usageError)):
		fmt.Fprintf(stderr, "stridelab %s: %v\n", name, err)
		return 2
	default:
		fmt.Fprintf(stderr, "stridelab %s: %v\n", name, oneLine(err))
		return 1
	}
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "stridelab: see and run tensor views, broadcasting and repeat")
	fmt.Fprintln(w, "\nusage: stridelab <command> [flags]   (stridelab <command> --help for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
}

// usageError is a bad command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// optional is args[i], or "" past the end.
func optional(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }
