package viz

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp"
	"github.com/stridelab/stridelab/tensor"
)

// rectAt returns the first Rect of f whose top left is (x, y).
func rectAt(f Frame, x, y float64) (Rect, bool) {
	for _, it := range f.Items {
		if r, ok := it.(Rect); ok && r.X == x && r.Y == y {
			return r, true
		}
	}
	return Rect{}, false
}

// TestFocusOnStorageTintsItsReaders: over many random index scenes, a
// focused storage cell of any operand tints exactly the drawn output cells
// whose IndexModel reads include it, and the count of readers in all is
// the count of output indices (enumerated here) that read it.
func TestFocusOnStorageTintsItsReaders(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked, n, least := 0, 400, 300
	if runtime.GOOS == "js" { // make test-wasm: a sample, in the browser's runtime
		n, least = 60, 150
	}
	for _, spec := range indexSpecs(r, n) {
		s, err := Build(spec)
		if err != nil {
			continue
		}
		m := s.Model().(*IndexModel)
		is := s.impl.(*indexScene)
		hots, _ := s.Hots(is.lead, DefaultSize)
		for name, ol := range m.Operands {
			if ol.Storage == 0 {
				continue
			}
			for _, off := range []int{0, r.IntN(ol.Storage), ol.Storage - 1} {
				f := &Focus{Kind: FocusStorage, Operand: name, Offset: off}
				fr, err := s.FrameFocus(is.lead, f, DefaultSize) // the sweep's first frame
				if err != nil {
					t.Fatalf("%v focus %+v: %v", spec, f, err)
				}
				want := map[string]bool{}
				for k, c := range m.Cells {
					if k > 0 && slices.Contains(c.Reads, Read{name, off}) { // cell 0 is the sweep's, drawn selected
						want[fmt.Sprint(c.Index)] = true
					}
				}
				got := map[string]bool{}
				for _, h := range hots {
					if h.Kind != FocusCell || h.Operand != "out" {
						continue
					}
					if rc, ok := rectAt(fr, h.X+1, h.Y+1); ok && rc.Fill == Reader {
						got[fmt.Sprint(h.Index)] = true
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%v focus %s[%d]: tinted %v, want the readers %v", spec, name, off, got, want)
				}
				if n, want := is.readers(Read{name, off}), bruteReaders(is, Read{name, off}); n != want {
					t.Fatalf("%v: %s[%d] is read by %d cells, counted from the layout; enumerating gives %d", spec, name, off, n, want)
				}
				checked++
			}
		}
	}
	if checked < least {
		t.Fatalf("only %d focuses checked, want at least %d", checked, least)
	}
}

// bruteReaders enumerates every output index and counts those reading r.
func bruteReaders(s *indexScene, r Read) int {
	n, _ := s.out.NumElements()
	count := 0
	for i := range n {
		if slices.Contains(s.readsOf(s.out.Unravel(i)), r) {
			count++
		}
	}
	return count
}

// TestReaderCountOfHugeViews: views of 10⁹ and more elements count their
// readers exactly from the strides (enumerating would never finish).
func TestReaderCountOfHugeViews(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		read Read
		want int
	}{
		{Spec{Scene: "expand", Values: map[string]string{"shape": "1", "size": "1000000000,1000000000"}}, Read{"x", 0}, 1_000_000_000_000_000_000},
		{Spec{Scene: "expand", Values: map[string]string{"shape": "3,1", "size": "1000000000,3,1000000"}}, Read{"x", 2}, 1_000_000_000_000_000},
		{Spec{Scene: "binary", Values: map[string]string{"shape": "100000,1", "b-shape": "1,100000"}}, Read{"b", 99999}, 100_000},
		{Spec{Scene: "repeat", Values: map[string]string{"shape": "7,1", "times": "100000,1000"}}, Read{"x", 4}, 100_000_000},
		// rows 0, 2, …; columns 999999, 999996, …: offset 2·10⁶ + 3 is row 2, column 3 = 999999 - 3·332332.
		{Spec{Scene: "view", Values: map[string]string{"shape": "1000000,1000000", "index": "::2, ::-3"}}, Read{"x", 2_000_003}, 1},
		{Spec{Scene: "view", Values: map[string]string{"shape": "1000000,1000000", "index": "::2, ::-3"}}, Read{"x", 2_000_004}, 0},
		{Spec{Scene: "view", Values: map[string]string{"shape": "1000000,1000000", "index": "::2, ::-3"}}, Read{"x", 1_000_003}, 0},
	} {
		s, err := Build(c.spec)
		if err != nil {
			t.Fatalf("%v: %v", c.spec, err)
		}
		f := &Focus{Kind: FocusStorage, Operand: c.read.Operand, Offset: c.read.Offset}
		want := fmt.Sprintf("%s[%d] is read by %d output cell", c.read.Operand, c.read.Offset, c.want)
		if _, err := s.FrameFocus(0, f, DefaultSize); err != nil {
			t.Fatalf("%v: %v", c.spec, err)
		}
		if got := s.Report(0, f).String(); !strings.Contains(got, want) {
			t.Errorf("%v focus %v: the report says\n%s\nwant %q", c.spec, c.read, got, want)
		}
	}
}

