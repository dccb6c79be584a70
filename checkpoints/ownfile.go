package checkpoints

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// errPlanted is the error of a fixed-name file beside the store that is not a plain file of
// its own (a symbolic link, a hard link to another name, a FIFO, a device, a directory).
var errPlanted = errors.New("backfill only writes a file there that is a plain file of its own, and never follows a link it did not create: " +
	"remove it if you did not put it there, or use another --checkpoint")

// ownFile checks that f, opened as name, is a regular file with a single link.
func ownFile(f *os.File, name string) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("checking %s: %w", name, err)
	}
	return plain(st, name)
}

// plain checks that st, the information of name, is of a regular file with a single link.
func plain(st fs.FileInfo, name string) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is a %s, not a file: %w", name, kind(st.Mode()), errPlanted)
	}
	if n := links(st); n > 1 {
		return fmt.Errorf("%s has %d hard links (another name shares its contents): %w", name, n, errPlanted)
	}
	return nil
}

// kind names the type of a file mode.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// sidecars are the files SQLite keeps beside a store; checkSidecars requires that each that
// exists is a plain file of its own before SQLite opens the store and writes them.
var sidecars = []string{"-wal", "-shm", "-journal"}

// checkSidecars checks the SQLite files beside the store at path (without following links).
func checkSidecars(path string) error {
	for _, suffix := range sidecars {
		name := path + suffix
		st, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("checking %s: %w", name, err)
		}
		if err := plain(st, name); err != nil {
			return err
		}
	}
	return nil
}
