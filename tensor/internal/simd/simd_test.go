package simd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// scalar is the reference each loop must match bit for bit: Go's own
// float32 operators.
func scalar(op Op, x, y float32) float32 {
	switch op {
	case Add:
		return x + y
	case Sub:
		return x - y
	case Mul:
		return x * y
	}
	return x / y
}

// values cycles through ordinary numbers and the special ones (±0, ±Inf,
// NaN, a subnormal, the largest float32) so every lane meets each.
func values(n, seed int) []float32 {
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.SmallestNonzeroFloat32, math.MaxFloat32, 1, -3}
	v := make([]float32, n)
	for i := range v {
		if (i+seed)%5 == 0 {
			v[i] = special[(i+seed)/5%len(special)]
		} else {
			v[i] = float32((i*7+seed*13)%101)/7 - 6
		}
	}
	return v
}

// TestLoopsMatchGo runs every operation and form over lengths that end
// inside a block and start off the 16-byte boundary, streamed and not,
// against Go's scalar operators; and checks nothing past dst is written.
func TestLoopsMatchGo(t *testing.T) {
	if !hasAssembly {
		if VV(Add, make([]float32, 1), []float32{1}, []float32{2}, false) {
			t.Fatal("VV reports assembly on " + runtime.GOARCH + " without any")
		}
		t.Skip("no assembly on " + runtime.GOARCH)
	}
	const guard = 3
	for op := Add; op < numOps; op++ {
		for _, form := range []string{"VV", "VS", "SV"} {
			for _, stream := range []bool{false, true} {
				for n := 0; n <= 70; n++ {
					for off := 0; off < 4; off++ {
						name := fmt.Sprintf("%s op %d n=%d offset %d stream=%v", form, op, n, off, stream)
						a, b := values(n+off, 1)[off:], values(n+off, 2)[off:]
						s := float32(2.5)
						if n%3 == 1 {
							s = float32(math.NaN())
						}
						buf := make([]float32, n+off+guard)
						for i := range buf {
							buf[i] = 42
						}
						dst := buf[off : off+n]
						var ok bool
						switch form {
						case "VV":
							ok = VV(op, dst, a, b, stream)
						case "VS":
							ok = VS(op, dst, a, s, stream)
						case "SV":
							ok = SV(op, dst, s, b, stream)
						}
						if stream {
							Fence()
						}
						if !ok {
							t.Fatalf("%s: reported no assembly", name)
						}
						for i := range dst {
							var want float32
							switch form {
							case "VV":
								want = scalar(op, a[i], b[i])
							case "VS":
								want = scalar(op, a[i], s)
							case "SV":
								want = scalar(op, s, b[i])
							}
							if math.Float32bits(dst[i]) != math.Float32bits(want) {
								t.Fatalf("%s: dst[%d] = %v (%#x), want %v (%#x)", name, i, dst[i], math.Float32bits(dst[i]), want, math.Float32bits(want))
							}
						}
						for i, v := range buf {
							if (i < off || i >= off+n) && v != 42 {
								t.Fatalf("%s: wrote buf[%d] = %v outside dst", name, i, v)
							}
						}
					}
				}
			}
		}
	}
}

// TestSum4MatchesGo checks Sum4 against the Go loop it replaces, over
// the lengths and offsets of TestLoopsMatchGo, -0 sums included.
func TestSum4MatchesGo(t *testing.T) {
	if !hasAssembly {
		t.Skip("no assembly on " + runtime.GOARCH)
	}
	negZero := float32(math.Copysign(0, -1))
	for _, stream := range []bool{false, true} {
		for n := 0; n <= 70; n++ {
			for off := 0; off < 4; off++ {
				var rows [4][]float32
				for k := range rows {
					rows[k] = values(n+off, k+1)[off:]
					if n > 3 {
						rows[k][3] = negZero
					}
				}
				buf := make([]float32, n+off+1)
				buf[n+off] = 42
				dst := buf[off : off+n]
				if !Sum4(dst, rows[0], rows[1], rows[2], rows[3], stream) {
					t.Fatal("Sum4 reported no assembly")
				}
				Fence()
				var zero float32
				for i := range dst {
					want := (rows[0][i] + rows[1][i]) + (rows[2][i] + rows[3][i]) + zero
					if math.Float32bits(dst[i]) != math.Float32bits(want) {
						t.Fatalf("Sum4 n=%d offset %d stream=%v: dst[%d] = %v (%#x), want %v (%#x)", n, off, stream, i, dst[i], math.Float32bits(dst[i]), want, math.Float32bits(want))
					}
				}
				if buf[n+off] != 42 {
					t.Fatalf("Sum4 n=%d offset %d: wrote past dst", n, off)
				}
			}
		}
	}
}

// TestSumBlocksMatchesGo checks SumBlocks against the lanes and tree of
// the Go loop it replaces, on rows of 0 to 5 blocks with a tail it must
// leave, and on NaN and ±Inf.
func TestSumBlocksMatchesGo(t *testing.T) {
	if !hasAssembly {
		t.Skip("no assembly on " + runtime.GOARCH)
	}
	for n := 0; n <= 5*128+9; n += 37 {
		for seed := 0; seed < 3; seed++ {
			b := values(n, seed)
			if seed == 0 {
				// no specials, and magnitudes from 1e-2 to 1e5, so a
				// different order of the lanes' adds rounds differently
				rnd := rand.New(rand.NewPCG(uint64(n), 7))
				for i := range b {
					b[i] = float32(rnd.NormFloat64() * math.Pow(10, float64(rnd.IntN(8)-2)))
				}
			}
			var want float64
			for blk := 0; blk+128 <= n; blk += 128 {
				var a [8]float32
				for i := blk; i < blk+128; i++ {
					a[i%8] += b[i]
				}
				want += float64(((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])))
			}
			got, used, ok := SumBlocks(b)
			if !ok || used != n/128*128 {
				t.Fatalf("SumBlocks of %d: used %d (ok %v), want %d", n, used, ok, n/128*128)
			}
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("SumBlocks of %d (seed %d) = %v, want %v", n, seed, got, want)
			}
		}
	}
}

// TestUnknownOpIsRefused checks an op without assembly reports false and
// leaves dst alone.
func TestUnknownOpIsRefused(t *testing.T) {
	if !hasAssembly {
		t.Skip("no assembly on " + runtime.GOARCH)
	}
	dst := []float32{7}
	if VV(numOps, dst, []float32{1}, []float32{2}, false) || dst[0] != 7 {
		t.Fatalf("VV(numOps) ran: dst = %v", dst)
	}
}

func BenchmarkAddVV(b *testing.B) {
	const n = 1 << 22 // 16 MiB out: past the caches
	x, y, dst := values(n, 1), values(n, 2), make([]float32, n)
	for _, stream := range []bool{false, true} {
		b.Run(fmt.Sprintf("stream=%v", stream), func(b *testing.B) {
			b.SetBytes(3 * 4 * n)
			for range b.N {
				VV(Add, dst, x, y, stream)
			}
			Fence()
		})
	}
	b.Run("go", func(b *testing.B) {
		b.SetBytes(3 * 4 * n)
		for range b.N {
			for i := range dst {
				dst[i] = x[i] + y[i]
			}
		}
	})
}
