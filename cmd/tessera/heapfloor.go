package main

import "fmt"

// defaultHeapFloorMiB is --heap-floor's default. The compact page read
// (bench/instructions.sh, user-space instructions a request) cost 95,900
// with no floor, 82,100 with 8 MiB, 80,500 with 16 MiB and 79,200 with
// 32 MiB; the process's resident memory was the same with each.
const defaultHeapFloorMiB = 16

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
