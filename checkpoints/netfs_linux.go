package checkpoints

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// networkMagic names the statfs f_type values of network and FUSE file systems
// (linux/magic.h and the file systems' own sources).
var networkMagic = map[int64]string{
	unix.NFS_SUPER_MAGIC:  "nfs", // also Amazon EFS, mounted as NFSv4
	unix.SMB_SUPER_MAGIC:  "smb",
	0xFF534D42:            "cifs", // CIFS_SUPER_MAGIC
	0xFE534D42:            "smb2", // SMB2_SUPER_MAGIC
	unix.V9FS_MAGIC:       "9p",
	unix.CEPH_SUPER_MAGIC: "ceph",
	unix.AFS_SUPER_MAGIC:  "afs",
	unix.AFS_FS_MAGIC:     "afs",
	unix.CODA_SUPER_MAGIC: "coda",
	unix.NCP_SUPER_MAGIC:  "ncpfs",
	0x0BD00BD0:            "lustre",
	0x47504653:            "gpfs",
	unix.FUSE_SUPER_MAGIC: "fuse",
}

// localFUSE are FUSE file systems that keep their files on a local disk.
var localFUSE = map[string]bool{"fuse.fuse-overlayfs": true}

// fileSystemOf reads the file system of dir with statfs; a FUSE mount is named by its type in
// /proc/self/mountinfo (fuse.sshfs, fuse.s3fs, …) when that can be read.
func fileSystemOf(dir string) (fsKind, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fsKind{}, err
	}
	name, ok := networkMagic[int64(st.Type)]
	if !ok {
		return fsKind{}, nil
	}
	if name == "fuse" {
		if t := mountType(dir); strings.HasPrefix(t, "fuse") {
			name = t
		}
	}
	return fsKind{Name: name, Network: !localFUSE[name]}, nil
}

// mountType is the file system type of the mount dir is under, from /proc/self/mountinfo
// ("" when it cannot be read).
func mountType(dir string) string {
	abs, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return ""
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	best, typ := -1, ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// ID parent major:minor root mountpoint options [optional…] - type source super-options
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if len(fields) < 5 || sep < 0 || sep+1 >= len(fields) {
			continue
		}
		mp := unescapeMount(fields[4])
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) && len(mp) >= best {
			best, typ = len(mp), fields[sep+1]
		}
	}
	return typ
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, …).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			n := 0
			ok := true
			for _, c := range s[i+1 : i+4] {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				n = n*8 + int(c-'0')
			}
			if ok {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