// TestFocusKeepsHots: whatever is lit, the hot regions are the plain
// frame's, and a focus on nothing in the scene is an error.
func TestFocusKeepsHots(t *testing.T) {
	for _, spec := range gallerySpecs {
		s, err := Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := s.Hots(0, DefaultSize)
		plainFrame, _ := s.Frame(0, DefaultSize)
		for _, h := range plain[:min(len(plain), 40)] {
			f := h.Focus
			if _, err := s.FrameFocus(0, &f, DefaultSize); err != nil {
				t.Fatalf("%v focus %+v: %v", spec, f, err)
			}
			lit, _ := s.Hots(0, DefaultSize)
			if fmt.Sprint(lit) != fmt.Sprint(plain) {
				t.Fatalf("%v focus %+v: the hot regions moved", spec, f)
			}
		}
		again, _ := s.FrameFocus(0, nil, DefaultSize)
		if fmt.Sprint(again) != fmt.Sprint(plainFrame) {
			t.Fatalf("%v: FrameFocus(nil) differs from Frame", spec)
		}
		for _, bad := range []Focus{{Kind: FocusDevice, Rank: 99}, {Kind: FocusCell, Operand: "out", Index: []int{99, 99}}, {Kind: FocusStorage, Operand: "q"}} {
			if _, err := s.FrameFocus(0, &bad, DefaultSize); err == nil || !strings.HasPrefix(err.Error(), "viz: ") {
				t.Errorf("%v focus %+v: %v; want a viz error", spec, bad, err)
			}
		}
	}
}

// TestFocusOnAnOutputCellSelectsIt: a focused output cell is drawn selected
// instead of the sweep's and the panel and report write its formula.
func TestFocusOnAnOutputCellSelectsIt(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		cell []int
		want string
	}{
		{Spec{Scene: "expand", Values: map[string]string{"shape": "4,1,3", "size": "4,2,3"}}, []int{3, 1, 2}, "= 11"},
		{Spec{Scene: "binary", Values: map[string]string{"shape": "3,1", "b-shape": "1,4"}}, []int{2, 3}, "b offset = 0"},
		{Spec{Scene: "reduce", Values: map[string]string{"shape": "2,3,4", "to": "1,3,1"}}, []int{0, 2, 0}, "combines 8 elements"},
	} {
		s, _ := Build(c.spec)
		f := &Focus{Kind: FocusCell, Operand: "out", Index: c.cell}
		fr, _ := s.FrameFocus(0, f, DefaultSize)
		hots, _ := s.Hots(0, DefaultSize)
		for _, h := range hots {
			if h.Operand != "out" {
				continue
			}
			rc, _ := rectAt(fr, h.X+1, h.Y+1)
			if (rc.Fill == Highlight) != slices.Equal(h.Index, c.cell) {
				t.Errorf("%v focus %v: cell %v has fill %v", c.spec, c.cell, h.Index, rc.Fill)
			}
		}
		if rep := s.Report(0, f).String(); !strings.Contains(rep, c.want) {
			t.Errorf("%v focus %v: report\n%s\nwant %q", c.spec, c.cell, rep, c.want)
		}
	}
	// reduce: an input cell lights the output cell it feeds.
	s, _ := Build(Spec{Scene: "reduce", Values: map[string]string{"shape": "2,3,4", "to": "1,3,1"}})
	if got := s.Report(0, &Focus{Kind: FocusCell, Operand: "x", Index: []int{1, 2, 3}}).String(); !strings.Contains(got, "x[1 2 3] feeds out [0 2 0], with the 7 cells") {
		t.Errorf("reduce focus x[1 2 3]: %s", got)
	}
}

