//go:build !linux

package worker

import (
	"runtime/debug"
	"syscall"
	"time"
)

// Outside Linux the worker bounds its heap through the collector only;
// the in-engine interrupts and the server's deadline still hold.
func limitMemory(memory uint64) error {
	if memory > 0 {
		debug.SetMemoryLimit(int64(memory) + 64<<20)
	}
	return nil
}

func watchCPU() {}

func startCPUBudget(time.Duration) {}

func sysProcAttr() *syscall.SysProcAttr { return nil }
