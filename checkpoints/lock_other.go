//go:build !unix

package checkpoints

import (
	"errors"
	"io/fs"
	"os"
)

// openLockFile opens or creates the lock file (the write lock needs a Unix system anyway).
func openLockFile(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
}

// links is the number of hard links of a file (not known here).
func links(fs.FileInfo) uint64 { return 1 }

// tryLock fails: the write lock needs flock, which this system does not have.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("checkpoint locking needs flock (a Unix system)")
}

func unlock(*os.File) {}