// TestFocusOnADeviceDimsOtherShards: the focused rank's box is drawn
// thick, the others' and the global cells they alone hold are dimmed.
func TestFocusOnADeviceDimsOtherShards(t *testing.T) {
	spec := Spec{Scene: "placement", Values: map[string]string{"shape": "25,33", "sbp": "S(0)", "placement": "4"}}
	s, _ := Build(spec)
	p, _ := sbp.ParsePlacement("4")
	nd, _ := sbp.ParseNd("S(0)")
	shards, _ := sbp.Shards(tensor.Shape{25, 33}, p, nd)
	for rank := range 4 {
		f := &Focus{Kind: FocusDevice, Rank: rank}
		fr, err := s.FrameFocus(0, f, DefaultSize)
		if err != nil {
			t.Fatal(err)
		}
		hots, _ := s.Hots(0, DefaultSize)
		for _, h := range hots {
			switch h.Kind {
			case FocusDevice:
				rc, _ := rectAt(fr, h.X, h.Y)
				if thick := rc.StrokeWidth == 4; thick != (h.Rank == rank) {
					t.Errorf("focus rank %d: rank %d's box has stroke %v", rank, h.Rank, rc.StrokeWidth)
				}
				if dim := rc.Fill == Tint(DeviceColor(h.Rank), 0.96); dim == (h.Rank == rank) {
					t.Errorf("focus rank %d: rank %d's box fill %v", rank, h.Rank, rc.Fill)
				}
			case FocusCell:
				rc, _ := rectAt(fr, h.X+1, h.Y+1)
				own := owners(shards, h.Index)[0]
				if dim := rc.Fill == Tint(DeviceColor(own), 0.7); dim == (own == rank) {
					t.Errorf("focus rank %d: global %v (rank %d's) has fill %v", rank, h.Index, own, rc.Fill)
				}
			}
		}
	}
}

// TestFocusOnAGlobalCellNamesItsOwners: every rank holding the element and
// its local index there.
func TestFocusOnAGlobalCellNamesItsOwners(t *testing.T) {
	for _, c := range []struct {
		spec  Spec
		cell  []int
		wants []string
	}{
		{Spec{Scene: "placement", Values: map[string]string{"shape": "25,33", "sbp": "S(0)", "placement": "4"}}, []int{13, 5}, []string{"held by 1 rank", "rank 2 [2] at local [0 5]"}},
		{Spec{Scene: "placement", Values: map[string]string{"shape": "8,6", "sbp": "(S(0), B)", "placement": "[[0,1],[2,3]]"}}, []int{5, 1}, []string{"held by 2 ranks", "rank 2 [1 0] at local [1 1]", "rank 3 [1 1] at local [1 1]"}},
		{Spec{Scene: "placement", Values: map[string]string{"shape": "8,6", "sbp": "P", "placement": "3"}}, []int{7, 5}, []string{"held by 3 ranks", "rank 1 [1] at local [7 5], partial"}},
	} {
		s, _ := Build(c.spec)
		f := &Focus{Kind: FocusCell, Operand: "global", Index: c.cell}
		if _, err := s.FrameFocus(0, f, DefaultSize); err != nil {
			t.Fatal(err)
		}
		got := s.Report(0, f).String()
		for _, w := range c.wants {
			if !strings.Contains(got, w) {
				t.Errorf("%v focus %v: report\n%s\nwant %q", c.spec, c.cell, got, w)
			}
		}
	}
}

