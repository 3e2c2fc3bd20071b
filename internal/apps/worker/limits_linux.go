package worker

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// limitMemory bounds the process's address space at what it maps now plus
// room for memory of heap (twice over, since the collector needs room to
// copy into) and the runtime's own reservations: an allocation past it
// fails, and the worker dies with it, not the server. The collector works
// harder as the heap nears memory.
func limitMemory(memory uint64) error {
	if memory == 0 {
		return nil
	}
	debug.SetMemoryLimit(int64(memory) + 64<<20)
	size, err := vmSize()
	if err != nil {
		return err
	}
	limit := size + 2*memory + 512<<20
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit})
}

// vmSize is the address space the process maps now.
func vmSize() (uint64, error) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmSize in /proc/self/status")
}

// watchCPU ends the process when the kernel says it spent its CPU budget
// (SIGXCPU, which Go ignores by default).
func watchCPU() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGXCPU)
	go func() {
		<-ch
		fmt.Fprintln(os.Stderr, "worker: the CPU time limit was reached")
		os.Exit(4)
	}()
}

// startCPUBudget lets the process spend the CPU time of one invocation
// (its timeout, and two seconds for the runtime's own work) from now: the
// kernel's bound under the in-engine interrupt, for code the interrupt
// cannot reach (a native call that never returns). The limit moves at most
// every second divided by the processors the runtime may use, so that
// back-to-back invocations do not each pay three system calls: the CPU time
// spent since the last move is at most a second, and the budget of an
// invocation starting now never falls below its timeout.
func startCPUBudget(timeout time.Duration) {
	now := time.Now()
	if now.Sub(budgetMoved) < time.Second/time.Duration(runtime.GOMAXPROCS(0)) && timeout <= budgetTimeout {
		return
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return
	}
	used := uint64(ru.Utime.Sec + ru.Stime.Sec + 1) // the seconds started count
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil {
		return
	}
	lim.Cur = min(used+uint64(timeout.Seconds())+2, lim.Max)
	if syscall.Setrlimit(syscall.RLIMIT_CPU, &lim) == nil {
		budgetMoved, budgetTimeout = now, timeout
	}
}

// When the CPU limit last moved, and for what timeout; only the worker's
// one serving goroutine reads and writes them.
var (
	budgetMoved   time.Time
	budgetTimeout time.Duration
)

// sysProcAttr puts a worker in a process group of its own, so that a
// terminal's Ctrl-C reaches the server, which then ends its workers,
// rather than every worker at once mid-invocation.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
