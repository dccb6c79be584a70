package checkpoints

import (
	"strings"

	"golang.org/x/sys/unix"
)

// networkTypes are the macOS names of network and FUSE file systems.
var networkTypes = map[string]bool{"nfs": true, "smbfs": true, "afpfs": true, "webdav": true, "cifs": true,
	"macfuse": true, "osxfuse": true, "fuse": true}

// fileSystemOf reads the file system of dir with statfs.
func fileSystemOf(dir string) (fsKind, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fsKind{}, err
	}
	name := unix.ByteSliceToString(st.Fstypename[:])
	return fsKind{Name: name, Network: networkTypes[strings.ToLower(name)]}, nil
}