// TestReportTablesAreSbps: the per-rank table is sbp's shards at the step,
// and boxing's step tables are sbp's plan.
func TestReportTablesAreSbps(t *testing.T) {
	for _, spec := range []Spec{
		{Scene: "placement", Values: map[string]string{"shape": "25,33", "sbp": "S(0)", "placement": "4"}},
		{Scene: "placement", Values: map[string]string{"shape": "8,6", "sbp": "(S(0), P)", "placement": "[[0,1],[2,3]]"}},
		{Scene: "boxing", Values: map[string]string{"shape": "25,33", "from": "S(0)", "to": "S(1)", "placement": "4"}},
		{Scene: "boxing", Values: map[string]string{"shape": "16,32", "from": "(S(0), S(1))", "to": "(B, B)", "placement": "[[0,1],[2,3]]"}},
		{Scene: "plan", Values: map[string]string{"op": "expand", "shape": "4,3,1,2", "size": "2,4,3,4,2", "sbp": "S(3)", "placement": "3"}},
	} {
		s, _ := Build(spec)
		ss := s.impl.(*shardScene)
		for step := range s.Steps {
			rep := s.Report(step, nil)
			shards, _ := sbp.Shards(ss.shape, ss.placement, ss.layouts[step])
			table := rep.Sections[0].Table
			if len(table) != len(shards)+1 {
				t.Fatalf("%v step %d: %d rows for %d shards", spec, step, len(table)-1, len(shards))
			}
			for i, sh := range shards {
				want := []string{fmt.Sprint(sh.Rank), fmt.Sprint(sh.Coord), ss.layouts[step].String(), FormatRanges(shardRanges(sh)), sh.Shape.String()}
				if !slices.Equal(table[i+1][:5], want) || table[i+1][6] != fmt.Sprint(4*product(sh.Shape)) || (table[i+1][5] != "") != sh.Partial {
					t.Errorf("%v step %d: row %v, sbp's shard %v", spec, step, table[i+1], want)
				}
			}
			if ss.boxing == nil {
				continue
			}
			for k, st := range ss.boxing.Steps {
				sec := rep.Sections[1+k]
				for i, tr := range st.Ranks {
					row := sec.Table[i+1]
					if row[4] != fmt.Sprint(tr.SendBytes) || row[5] != fmt.Sprint(tr.RecvBytes) || !strings.Contains(sec.Title, string(st.Collective)) {
						t.Errorf("%v boxing step %d rank %d: %v in %q, sbp's %+v", spec, k, tr.Rank, row, sec.Title, tr)
					}
				}
			}
		}
	}
}

func product(s tensor.Shape) int {
	n, _ := s.NumElements()
	return n
}

