//go:build !unix

package checkpoints

import (
	"errors"
	"os"
)

// tryLock fails: the write lock needs flock, which this system does not have.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("checkpoint locking needs flock (a Unix system)")
}

func unlock(*os.File) {}
