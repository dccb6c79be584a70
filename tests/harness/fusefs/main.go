//go:build linux

// Command fusefs mounts a minimal FUSE file system (an empty directory that answers lookups,
// attributes and statfs, and refuses everything else) and runs a command while it is mounted:
//
//	fusefs MOUNTPOINT -- COMMAND [ARGS...]
//
// It exits with the command's exit code, after unmounting. Every request the kernel sent is
// logged to stderr as "fusefs: OPNAME", so a test can check that the command tried no write.
// It needs the right to mount (run it under `unshare -Urm`, as tests/integrity does) and to
// open /dev/fuse; it exits 77 when either is missing. It talks the FUSE protocol directly (no
// library): the kernel reports the mount's statfs type as FUSE_SUPER_MAGIC whatever it answers,
// which is what the checkpoint store's network file system check reads.
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// exitCannot is the exit code when the mount cannot be made here (automake's "skip").
const exitCannot = 77

// FUSE opcodes (linux/fuse.h).
const (
	opLookup      = 1
	opForget      = 2
	opGetattr     = 3
	opStatfs      = 17
	opInit        = 26
	opInterrupt   = 36
	opDestroy     = 38
	opBatchForget = 42
)

var opNames = map[uint32]string{1: "LOOKUP", 2: "FORGET", 3: "GETATTR", 4: "SETATTR", 5: "READLINK", 6: "SYMLINK", 8: "MKNOD",
	9: "MKDIR", 10: "UNLINK", 11: "RMDIR", 12: "RENAME", 13: "LINK", 14: "OPEN", 15: "READ", 16: "WRITE", 17: "STATFS",
	18: "RELEASE", 20: "FSYNC", 21: "SETXATTR", 22: "GETXATTR", 23: "LISTXATTR", 24: "REMOVEXATTR", 25: "FLUSH", 26: "INIT",
	27: "OPENDIR", 28: "READDIR", 29: "RELEASEDIR", 30: "FSYNCDIR", 31: "GETLK", 32: "SETLK", 33: "SETLKW", 34: "ACCESS",
	35: "CREATE", 36: "INTERRUPT", 38: "DESTROY", 42: "BATCH_FORGET", 43: "FALLOCATE", 44: "READDIRPLUS", 45: "RENAME2"}

func main() {
	if len(os.Args) < 4 || os.Args[2] != "--" {
		fmt.Fprintln(os.Stderr, "usage: fusefs MOUNTPOINT -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	mnt := os.Args[1]
	dev, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fusefs: cannot open /dev/fuse: %v\n", err)
		os.Exit(exitCannot)
	}
	opts := fmt.Sprintf("fd=%d,rootmode=40755,user_id=%d,group_id=%d", dev.Fd(), os.Getuid(), os.Getgid())
	if err := syscall.Mount("backfilltest", mnt, "fuse.backfilltest", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		fmt.Fprintf(os.Stderr, "fusefs: cannot mount on %s: %v\n", mnt, err)
		os.Exit(exitCannot)
	}
	go serve(dev)
	cmd := exec.Command(os.Args[3], os.Args[4:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	_ = syscall.Unmount(mnt, syscall.MNT_DETACH)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil:
		fmt.Fprintf(os.Stderr, "fusefs: running %s: %v\n", os.Args[3], err)
		os.Exit(1)
	}
}

// serve answers the kernel's requests until the file system is unmounted.
func serve(dev *os.File) {
	buf := make([]byte, 1<<20+4096)
	for {
		n, err := dev.Read(buf)
		if err != nil {
			if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOENT) {
				continue // ENOENT: an interrupted request
			}
			return // ENODEV: unmounted
		}
		if n < 40 {
			continue
		}
		req := buf[:n]
		op := le.Uint32(req[4:])
		unique := le.Uint64(req[8:])
		fmt.Fprintf(os.Stderr, "fusefs: %s\n", opName(op))
		var out []byte
		errno := syscall.ENOSYS
		switch op {
		case opForget, opBatchForget, opInterrupt:
			continue // no reply
		case opInit:
			out, errno = initReply(req[40:]), 0
		case opGetattr:
			if le.Uint64(req[16:]) == 1 { // the root
				out, errno = rootAttr(), 0
			} else {
				errno = syscall.ENOENT
			}
		case opLookup:
			errno = syscall.ENOENT
		case opStatfs:
			out, errno = make([]byte, 80), 0
		case opDestroy:
			errno = 0
		}
		reply(dev, unique, errno, out)
	}
}

var le = binary.LittleEndian

func opName(op uint32) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return fmt.Sprintf("op%d", op)
}

// reply writes the answer to one request: the out header (length, -errno, unique) and body.
func reply(dev *os.File, unique uint64, errno syscall.Errno, body []byte) {
	if errno != 0 {
		body = nil
	}
	msg := make([]byte, 16+len(body))
	le.PutUint32(msg[0:], uint32(len(msg)))
	le.PutUint32(msg[4:], uint32(-int32(errno)))
	le.PutUint64(msg[8:], unique)
	copy(msg[16:], body)
	_, _ = dev.Write(msg)
}

// initReply is fuse_init_out for protocol 7.31 with no optional feature.
func initReply(in []byte) []byte {
	out := make([]byte, 64)
	le.PutUint32(out[0:], 7)  // major
	le.PutUint32(out[4:], 31) // minor
	if len(in) >= 12 {
		copy(out[8:12], in[8:12]) // max_readahead as asked
	}
	le.PutUint16(out[16:], 16)      // max_background
	le.PutUint16(out[18:], 12)      // congestion_threshold
	le.PutUint32(out[20:], 128<<10) // max_write
	le.PutUint32(out[24:], 1)       // time_gran
	le.PutUint16(out[28:], 32)      // max_pages
	return out
}

// rootAttr is fuse_attr_out for the root: an empty directory that caches for a second.
func rootAttr() []byte {
	out := make([]byte, 104)
	le.PutUint64(out[0:], 1) // attr_valid (seconds)
	a := out[16:]
	le.PutUint64(a[0:], 1)         // ino
	le.PutUint32(a[60:], 0o040755) // mode
	le.PutUint32(a[64:], 2)        // nlink
	le.PutUint32(a[68:], uint32(os.Getuid()))
	le.PutUint32(a[72:], uint32(os.Getgid()))
	le.PutUint32(a[80:], 4096) // blksize
	return out
}
