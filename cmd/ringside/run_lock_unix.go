//go:build unix

package main

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with that id exists on this
// machine (signal 0 checks without sending anything).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