// skewed is the CPU backend with its Materialize off by one at element 0:
// Compute must notice.
// TestReshapeThatMustCopyIsAScene: a reshape no view can express draws the
// layout it starts from and says which strides do not chain and what the
// copy costs.
func TestReshapeThatMustCopyIsAScene(t *testing.T) {
	for _, c := range []struct {
		values map[string]string
		wants  []string
	}{
		{map[string]string{"shape": "4,5", "permute": "1,0", "reshape": "20"}, []string{"no single view exists", "dims 0, 1 do not: 1 ≠ 4·5 = 20", ".contiguous() writes 80 B", ".reshape([20]) views the copy (strides [1])"}},
		{map[string]string{"shape": "2,3,4", "permute": "0,2,1", "reshape": "2,-1"}, []string{"dims 1, 2 do not: 1 ≠ 3·4 = 12", "dims 0, 1 do not: 12 ≠ 4·1 = 4", ".reshape([2 12]) views the copy (strides [12 1])"}},
		{map[string]string{"shape": "2,3,5", "index": ":, :, ::2", "reshape": "2,9"}, []string{"dims 0, 1 chain: 15 = 3·5", "dims 1, 2 do not: 5 ≠ 3·2 = 6"}},
		{map[string]string{"shape": "6,4", "index": "::2, 1:3", "reshape": "6"}, []string{"dims 0, 1 do not: 8 ≠ 2·1 = 2", "24 B"}},
	} {
		s, err := Build(Spec{Scene: "view", Values: c.values})
		if err != nil {
			t.Fatalf("%v: %v", c.values, err)
		}
		rep := s.Report(0, nil).String() + s.Title
		for _, w := range c.wants {
			if !strings.Contains(rep, w) {
				t.Errorf("%v: the report\n%s\nhas no %q", c.values, rep, w)
			}
		}
		if _, err := s.Frame(s.Steps-1, DefaultSize); err != nil {
			t.Errorf("%v: %v", c.values, err)
		}
	}
}

// solidAndGhosts sorts the labels of the cells hot as operand's (cells of
// kind, or storage cells) in frame f into solid and dashed ones.
func solidAndGhosts(f Frame, hots []Hot, kind FocusKind, operand string) (solid, ghosts []string) {
	for _, h := range hots {
		if h.Kind != kind || h.Operand != operand || (kind == FocusStorage && h.H != h.W) {
			continue
		}
		rc, _ := rectAt(f, h.X+1, h.Y+1)
		for _, it := range f.Items {
			if t, ok := it.(Text); ok && t.X == h.X+h.W/2 && t.Y > h.Y && t.Y < h.Y+h.H {
				if rc.Dash {
					ghosts = append(ghosts, t.S)
				} else {
					solid = append(solid, t.S)
				}
			}
		}
	}
	slices.Sort(solid)
	return solid, ghosts
}

func labels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(i)
	}
	slices.Sort(out)
	return out
}

// TestRepeatShowsItsStages: repeat's first frames are the reshaped view and
// the expanded one, whose solid cells are the storage once each and whose
// stride-0 copies are ghosts; each frame says its bytes; then the copy
// sweeps the output.
func TestRepeatShowsItsStages(t *testing.T) {
	for _, c := range []struct {
		shape, times string
		storage      int
		copyBytes    string
	}{
		{"3,1,5", "5,3,1", 15, "900 B"},
		{"5", "3", 5, "60 B"},
		{"2,3", "2,1,2", 6, "96 B"},
	} {
		s, err := Build(Spec{Scene: "repeat", Values: map[string]string{"shape": c.shape, "times": c.times}})
		if err != nil {
			t.Fatal(err)
		}
		m := s.Model().(*IndexModel)
		if s.Steps != 2+len(m.Cells) {
			t.Fatalf("repeat %s by %s: %d steps, want 2 stages + %d cells", c.shape, c.times, s.Steps, len(m.Cells))
		}
		for step, want := range []string{"stage 1: x.reshape(", "stage 2: .expand(", "stage 3: the copy writes out"} {
			f, _ := s.Frame(step, DefaultSize)
			hots, _ := s.Hots(step, DefaultSize)
			var text []string
			for _, it := range f.Items {
				if tx, ok := it.(Text); ok {
					text = append(text, tx.S)
				}
			}
			all := strings.Join(text, "\n")
			if !strings.Contains(all, want) || (step < 2 && !strings.Contains(all, "0 B")) || !strings.Contains(all, c.copyBytes) {
				t.Errorf("repeat %s by %s frame %d: no %q with its bytes in\n%s", c.shape, c.times, step, want, all)
			}
			if step == 2 {
				continue
			}
			kind := FocusStorage
			solid, ghosts := solidAndGhosts(f, hots, kind, "x")
			if !slices.Equal(solid, labels(c.storage)) {
				t.Errorf("repeat %s by %s frame %d: solid cells %v, want the storage once each", c.shape, c.times, step, solid)
			}
			if (step == 0) != (len(ghosts) == 0) {
				t.Errorf("repeat %s by %s frame %d: %d ghosts", c.shape, c.times, step, len(ghosts))
			}
		}
	}
}

