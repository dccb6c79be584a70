//go:build unix

package checkpoints

import "syscall"

func mkfifo(name string) error { return syscall.Mkfifo(name, 0o644) }
