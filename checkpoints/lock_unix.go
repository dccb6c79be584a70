//go:build unix

package checkpoints

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openLockFile opens or creates the lock file without following a symbolic link at its name.
func openLockFile(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) { // EMLINK: FreeBSD's O_NOFOLLOW error
		return nil, fmt.Errorf("%s is a symbolic link: %w", name, errPlanted)
	}
	return f, err
}

// links is the number of hard links of a file.
func links(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}

// tryLock takes an exclusive flock on f without waiting; held reports that another open file
// description (another process) holds it.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
