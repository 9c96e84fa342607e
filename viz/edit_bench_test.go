package viz_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stridelab/stridelab/app/session"
	"github.com/stridelab/stridelab/results"
	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
	"github.com/stridelab/stridelab/viz"
)

// megatronMLP is Megatron-LM's MLP block on 4 devices: the first weight
// split by columns, the second by rows, so that the forward needs one
// all-reduce (of y, partial) and the backward one (of x's gradient).
const megatronMLP = "placement 4; x = input 32,64 B; w1 = input 64,256 S(1); h = matmul x w1; " +
	"w2 = input 256,64 S(0); y = matmul h w2; s = sum y 1,1; grad s"

// firstDimOfX finds x's first dim in a program: an edit doubles it.
var firstDimOfX = regexp.MustCompile(`x = input (\d+),`)

// doubleX edits a program as a user would, with twice the rows: x's
// first dim doubled, and with it every shape that starts with that size
// (a weight or a reduction's target that spells the same rows, a reshape
// of them), so the program still holds together. web/test/harness.mjs's
// scaledRows is the same rule for the browser's edits.
func doubleX(src string) (string, error) {
	m := firstDimOfX.FindStringSubmatch(src)
	if m == nil {
		return "", fmt.Errorf("no x to edit in %q", src)
	}
	edited := regexp.MustCompile(`(^|\s)`+m[1]+`,`).ReplaceAllString(src, "${1}"+strconv.Itoa(2*mustAtoi(m[1]))+",")
	if _, err := program.Parse(edited); err != nil {
		return "", fmt.Errorf("doubling x's rows (every shape starting with %s): %w", m[1], err)
	}
	return edited, nil
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// editPrograms are the gallery's programs (docs/gallery/gallery.sh) and
// Megatron's MLP, each as its spec and as the spec an edit of its source
// makes (doubleX: x's first dim doubled).
func editPrograms(t testing.TB) []struct {
	name       string
	base, edit viz.Spec
} {
	t.Helper()
	script, err := os.ReadFile("../docs/gallery/gallery.sh")
	if err != nil {
		t.Fatal(err)
	}
	var out []struct {
		name       string
		base, edit viz.Spec
	}
	add := func(name string, base viz.Spec) {
		src := base.Get("src")
		edited, err := doubleX(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		values := map[string]string{}
		for k, v := range base.Values {
			values[k] = v
		}
		values["src"] = edited
		edit, err := viz.ParseSpec("program", values, 0)
		if err != nil {
			t.Fatalf("%s edited: %v", name, err)
		}
		out = append(out, struct {
			name       string
			base, edit viz.Spec
		}{name, base, edit})
	}
	for line := range strings.Lines(string(script)) {
		fields := strings.Split(strings.TrimSpace(line), "|")
		if len(fields) < 4 || !strings.HasPrefix(fields[1], "program ") {
			continue
		}
		spec, err := viz.ParseCommand(fields[1])
		if err != nil {
			t.Fatalf("gallery %s: %v", fields[0], err)
		}
		add(fields[0], spec)
	}
	mlp, err := viz.ParseSpec("program", map[string]string{"src": megatronMLP}, 0)
	if err != nil {
		t.Fatal(err)
	}
	add("megatron-mlp", mlp)
	if len(out) < 6 {
		t.Fatalf("%d programs, want the gallery's (at least 5) and Megatron's MLP", len(out))
	}
	return out
}

// playgroundEdit runs what the playground runs for one edit of a field
// (web/main.js's edited and took): the page asks the wasm to check the
// fields (stridelab.spec) and for the scene's panel (stridelab.scene: its
// meaning and report), both on wasm/jsapi's one cached scene, which
// viz.Build makes here; the frame shows the edit (frame.show: the
// session's Show), says its state and draws it at its viewport size, the
// pointer hit-testing it; the page writes the hash and computes the
// results (stridelab.compute: results.Compute on the cached scene). It
// returns how long the edit took to show: to the frame's first drawing of
// the new scene.
func playgroundEdit(t testing.TB, frame *session.Session, edit viz.Spec) (shown time.Duration) {
	start := time.Now()
	page, err := viz.Build(edit) // stridelab.spec, then stridelab.scene and stridelab.compute from jsapi's cache
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.JSON(); err != nil {
		t.Fatal(err)
	}
	page.ReportLook(edit.Step, viz.Look{})
	hash, _, err := viz.ParseHash(edit.Hash())
	if err != nil {
		t.Fatal(err)
	}
	frame.Show(hash) // frame.show(hash)
	if _, err := frame.Err(); err != nil {
		t.Fatal(err)
	}
	frame.State()
	for _, sz := range []viz.Size{{W: 960, H: 540}, viz.DefaultSize} { // the frame's first layout, then its window's
		if _, err := frame.Frame(sz); err != nil {
			t.Fatal(err)
		}
		if shown == 0 {
			shown = time.Since(start)
		}
		frame.HitTest(sz, 100, 100)
	}
	step := viz.Focus{Kind: viz.FocusStep, Offset: 1}
	frame.Hover(&step)
	frame.State() // its words: Describe
	frame.Report()
	if _, err := results.Compute(context.Background(), page, tensor.CPU{}); err != nil {
		t.Fatal(err)
	}
	return shown
}

// BenchmarkProgramEdit is one edit of each gallery program and of
// Megatron's MLP in the playground (playgroundEdit: the page's wasm
// calls and the frame's session). Every edit gives x a new first dim, as
// the playground's browser test types it (x's edited first dim plus
// 0 to 255 in turn), so no edit finds its plan made before, nor the
// boxings of the tensors x's shape reaches (the planner remembers the
// last few thousand). Besides the time of the whole edit (ns/op: the
// results computed too) it reports the time to show the new scene
// (scene-ms/op), what the playground's budget of 100 ms after the
// typing pause is about.
func BenchmarkProgramEdit(b *testing.B) {
	for _, p := range editPrograms(b) {
		b.Run(p.name, func(b *testing.B) {
			frame, err := session.New(p.base)
			if err != nil {
				b.Fatal(err)
			}
			n, shown := 0, time.Duration(0)
			for b.Loop() {
				n++
				edit := p.edit
				src := p.edit.Get("src")
				rows := strings.TrimPrefix(src[strings.Index(src, "x = input "):], "x = input ")
				rows = rows[:strings.Index(rows, ",")]
				d, err := strconv.Atoi(rows)
				if err != nil {
					b.Fatalf("x's first dim in %q: %v", src, err)
				}
				src = strings.Replace(src, "x = input "+rows+",", fmt.Sprintf("x = input %d,", d+n%256), 1)
				edit.Values = map[string]string{"src": src}
				if v := p.edit.Get("strategy"); v != "" {
					edit.Values["strategy"] = v
				}
				shown += playgroundEdit(b, frame, edit)
			}
			b.ReportMetric(float64(shown)/float64(n)/1e6, "scene-ms/op")
		})
	}
}
