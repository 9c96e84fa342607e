package planner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stridelab/stridelab/sbp/program"
	"github.com/stridelab/stridelab/tensor"
)

// heldStep is one step of a hand count: the step's name and the SBP it
// leaves its value in (so a plan that changed says so before its
// figures do), and what each device holds while it runs.
type heldStep struct {
	name, sbp string
	held      []int64
}

// on4 is the same count on each of 4 devices.
func on4(b int64) []int64 { return []int64{b, b, b, b} }

// planned parses src and plans it with s, or fails the test.
func planned(t *testing.T, src string, s Strategy) *Plan {
	t.Helper()
	p, err := program.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(p, s)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// perDevice sums per-device counts of one length, device by device.
func perDevice(parts ...[]int64) []int64 {
	out := make([]int64, len(parts[0]))
	for _, p := range parts {
		for i, b := range p {
			out[i] += b
		}
	}
	return out
}

// checkHeld plans src greedily and compares every step's HeldBytes, and
// the peak, with the hand count want.
func checkHeld(t *testing.T, src string, want []heldStep, peakStep int) {
	t.Helper()
	plan := planned(t, src, Greedy)
	var got, listed []string
	for _, s := range plan.Steps {
		got = append(got, s.Name+" "+s.Out().String())
	}
	for _, w := range want {
		listed = append(listed, w.name+" "+w.sbp)
	}
	if !slices.Equal(got, listed) {
		t.Fatalf("%s\nthe plan's steps are\n  %s\nbut the hand count is of\n  %s\n(the plan changed: count it again)",
			src, strings.Join(got, "\n  "), strings.Join(listed, "\n  "))
	}
	peak := make([]int64, len(want[0].held))
	for k, w := range want {
		if s := plan.Steps[k]; !slices.Equal(s.HeldBytes, w.held) {
			t.Errorf("%s\nstep %d (%s): held %v, hand count %v", src, k+1, w.name, s.HeldBytes, w.held)
		}
		for i, b := range w.held {
			peak[i] = max(peak[i], b)
		}
	}
	gotPeak, gotStep := plan.Peak()
	if !slices.Equal(gotPeak, peak) || gotStep != peakStep {
		t.Errorf("%s\npeak %v at step index %d, want %v at %d", src, gotPeak, gotStep, peak, peakStep)
	}
}

// The hand counts below follow memory.go's rule: the inputs from the
// first step to the last, the inputs' gradients from the step that
// makes them to the last, everything else from its step to its last
// reader. Bytes are float32 (4 a value) per device.

// Data parallelism on 4 devices: x's rows split, w whole everywhere.
// OneFlow's backward: sum's broadcast_like reads y (its like) and makes
// grad_y split as y is; the matmul gradients split alike, w's partial:
// one all-reduce.
func TestHeldDataParallel(t *testing.T) {
	const (
		x      = 16 * 32 * 4 // [64 32] S(0): 16 rows a device = 2048
		w      = 32 * 16 * 4 // [32 16] B = 2048
		inputs = x + w       // 4096, from the first step to the last
		y      = 16 * 16 * 4 // [64 16] S(0) = 1024, read by s and grad_y (its like)
		s      = 4           // [1 1] P(sum): the full-size partial buffer, read by nothing
		gradS  = 4           // [1 1] B, read by grad_y
		gradY  = 16 * 16 * 4 // [64 16] S(0) = 1024, read by grad_x.y and grad_w.y
		gradX  = 16 * 32 * 4 // [64 32] S(0) = 2048: grad_x.y, laid out as x, is x's gradient: to the end
		gradWY = 32 * 16 * 4 // [32 16] P(sum) = 2048, read by grad_w
		gradW  = 32 * 16 * 4 // [32 16] B = 2048, w's gradient: to the end
	)
	checkHeld(t, "placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; s = sum y 1,1; grad s", []heldStep{
		{"x", "S(0)", on4(inputs)},                                   // 4096
		{"w", "B", on4(inputs)},                                      // 4096
		{"y", "S(0)", on4(inputs + y)},                               // 4096 + 1024 = 5120
		{"s", "P(sum)", on4(inputs + y + s)},                         // 5120 + 4 = 5124; s goes
		{"grad_s", "B", on4(inputs + y + gradS)},                     // 5124
		{"grad_y", "S(0)", on4(inputs + y + gradS + gradY)},          // 5124 + 1024 = 6148; y and grad_s go
		{"grad_x.y", "S(0)", on4(inputs + gradY + gradX)},            // 4096 + 1024 + 2048 = 7168
		{"grad_w.y", "P(sum)", on4(inputs + gradY + gradX + gradWY)}, // 7168 + 2048 = 9216; grad_y goes
		{"grad_w", "B", on4(inputs + gradX + gradWY + gradW)},        // 4096 + 2048 + 2048 + 2048 = 10240, the peak
	}, 8)
}

// ZeRO-3 on 4 devices: w lives split, boxed whole (wb) for its matmul;
// the B copy is held until the backward's matmul of grad_y by wb^T has
// read it, and w's gradient, partial, is reduce-scattered to w's S(0).
func TestHeldZeRO3(t *testing.T) {
	const (
		x      = 16 * 32 * 4 // [64 32] S(0) = 2048
		w      = 8 * 16 * 4  // [32 16] S(0) = 512: a quarter of data parallelism's
		inputs = x + w       // 2560
		wb     = 32 * 16 * 4 // [32 16] B = 2048, read by y and grad_x.y
		y      = 16 * 16 * 4 // [64 16] S(0) = 1024, read by s and grad_y (its like)
		s      = 4           // [1 1] P(sum), read by nothing
		gradS  = 4           // [1 1] B, read by grad_y
		gradY  = 16 * 16 * 4 // [64 16] S(0) = 1024, read by grad_x.y and grad_wb
		gradX  = 16 * 32 * 4 // [64 32] S(0) = 2048: grad_x.y, laid out as x, is x's gradient: to the end
		gradWb = 32 * 16 * 4 // [32 16] P(sum) = 2048, read by grad_w
		gradW  = 8 * 16 * 4  // [32 16] S(0) = 512, w's gradient: to the end
	)
	checkHeld(t, "placement 4; x = input 64,32 S(0); w = input 32,16 S(0); wb = box w B; y = matmul x wb; s = sum y 1,1; grad s", []heldStep{
		{"x", "S(0)", on4(inputs)},                                  // 2560
		{"w", "S(0)", on4(inputs)},                                  // 2560
		{"wb", "B", on4(inputs + wb)},                               // 2560 + 2048 = 4608
		{"y", "S(0)", on4(inputs + wb + y)},                         // 4608 + 1024 = 5632
		{"s", "P(sum)", on4(inputs + wb + y + s)},                   // 5632 + 4 = 5636; s goes
		{"grad_s", "B", on4(inputs + wb + y + gradS)},               // 5636
		{"grad_y", "S(0)", on4(inputs + wb + y + gradS + gradY)},    // 5636 + 1024 = 6660; y and grad_s go
		{"grad_x.y", "S(0)", on4(inputs + wb + gradY + gradX)},      // 2560 + 2048 + 1024 + 2048 = 7680, the peak; wb goes
		{"grad_wb", "P(sum)", on4(inputs + gradY + gradX + gradWb)}, // 2560 + 1024 + 2048 + 2048 = 7680; grad_y goes
		{"grad_w", "S(0)", on4(inputs + gradX + gradWb + gradW)},    // 2560 + 2048 + 2048 + 512 = 7168
	}, 7)
}

// Megatron's MLP on 4 devices: w1 split by columns, w2 by rows, the
// activations split; every split is even, so every device holds the same.
func TestHeldMegatronMLP(t *testing.T) {
	const (
		inputs = 8*16*4 + 16*8*4 + 4 + 8*16*4 // x [8 16] B 512 + w1 [16 32] S(1) 512 + zero [1] B 4 + w2 [32 16] S(0) 512 = 1540
		act    = 8 * 8 * 4                    // any [8 32] split 4 ways, S(0) (2 rows) or S(1) (8 columns): 256
		y      = 8 * 16 * 4                   // [8 16] P(sum): the full-size partial buffer, 512
		one    = 4                            // s, grad_s, grad_zero.r, grad_zero: one value
		gradY  = 8 * 16 * 4                   // [8 16] B = 512
		gradW2 = 8 * 16 * 4                   // grad_w2.y [32 16] S(0) = 512, w2's gradient: to the end
		gradXH = 8 * 16 * 4                   // [8 16] P(sum) = 512
		gradW1 = 16 * 8 * 4                   // grad_w1.h [16 32] S(1) = 512, w1's gradient: to the end
		gradX  = 8 * 16 * 4                   // [8 16] B = 512, x's gradient: to the end
	)
	// Who reads what (Step.Reads): h by its S(0) copy (step 5) only, as
	// r==h reuses the copy; h@S(0) by r and r==h (15); r by r@S(1), r==h
	// and r==zero (16); r@S(1) by y and grad_w2.y (14, matmul with
	// transpose_a); y by s and grad_y (its like, 12); grad_y by grad_r and
	// grad_w2.y (14); grad_r by its S(0) copy (18), which tmp.1 and tmp.3
	// read (21); r==h to tmp.1 (19), r==zero to tmp.3 (21), r.picks to
	// tmp.4 (22); tmp.2 by its S(1) copy (24), which grad_x.h and
	// grad_w1.h read (26).
	checkHeld(t, "placement 4; x = input 8,16 B; w1 = input 16,32 S(1); h = matmul x w1; zero = input 1 B; r = max h zero; w2 = input 32,16 S(0); y = matmul r w2; s = sum y 1,1; grad s", []heldStep{
		{"x", "B", on4(inputs)},                                                   // 1540
		{"w1", "S(1)", on4(inputs)},                                               // 1540
		{"h", "S(1)", on4(inputs + act)},                                          // 1540 + 256 = 1796
		{"zero", "B", on4(inputs + act)},                                          // 1796
		{"h@S(0)", "S(0)", on4(inputs + 2*act)},                                   // h, h@S(0): 1540 + 512 = 2052; h goes
		{"r", "S(0)", on4(inputs + 2*act)},                                        // h@S(0), r: 2052
		{"w2", "S(0)", on4(inputs + 2*act)},                                       // 2052
		{"r@S(1)", "S(1)", on4(inputs + 3*act)},                                   // h@S(0), r, r@S(1): 1540 + 768 = 2308
		{"y", "P(sum)", on4(inputs + 3*act + y)},                                  // 2308 + 512 = 2820
		{"s", "P(sum)", on4(inputs + 3*act + y + one)},                            // 2820 + 4 = 2824; s goes
		{"grad_s", "B", on4(inputs + 3*act + y + one)},                            // 2824
		{"grad_y", "B", on4(inputs + 3*act + y + one + gradY)},                    // 2824 + 512 = 3336; y and grad_s go
		{"grad_r", "S(1)", on4(inputs + 4*act + gradY)},                           // h@S(0), r, r@S(1), grad_r: 1540 + 1024 + 512 = 3076
		{"grad_w2.y", "S(0)", on4(inputs + 4*act + gradY + gradW2)},               // 3076 + 512 = 3588; r@S(1) and grad_y go
		{"r==h", "S(0)", on4(inputs + 4*act + gradW2)},                            // h@S(0), r, grad_r, r==h: 1540 + 1024 + 512 = 3076; h@S(0) goes
		{"r==zero", "S(0)", on4(inputs + 4*act + gradW2)},                         // r, grad_r, r==h, r==zero: 3076; r goes
		{"r.picks", "S(0)", on4(inputs + 4*act + gradW2)},                         // grad_r, r==h, r==zero, r.picks: 3076
		{"grad_r@S(0)", "S(0)", on4(inputs + 5*act + gradW2)},                     // and grad_r@S(0): 1540 + 1280 + 512 = 3332; grad_r goes
		{"tmp.1", "S(0)", on4(inputs + 5*act + gradW2)},                           // r==h, r==zero, r.picks, grad_r@S(0), tmp.1: 3332; r==h goes
		{"tmp.2", "S(0)", on4(inputs + 5*act + gradW2)},                           // r==zero, r.picks, grad_r@S(0), tmp.1, tmp.2: 3332; tmp.1 goes
		{"tmp.3", "S(0)", on4(inputs + 5*act + gradW2)},                           // r==zero, r.picks, grad_r@S(0), tmp.2, tmp.3: 3332; r==zero and grad_r@S(0) go
		{"tmp.4", "S(0)", on4(inputs + 4*act + gradW2)},                           // r.picks, tmp.2, tmp.3, tmp.4: 1540 + 1024 + 512 = 3076; r.picks and tmp.3 go
		{"grad_zero.r", "P(sum)", on4(inputs + 2*act + gradW2 + one)},             // tmp.2, tmp.4, grad_zero.r: 1540 + 512 + 512 + 4 = 2568; tmp.4 goes
		{"tmp.2@S(1)", "S(1)", on4(inputs + 2*act + gradW2 + one)},                // tmp.2, tmp.2@S(1): 2568; tmp.2 goes
		{"grad_x.h", "P(sum)", on4(inputs + act + gradW2 + one + gradXH)},         // tmp.2@S(1), grad_x.h: 1540 + 256 + 512 + 4 + 512 = 2824
		{"grad_w1.h", "S(1)", on4(inputs + act + gradW2 + one + gradXH + gradW1)}, // 2824 + 512 = 3336; tmp.2@S(1) goes
		{"grad_x", "B", on4(inputs + gradW2 + one + gradXH + gradW1 + gradX)},     // 1540 + 512 + 4 + 512 + 512 + 512 = 3592, the peak; grad_x.h goes
		{"grad_zero", "B", on4(inputs + gradW2 + one + gradW1 + gradX + one)},     // 1540 + 512 + 4 + 512 + 512 + 4 = 3084
	}, 26)
}

// Ten rows on 3 devices split 4, 3, 3 (BalancedSplit): device 0 holds
// more of every split tensor.
func TestHeldUnevenSplit(t *testing.T) {
	split := func(perRow int64) []int64 { return []int64{4 * perRow, 3 * perRow, 3 * perRow} } // S(0) of 10 rows
	whole := func(b int64) []int64 { return []int64{b, b, b} }
	var (
		x      = split(4 * 4)     // [10 4] S(0): 64, 48, 48
		w      = whole(4 * 2 * 4) // [4 2] B: 32
		inputs = perDevice(x, w)  // 96, 80, 80
		y      = split(2 * 4)     // [10 2] S(0): 32, 24, 24, read by s and grad_y (its like)
		one    = whole(4)         // s P(sum), grad_s B
		gradY  = split(2 * 4)     // [10 2] S(0): 32, 24, 24
		gradX  = split(4 * 4)     // grad_x.y [10 4] S(0), x's gradient: 64, 48, 48
		gradWY = whole(4 * 2 * 4) // [4 2] P(sum): 32
		gradW  = whole(4 * 2 * 4) // [4 2] B: 32
	)
	checkHeld(t, "placement 3; x = input 10,4 S(0); w = input 4,2 B; y = matmul x w; s = sum y 1,1; grad s", []heldStep{
		{"x", "S(0)", inputs},                                           // 96, 80, 80
		{"w", "B", inputs},                                              // 96, 80, 80
		{"y", "S(0)", perDevice(inputs, y)},                             // 128, 104, 104
		{"s", "P(sum)", perDevice(inputs, y, one)},                      // 132, 108, 108
		{"grad_s", "B", perDevice(inputs, y, one)},                      // 132, 108, 108
		{"grad_y", "S(0)", perDevice(inputs, y, one, gradY)},            // 164, 132, 132
		{"grad_x.y", "S(0)", perDevice(inputs, gradY, gradX)},           // 192, 152, 152
		{"grad_w.y", "P(sum)", perDevice(inputs, gradY, gradX, gradWY)}, // 224, 184, 184: device 0's peak
		{"grad_w", "B", perDevice(inputs, gradX, gradWY, gradW)},        // 224, 192, 192
	}, 7)
}

// A 2×2 mesh, where mesh dims split in turn (sbp.Shards): x's 5 rows by
// (S(0), S(0)) are 3 and 2, then 2, 1 and 1, 1, so the devices at
// coordinates (0,0) (0,1) (1,0) (1,1) hold 2, 1, 1, 1 rows.
func TestHeldMesh(t *testing.T) {
	v := func(a, b, c, d int64) []int64 { return []int64{a, b, c, d} }
	var (
		x      = v(2*16, 16, 16, 16) // [5 4] (S(0), S(0)): rows 2, 1, 1, 1 of 16 bytes: 32, 16, 16, 16
		w      = on4(4 * 3 * 4)      // [4 6] (B, S(1)): 3 of the 6 columns: 48
		inputs = perDevice(x, w)     // 80, 64, 64, 64
		xBox   = v(24, 24, 16, 16)   // x@(S(0), S(1)) [5 4]: rows 3, 3, 2, 2 by 2 columns: 24, 24, 16, 16
		wBox   = on4(2 * 6 * 4)      // w@(B, S(0)) [4 6]: 2 rows: 48
		y      = v(72, 72, 48, 48)   // [5 6] (S(0), P(sum)): rows 3, 3, 2, 2 of 24 bytes, partial along dim 1; read by s and grad_y (its like)
		one    = on4(4)              // s (P(sum), P(sum)), grad_s (B, B)
		gradY  = v(72, 72, 48, 48)   // [5 6] (S(0), B): rows 3, 3, 2, 2 of 24 bytes
		gradYC = v(36, 36, 24, 24)   // grad_y@(S(0), S(1)): rows 3, 3, 2, 2 of 3 columns
		gradXY = v(48, 48, 32, 32)   // [5 4] (S(0), P(sum)): rows 3, 3, 2, 2 of 16 bytes
		gradYR = v(2*24, 24, 24, 24) // grad_y@(S(0), S(0)): rows 2, 1, 1, 1 of 24 bytes: 48, 24, 24, 24
		gradWY = on4(4 * 6 * 4)      // [4 6] (P(sum), P(sum)): 96
		gradX  = v(2*16, 16, 16, 16) // [5 4] (S(0), S(0)): 32, 16, 16, 16
		gradW  = on4(4 * 3 * 4)      // [4 6] (B, S(1)): 48
	)
	checkHeld(t, "placement [[0,1],[2,3]]; x = input 5,4 (S(0), S(0)); w = input 4,6 (B, S(1)); y = matmul x w; s = sum y 1,1; grad s", []heldStep{
		{"x", "(S(0), S(0))", inputs},                                                     // 80, 64, 64, 64
		{"w", "(B, S(1))", inputs},                                                        // 80, 64, 64, 64
		{"x@(S(0), S(1))", "(S(0), S(1))", perDevice(inputs, xBox)},                       // 104, 88, 80, 80
		{"w@(B, S(0))", "(B, S(0))", perDevice(inputs, xBox, wBox)},                       // 152, 136, 128, 128
		{"y", "(S(0), P(sum))", perDevice(inputs, xBox, wBox, y)},                         // 224, 208, 176, 176; both copies go
		{"s", "(P(sum), P(sum))", perDevice(inputs, y, one)},                              // 156, 140, 116, 116; s goes
		{"grad_s", "(B, B)", perDevice(inputs, y, one)},                                   // 156, 140, 116, 116
		{"grad_y", "(S(0), B)", perDevice(inputs, y, one, gradY)},                         // 228, 212, 164, 164; y and grad_s go
		{"grad_y@(S(0), S(1))", "(S(0), S(1))", perDevice(inputs, gradY, gradYC)},         // 188, 172, 136, 136
		{"grad_x.y", "(S(0), P(sum))", perDevice(inputs, gradY, gradYC, gradXY)},          // 236, 220, 168, 168; the copy goes
		{"grad_y@(S(0), S(0))", "(S(0), S(0))", perDevice(inputs, gradY, gradXY, gradYR)}, // 248, 208, 168, 168; grad_y goes
		{"grad_w.y", "(P(sum), P(sum))", perDevice(inputs, gradXY, gradYR, gradWY)},       // 272, 232, 216, 216: the peak; the copy goes
		{"grad_x", "(S(0), S(0))", perDevice(inputs, gradXY, gradWY, gradX)},              // 256, 224, 208, 208; grad_x.y goes
		{"grad_w", "(B, S(1))", perDevice(inputs, gradWY, gradX, gradW)},                  // 256, 224, 224, 224
	}, 11)
}

// Capacity refuses a plan some device cannot hold, in one line: the
// statement, the device holding the most at the peak, the step, its
// largest values and the capacity; it passes a plan that fits exactly.
func TestCapacity(t *testing.T) {
	dp := planned(t, "placement 4; x = input 64,32 S(0); w = input 32,16 B; y = matmul x w; s = sum y 1,1; grad s", Greedy)
	if err := dp.Capacity(10240, "H100"); err != nil {
		t.Errorf("10240 bytes hold the data-parallel plan's peak: %v", err)
	}
	// At step 9 (grad_w, the all-reduce) every device holds 10240 bytes:
	// x, w, grad_x.y, grad_w.y and grad_w at 2048 each (the first in step
	// order of equal ones named). 10.0 KiB both, to three digits, so the
	// bytes are spelled out.
	err := dp.Capacity(10239, "H100")
	// (The peak is the boxing of w's gradient to w's B: the step names w's statement.)
	const want = "program: line 1, column 36: w = input 32,16 B: rank 0 holds 10240 bytes at step 9 (x as S(0) 2.00 KiB, w as B 2.00 KiB, grad_x.y as S(0) 2.00 KiB and 2 more); each H100 has 10239 bytes"
	if err == nil || err.Error() != want || !errors.Is(err, ErrCapacity) {
		t.Errorf("got %v\nwant %s (and ErrCapacity)", err, want)
	}
	var perr *program.Error
	if !errors.As(err, &perr) || perr.Line != 1 {
		t.Errorf("%v: want a *Error naming the statement's line", err)
	}
	// Uneven: the device holding the most is named by its rank (ranks 4,
	// 5, 6 here), and a forward step names its own statement.
	uneven := planned(t, "placement 4-6; x = input 10,4 S(0); y = add x x", Greedy)
	err = uneven.Capacity(100, "")
	const want2 = "program: line 1, column 37: y = add x x: rank 4 holds 128 B at step 2 (x as S(0) 64 B, y as S(0) 64 B); the capacity is 100 B"
	if err == nil || err.Error() != want2 {
		t.Errorf("got %v\nwant %s", err, want2)
	}
	if err := uneven.Capacity(0, "H100"); err == nil || errors.Is(err, ErrCapacity) {
		t.Errorf("a capacity of 0: %v, want an error that is not ErrCapacity", err)
	}
}

// The JSON of a plan carries held_bytes on every step and the peak
// after the plan's fields, and escapes nothing an encoder told not to.
func TestHeldJSON(t *testing.T) {
	plan := planned(t, "placement 3; x = input 10,4 S(0); w = input 4,2 B; y = matmul x w", Exact)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plan); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"signature":"S(0) x B -> S(0)"`) {
		t.Errorf("the plan's JSON escapes its arrows: %s", buf.String())
	}
	var got struct {
		Strategy string `json:"strategy"`
		Steps    []struct {
			Name      string  `json:"name"`
			HeldBytes []int64 `json:"held_bytes"`
		} `json:"steps"`
		PeakHeldBytes []int64 `json:"peak_held_bytes"`
		PeakStep      int     `json:"peak_step"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	// x: 64, 48, 48 (4, 3, 3 rows of 16 bytes); w: 32 everywhere; y
	// [10 2] S(0): 32, 24, 24, read by nothing.
	want := [][]int64{{96, 80, 80}, {96, 80, 80}, {128, 104, 104}}
	if got.Strategy != "exact" || len(got.Steps) != len(want) {
		t.Fatalf("%s", buf.String())
	}
	for k, s := range got.Steps {
		if !slices.Equal(s.HeldBytes, want[k]) {
			t.Errorf("step %d (%s): held_bytes %v, want %v", k+1, s.Name, s.HeldBytes, want[k])
		}
	}
	if !slices.Equal(got.PeakHeldBytes, want[2]) || got.PeakStep != 2 {
		t.Errorf("peak_held_bytes %v at %d, want %v at 2", got.PeakHeldBytes, got.PeakStep, want[2])
	}
	// A Plan value marshals the same as a *Plan.
	a, _ := json.Marshal(plan)
	b, _ := json.Marshal(*plan)
	if !bytes.Equal(a, b) {
		t.Errorf("a Plan and a *Plan marshal differently:\n%s\n%s", a, b)
	}
}

