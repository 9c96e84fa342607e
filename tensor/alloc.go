package tensor

import (
	"math/bits"
	"unsafe"
)

// Kernel outputs come from allocate. Two costs of make([]T, n) matter at
// tensor sizes, and NumPy pays neither: make clears the memory first, and a
// fresh large allocation touches pages the garbage collector has handed
// back to the OS, so the kernel's first writes fault them in one by one.
// For repeat [64,1,256] by [2,16,1] (2 MiB out) the kernel takes 46 µs on
// a reused buffer and ~500 µs on a fresh one. So allocate skips the
// clearing when the caller writes every element (as np.empty does), and
// takes large buffers from a free list that Tensor.Release feeds (as
// NumPy's outputs come from malloc's free list when the last reference
// to an earlier array goes).

// mallocgc is the Go runtime's allocator: the call make and append reach.
// The runtime keeps its signature stable for linkname users
// (go.dev/issue/67401); with needzero false it skips the clearing pass.
//
//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// poisonEmpty, when set (by the tests), fills every uninitialized buffer
// with a recognizable garbage pattern, so a kernel that leaves an element
// unwritten fails the checks instead of passing on memory that happened to
// be zero.
var poisonEmpty = false

// Buffers of at least minPooledBytes are recycled, by size class (see
// sizeClass). Smaller ones are cheap for Go's own allocator.
const minPooledBytes = 64 << 10

var released freeList

// elemSize is the byte size of every Elem type.
const elemSize = 4

// allocate returns n elements, cleared when zero is true and unspecified
// otherwise.
func allocate[T Elem](n int, zero bool) []T {
	if n == 0 {
		return []T{}
	}
	bytes := uintptr(n) * elemSize
	var p unsafe.Pointer
	length := n
	if bytes < minPooledBytes {
		p = mallocgc(bytes, nil, zero)
	} else {
		// A class buffer keeps its full capacity, so Release can tell its class.
		class, size := sizeClass(bytes)
		switch p = released.take(class); {
		case p == nil:
			p = mallocgc(size, nil, zero)
		case zero:
			clear(unsafe.Slice((*byte)(p), bytes))
		}
		length = int(size / elemSize)
	}
	s := unsafe.Slice((*T)(p), length)[:n]
	if poisonEmpty && !zero {
		for i := range s {
			s[i] = garbage[T]()
		}
	}
	return s
}

// sizeClass returns the class of a request of bytes (at least 8) and the
// class's buffer size: m·2^k with m in 5..8 and (m-1)·2^k < bytes ≤ m·2^k,
// four classes per power of two, so a buffer is at most 25% larger than
// its request. The class number is 4k + m - 5.
func sizeClass(bytes uintptr) (class int, size uintptr) {
	k := bits.Len(uint(bytes-1)) - 3 // 2^(k+2) < bytes ≤ 2^(k+3)
	m := (bytes + 1<<k - 1) >> k     // 5..8
	return 4*k + int(m) - 5, m << k
}

// recycle hands a buffer to the free list of its size class; a buffer
// whose capacity is not exactly a class size was not made by allocate and
// is left to the garbage collector.
func recycle[T Elem](s []T) {
	bytes := uintptr(cap(s)) * elemSize
	if bytes < minPooledBytes {
		return
	}
	if class, size := sizeClass(bytes); size == bytes {
		released.give(class, unsafe.Pointer(unsafe.SliceData(s[:1])))
	}
}

// garbage is the poison value: the bit pattern 0x7fc0dead, a NaN as float32.
func garbage[T Elem]() T {
	var v T
	*(*uint32)(unsafe.Pointer(&v)) = 0x7fc0dead
	return v
}

// RawBytes returns t's whole backing buffer as bytes (shared, not copied):
// what a device upload or a JS typed array copies. Every dtype is four
// bytes wide, in the machine's byte order (little-endian wherever Go runs
// WebGPU or wasm).
func RawBytes(t Tensor) []byte {
	var p unsafe.Pointer
	var n int
	switch d := t.data.(type) {
	case []float32:
		p, n = unsafe.Pointer(unsafe.SliceData(d)), len(d)
	case []int32:
		p, n = unsafe.Pointer(unsafe.SliceData(d)), len(d)
	case []uint32:
		p, n = unsafe.Pointer(unsafe.SliceData(d)), len(d)
	}
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), 4*n)
}
