//go:build unix

package graphdb

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process of this host has pid (signal 0: EPERM means it exists
// under another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
