//go:build unix

package judge

import (
	"os/exec"
	"syscall"
)

// killGroup starts the program in a process group of its own and has a
// timeout kill the whole group, so that `sh -c "sleep 60"` does not leave
// the sleep running.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
