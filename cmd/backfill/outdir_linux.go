package main

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b atomically (renameat2 RENAME_EXCHANGE); where the
// file system does not support it, it falls back to renameDirs.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return renameDirs(a, b)
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}
