package tensor

import (
	"math/bits"
	"runtime"
	"sync"
	"unsafe"
)

// freeList holds released buffers per size class, last in first out: the
// buffer released most recently is the one most likely still in cache, the
// way malloc hands a just-freed chunk to the next request. (sync.Pool keeps
// one private item per P, so a goroutine that moves between Ps ends up
// alternating two buffers, each cold in the other core's cache.)
//
// Like sync.Pool it lets unused memory go: every garbage collection moves
// the current lists to a victim generation and drops the previous victims,
// so a buffer nobody takes within two collections goes back to the heap.
type freeList struct {
	mu      sync.Mutex
	current [4 * bits.UintSize][]unsafe.Pointer
	victim  [4 * bits.UintSize][]unsafe.Pointer
	armed   bool
}

// maxPerClass bounds the buffers kept per class and generation.
const maxPerClass = 4

// take returns a buffer of class c (see sizeClass), or nil.
func (f *freeList) take(c int) unsafe.Pointer {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, list := range []*[]unsafe.Pointer{&f.current[c], &f.victim[c]} {
		if n := len(*list); n > 0 {
			p := (*list)[n-1]
			(*list)[n-1] = nil
			*list = (*list)[:n-1]
			return p
		}
	}
	return nil
}

// give adds a buffer of class c; past maxPerClass it is left to the GC.
func (f *freeList) give(c int, p unsafe.Pointer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.current[c]) < maxPerClass {
		f.current[c] = append(f.current[c], p)
	}
	if !f.armed {
		f.armed = true
		f.armAging()
	}
}

// armAging runs age after the next garbage collection: a cleanup attached
// to a fresh object runs once the collector finds it unreachable.
func (f *freeList) armAging() {
	runtime.AddCleanup(new(*byte), func(f *freeList) { f.age() }, f) // not a tiny (noscan) object, whose cleanup may never run
}

// age moves the current generation to the victims, dropping the old
// victims, and re-arms itself while anything is still held.
func (f *freeList) age() {
	f.mu.Lock()
	defer f.mu.Unlock()
	held := false
	for c := range f.current {
		clear(f.victim[c])
		f.victim[c], f.current[c] = f.current[c], f.victim[c][:0]
		held = held || len(f.victim[c]) > 0
	}
	f.armed = held
	if held {
		f.armAging()
	}
}
