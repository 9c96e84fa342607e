package tensor

import (
	"runtime"
	"testing"
	"time"
	"unsafe"
)

func TestFreeListIsLastInFirstOutAndBounded(t *testing.T) {
	var f freeList
	bufs := make([][]byte, maxPerClass+1)
	for i := range bufs {
		bufs[i] = make([]byte, 64)
		f.give(6, unsafe.Pointer(&bufs[i][0]))
	}
	for i := maxPerClass - 1; i >= 0; i-- {
		if got := f.take(6); got != unsafe.Pointer(&bufs[i][0]) {
			t.Fatalf("take %d returned %p, want the buffer given %d-th (%p)", maxPerClass-i, got, i, &bufs[i][0])
		}
	}
	if got := f.take(6); got != nil {
		t.Fatalf("take from an empty class returned %p; the %d-th buffer should have been left to the GC", got, maxPerClass+1)
	}
	if got := f.take(7); got != nil {
		t.Fatalf("take from a class never given returned %p", got)
	}
}

func TestFreeListDropsBuffersUnusedForTwoCollections(t *testing.T) {
	var f freeList
	buf := make([]byte, 64)
	f.give(6, unsafe.Pointer(&buf[0]))
	f.age()
	if got := f.take(6); got != unsafe.Pointer(&buf[0]) {
		t.Fatalf("after one collection take returned %p, want the victim %p", got, &buf[0])
	}
	f.give(6, unsafe.Pointer(&buf[0]))
	f.age()
	f.age()
	if got := f.take(6); got != nil {
		t.Fatalf("after two collections take returned %p, want nil", got)
	}
}

func TestFreeListAgesOnGarbageCollection(t *testing.T) {
	var f freeList
	buf := make([]byte, 64)
	f.give(6, unsafe.Pointer(&buf[0]))
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		f.mu.Lock()
		empty := len(f.current[6]) == 0 && len(f.victim[6]) == 0
		f.mu.Unlock()
		if empty {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the free list still holds its buffer after 5 s of collections")
		}
		time.Sleep(time.Millisecond) // cleanups run on their own goroutine
	}
}

func TestReleasedOutputsAreReusedCorrectly(t *testing.T) {
	x, _ := Arange(Int32, Shape{64, 1, 256})
	first, err := CPU{}.Repeat(x, []int{2, 16, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := first.Float64s()
	first.Release()
	for i := 0; i < 3; i++ {
		again, _ := CPU{}.Repeat(x, []int{2, 16, 1})
		for j, v := range again.Float64s() {
			if v != want[j] {
				t.Fatalf("run %d on a recycled buffer: element %d = %v, want %v", i, j, v, want[j])
			}
		}
		again.Release()
	}
	odd, _ := FromSlice(Shape{100, 1000}, make([]float32, 100000)) // 400000 bytes: not a class size
	view, _ := odd.Slice(Interval(0, 3, 1))
	view.Release()
	Tensor{}.Release()
}

func TestSizeClassesCoverEveryRequestWithAtMostAQuarterSlack(t *testing.T) {
	prevClass, prevSize := -1, uintptr(0)
	for bytes := uintptr(minPooledBytes); bytes < 1<<22; bytes += 4 {
		class, size := sizeClass(bytes)
		if size < bytes || 4*(size-bytes) > bytes {
			t.Fatalf("sizeClass(%d) = size %d: not within [bytes, 1.25·bytes]", bytes, size)
		}
		if class < prevClass || (class == prevClass) != (size == prevSize) {
			t.Fatalf("sizeClass(%d) = (%d, %d) after (%d, %d): classes must grow with sizes", bytes, class, size, prevClass, prevSize)
		}
		if c2, s2 := sizeClass(size); c2 != class || s2 != size {
			t.Fatalf("a class-%d buffer of %d bytes maps to class %d (%d bytes)", class, size, c2, s2)
		}
		prevClass, prevSize = class, size
	}
	for _, tc := range []struct{ bytes, size uintptr }{{64 << 10, 64 << 10}, {64<<10 + 1, 80 << 10}, {400000, 458752}, {16 << 20, 16 << 20}} {
		if _, size := sizeClass(tc.bytes); size != tc.size {
			t.Errorf("sizeClass(%d) size = %d, want %d", tc.bytes, size, tc.size)
		}
	}
}

func TestReleaseRecyclesEveryClassSize(t *testing.T) {
	for _, shape := range []Shape{{100, 1000}, {3, 65537}, {1 << 16}} {
		a, _ := Empty(Float32, shape)
		buf, _ := Buffer[float32](a)
		a.Release()
		b, _ := Zeros(Float32, shape)
		again, _ := Buffer[float32](b)
		if &again[0] != &buf[0] {
			t.Errorf("%v: the next output of the same size did not reuse the released buffer", shape)
		}
		for i, v := range again {
			if v != 0 {
				t.Fatalf("%v: Zeros on a recycled buffer has %v at %d", shape, v, i)
			}
		}
		b.Release()
	}
}
