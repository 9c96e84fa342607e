// Command stridelab-desktop is the scenes live, in a window: pick a
// scene, type its shapes as the CLI takes them, play and step the
// animation, hover a cell to light what it maps to, click to pin, pan and
// zoom, export what you see. It starts where `stridelab draw` would:
//
//	stridelab-desktop expand --shape 4,1,3 --size 4,2,3
//	stridelab-desktop placement --shape 8,6 --sbp '(S(0), P)' --placement '[[0,1],[2,3]]'
//
// For tests and scripts:
//
//	--screenshot FILE --frames N   draw N frames, write the window as PNG, exit 0
//	--script FILE                  replay input events (see app/session.Event)
//	--fps-report                   print the measured frame times on exit
//
// It needs a display (X11 or Wayland; under test, Xvfb). The results
// panel computes on the WebGPU adapter when there is one (wgpu-native),
// else on the CPU, and names which.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/stridelab/stridelab/app/live"
	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/results"
	"github.com/stridelab/stridelab/shaders"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
	"github.com/stridelab/stridelab/viz/render"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "stridelab-desktop:", err)
		os.Exit(exitCode(err))
	}
}

// errUsage marks bad command lines (exit 2).
var errUsage = errors.New("usage")

func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

func run(args []string, stdout, stderr io.Writer) error {
	scene := "expand"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		scene, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("stridelab-desktop "+scene, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	values := viz.KeyFlags(fs)
	step := fs.Int("step", 0, "the animation step to start on")
	width := fs.Int("width", 1280, "window width in pixels")
	height := fs.Int("height", 720, "window height in pixels")
	shot := fs.String("screenshot", "", "draw --frames frames, write the window as PNG to this file and exit")
	frames := fs.Int("frames", 3, "with --screenshot: how many frames to draw first")
	script := fs.String("script", "", "replay the input events in this file (hover, click, key, type, wait, screenshot)")
	fps := fs.Bool("fps-report", false, "print the median and 5th-percentile frame rate on exit")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	seconds := fs.Float64("seconds", 0, "close after this many seconds (with --fps-report: how long to measure)")
	backend := fs.String("backend", "auto", "where the results panel computes: cpu, gpu or auto")
	paused := fs.Bool("paused", false, "start with the animation paused")
	lesson := fs.String("lesson", "", "open a lesson: ID or ID/STEP (e.g. expand-repeat/3)")
	maxBytes := fs.String("max-bytes", "", "the most bytes one computed result may take, e.g. 4GiB (default: $"+tensor.MaxBytesEnv+", else half of the available memory)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: stridelab-desktop [SCENE] [the scene's flags as for stridelab draw] [--screenshot FILE --frames N] [--script FILE] [--fps-report]\n\nscenes, each with its worked example (what a scene with no flags opens) and the keys it also takes:\n%s\n\nflags:\n", viz.KindsUsage())
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil
		}
		return fmt.Errorf("%w: %v (see --help)", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected %q: flags take the form --shape 4,1,3", errUsage, fs.Arg(0))
	}
	limit, err := tensor.ResolveLimit(*maxBytes)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	tensor.SetMaxBytes(limit)
	given := values()
	if ex, ok := viz.Example(scene); ok && len(given) == 0 {
		given = ex.Values // no flags: the scene's worked example
	}
	spec, err := viz.ParseSpec(scene, given, *step)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	o := live.Options{Spec: spec, Width: *width, Height: *height, Screenshot: *shot, Frames: *frames, Paused: *paused, Compute: results.Compute}
	if *lesson != "" {
		id, step, _ := strings.Cut(*lesson, "/")
		n := 1
		if step != "" {
			if _, err := fmt.Sscan(step, &n); err != nil {
				return fmt.Errorf("%w: --lesson %q: the step is a number, as in expand-repeat/3", errUsage, *lesson)
			}
		}
		o.Lesson, o.LessonStep = id, n
	}
	if *script != "" {
		f, err := os.Open(*script)
		if err != nil {
			return fmt.Errorf("%w: --script: %v", errUsage, err)
		}
		o.Script, err = session.ParseScript(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%w: --script %s: %v", errUsage, *script, err)
		}
	}
	if *fps {
		o.FPS = stdout
	}
	if *seconds > 0 {
		o.Until = time.Duration(*seconds * float64(time.Second))
	}
	if o.Backend, err = pickBackend(*backend, stderr); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("%w: --cpuprofile: %v", errUsage, err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	o.Export = exportFile
	return live.Run(o)
}

// pickBackend opens the WebGPU adapter for the results panel: gpu must
// find one, auto falls back to the CPU reference (nil), cpu never looks.
func pickBackend(name string, stderr io.Writer) (tensor.Backend, error) {
	switch name {
	case "cpu":
		return nil, nil
	case "gpu", "auto":
		dev, err := shaders.Open(shaders.Options{})
		if err == nil {
			return shaders.NewBackend(dev), nil
		}
		if name == "gpu" {
			return nil, fmt.Errorf("--backend gpu: %v (try --backend auto or cpu)", err)
		}
		fmt.Fprintf(stderr, "stridelab-desktop: notice: no WebGPU adapter (%v); the results compute on the CPU\n", err)
		return nil, nil
	}
	return nil, fmt.Errorf("%w: --backend %q: choose cpu, gpu or auto", errUsage, name)
}

// exportFile writes the scene at step as format into name in the working
// directory, drawn by the headless renderers at the size `stridelab draw`
// uses by default: the bytes the CLI writes for the same spec.
func exportFile(name, format string, scene *viz.Scene, step int) error {
	return render.WriteFileAtomic(name, func(w io.Writer) error {
		return render.Encode(w, scene, format, step, viz.DefaultSize)
	})
}