// TestBinaryDrawsBothOperandsOverTheOutput: a and b are grids over the
// output's shape whose solid cells are their storage once each, the
// stretched copies dashed.
func TestBinaryDrawsBothOperandsOverTheOutput(t *testing.T) {
	for _, c := range []struct {
		a, b   string
		na, nb int
		ghosts [2]int
	}{
		{"3,1", "1,4", 3, 4, [2]int{9, 8}},
		{"2,3", "3", 6, 3, [2]int{0, 3}},
		{"4,1,2", "3,1", 8, 3, [2]int{16, 21}},
	} {
		s, err := Build(Spec{Scene: "binary", Values: map[string]string{"shape": c.a, "b-shape": c.b}})
		if err != nil {
			t.Fatal(err)
		}
		f, _ := s.Frame(0, DefaultSize)
		hots, _ := s.Hots(0, DefaultSize)
		for k, name := range []string{"a", "b"} {
			solid, ghosts := solidAndGhosts(f, hots, FocusCell, name)
			if !slices.Equal(solid, labels([]int{c.na, c.nb}[k])) || len(ghosts) != c.ghosts[k] {
				t.Errorf("%s + %s: %s's solid cells %v and %d ghosts, want its storage once each and %d ghosts", c.a, c.b, name, solid, len(ghosts), c.ghosts[k])
			}
		}
	}
}

// TestSameFocus: two foci are the same when the fields their kind uses
// are equal (a device's Offset, the step a program's row is under, is not
// one of them); nil is the same only as nil.
func TestSameFocus(t *testing.T) {
	cell := &Focus{Kind: FocusCell, Operand: "out", Index: []int{1, 2}}
	for _, c := range []struct {
		f, g *Focus
		want bool
	}{
		{nil, nil, true},
		{cell, nil, false},
		{nil, cell, false},
		{cell, &Focus{Kind: FocusCell, Operand: "out", Index: []int{1, 2}, Offset: 7}, true},
		{cell, &Focus{Kind: FocusCell, Operand: "x", Index: []int{1, 2}}, false},
		{cell, &Focus{Kind: FocusCell, Operand: "out", Index: []int{1, 3}}, false},
		{&Focus{Kind: FocusStorage, Operand: "x", Offset: 5}, &Focus{Kind: FocusStorage, Operand: "x", Offset: 5, Rank: 2}, true},
		{&Focus{Kind: FocusStorage, Operand: "x", Offset: 5}, &Focus{Kind: FocusStorage, Operand: "x", Offset: 4}, false},
		{&Focus{Kind: FocusDevice, Rank: 1, Offset: 0}, &Focus{Kind: FocusDevice, Rank: 1, Offset: 3}, true},
		{&Focus{Kind: FocusDevice, Rank: 1}, &Focus{Kind: FocusDevice, Rank: 2}, false},
		{&Focus{Kind: FocusStep, Offset: 2}, &Focus{Kind: FocusStep, Offset: 2}, true},
		{&Focus{Kind: FocusStep, Offset: 2}, &Focus{Kind: FocusDevice, Offset: 2}, false},
		{&Focus{}, &Focus{Operand: "x"}, true},
	} {
		if got := SameFocus(c.f, c.g); got != c.want {
			t.Errorf("SameFocus(%v, %v) = %v, want %v", c.f, c.g, got, c.want)
		}
	}
}
