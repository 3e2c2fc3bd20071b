package cluster

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the process when the test binary
// dies (a test timeout, an interrupt), so no server outlives its test
// holding database connections and a port.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
