//go:build !linux

package cluster

import "os/exec"

// dieWithParent does nothing where the kernel cannot tie a child's life to
// its parent's: servers of a test binary that dies keep running.
func dieWithParent(*exec.Cmd) {}
