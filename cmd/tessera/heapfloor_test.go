package main

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// heapGoal is the collector's heap goal after a full collection.
func heapGoal() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func TestHeapFloorRaisesTheGoal(t *testing.T) {
	before := heapGoal()
	f, err := newHeapFloor(64)
	if err != nil {
		t.Fatal(err)
	}
	after := heapGoal()
	runtime.KeepAlive(f)
	// With GOGC=100 the goal grows by twice the floor; by its size at the
	// very least whatever GOGC is.
	if after < before+64<<20 {
		t.Fatalf("heap goal %d MiB before a 64 MiB floor, %d MiB with it", before>>20, after>>20)
	}
	for _, mib := range []int{-1, 1025} {
		if _, err := newHeapFloor(mib); err == nil {
			t.Errorf("newHeapFloor(%d) took it", mib)
		}
	}
	if f, err := newHeapFloor(0); err != nil || len(f.block) != 0 {
		t.Errorf("newHeapFloor(0) = %d bytes, %v", len(f.block), err)
	}
}