// A device that would hold past 2^63 bytes refuses the plan, naming the
// statement of the step where the count overflows (each tensor alone
// fits: 2^60 float32 values are 2^62 bytes; x and y together are 2^63).
func TestHeldOverflow(t *testing.T) {
	p, err := program.Parse("placement 1; x = input 1073741824,1073741824 B; y = add x x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPlan(p, Greedy)
	const want = "program: line 1, column 49: y = add x x: what rank 0 holds at step 2: the bytes needed pass 2^63"
	if !errors.Is(err, tensor.ErrOverflow) || err.Error() != want {
		t.Errorf("got %v\nwant %s (tensor.ErrOverflow)", err, want)
	}
}

// TestRegatherFreesTheGatheredWeights: four layers of ZeRO-3 (each
// weight S(0), gathered B before use) hold every gathered weight from
// its forward use to its backward one; written regather, FSDP's way,
// each is freed after the forward and gathered again for the backward:
// one more all-gather per weight the backward reads, the same bytes as
// the forward's, a peak lower by at least two whole weights, and the
// same values.
func TestRegatherFreesTheGatheredWeights(t *testing.T) {
	const layers, n = 4, 512 // a weight: 512·512 float32, 1 MiB
	build := func(regather string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "placement 4\nx = input 8,%d S(0)\n", n)
		prev := "x"
		for l := range layers {
			fmt.Fprintf(&b, "w%d = input %d,%d S(0)\nw%db = box w%d B%s\nh%d = matmul %s w%db\na%d = tanh h%d\n", l, n, n, l, l, regather, l, prev, l, l, l)
			prev = fmt.Sprint("a", l)
		}
		fmt.Fprintf(&b, "s = sum %s 1,1\ngrad s\n", prev)
		return b.String()
	}
	zero3, fsdp := planned(t, build(""), Exact), planned(t, build(" regather"), Exact)
	gathers := func(p *Plan) (count int, bytes int64) {
		for _, s := range p.Steps {
			if s.Kind == StepBoxing && strings.HasPrefix(s.Tensor, "w") && s.From.String() == "S(0)" && s.To.String() == "B" {
				count, bytes = count+1, bytes+s.SendBytes
			}
		}
		return
	}
	zc, zb := gathers(zero3)
	fc, fb := gathers(fsdp)
	// the backward reads every wlb, for each layer's input gradient
	if zc != layers || fc != 2*layers || fb != 2*zb {
		t.Errorf("all-gathers: ZeRO-3 %d (%d bytes), FSDP %d (%d bytes); want %d, then twice as many of the same bytes", zc, zb, fc, fb, layers)
	}
	weight := int64(n * n * 4)
	zp, _ := zero3.Peak()
	fp, _ := fsdp.Peak()
	if slices.Max(zp)-slices.Max(fp) < 2*weight {
		t.Errorf("peak: ZeRO-3 %d, FSDP %d bytes; want FSDP at least two weights (%d bytes) lower", slices.Max(zp), slices.Max(fp), 2*weight)
	}
	p, _ := program.Parse(build(" regather"))
	vals := smallValues(rand.New(rand.NewPCG(30, 41)), p)
	got, err := fsdp.Run(tensor.CPU{}, vals)
	if err != nil {
		t.Fatal(err)
	}
	want, err := zero3.Run(tensor.CPU{}, vals)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s", "grad_w0", "grad_w3", "grad_x"} {
		if d := diff(got[name], want[name]); d > 1e-5*(1+maxAbs(want[name])) {
			t.Errorf("%s differs by %g with regather", name, d)
		}
	}
}
