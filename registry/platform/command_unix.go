//go:build unix

package platform

import (
	"os/exec"
	"syscall"
)

// killGroup runs cmd in a process group of its own and makes cancellation kill the whole
// group, so children the program started do not outlive the call.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
