package main

import "fmt"

// defaultHeapFloorMiB is --heap-floor's default. User-space instructions
// a request (bench/instructions.sh) with a floor of 16, 32, 48 and 64 MiB:
// the compact page read 94,800, 92,100, 90,800 and 87,000–88,100; the
// cached public page 60,500, 59,300, 56,300 and 54,700–55,300. The cost is
// resident memory under load, the garbage a larger goal lets accumulate
// between collections: serving 100,000 pages (bench/scale.sh), the
// process peaked at 92 MB with 16 MiB and 140 MB with 64 MiB, against the
// 150 MB it must stay under. 48 MiB takes most of the gain and keeps a
// margin (docs/benchmarks.md, "The collector's pace").
const defaultHeapFloorMiB = 48

// heapFloor is memory the process allocates once, never touches and
// keeps: the garbage collector counts it as live, so its heap goal (twice
// the live heap, with the default GOGC) never falls below twice its size.
//
// Why: a server whose own live heap is small, as Tessera's is once its
// caches are warm, reaches the runtime's 4 MB minimum goal after every
// ~2 MB of allocation, a thousand or so API reads, and each collection
// costs the same fixed work (every goroutine's stack, the globals, the
// live heap's pointers) however little it frees. The block holds no
// pointers, so it adds nothing to mark, and its pages are never written,
// so the kernel never backs them: it takes address space, not resident
// memory. When the live heap is large, the floor lets the heap grow by at
// most its own size more before a collection (with the default GOGC).
// GOGC and GOMEMLIMIT keep their meaning on top of it.
type heapFloor struct{ block []byte }

// newHeapFloor returns a floor of mib MiB; 0 is none.
func newHeapFloor(mib int) (*heapFloor, error) {
	if mib < 0 || mib > 1024 { // 1 GiB: more would help no heap, and overflow int on 32-bit
		return nil, fmt.Errorf("--heap-floor %d: want 0 to 1024 (MiB)", mib)
	}
	return &heapFloor{block: make([]byte, mib<<20)}, nil
}
