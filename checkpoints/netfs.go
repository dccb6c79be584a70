package checkpoints

import (
	"errors"
	"fmt"
	"path/filepath"
)

// fsKind is what a statfs says about the file system under a path: its name and whether it is
// a network (or FUSE) file system, on which SQLite's write-ahead log must not be used.
type fsKind struct {
	Name    string // e.g. "nfs", "cifs", "fuse.sshfs", "ext4"; "" when unknown
	Network bool
}

// statFS tells the file system a directory is on; tests replace it. Where the system cannot
// tell, it reports a local file system of unknown name.
var statFS = fileSystemOf

// errNetworkFS is the error of a store on a network file system.
var errNetworkFS = errors.New("SQLite's write-ahead log keeps its index in memory shared by the processes of one host and needs " +
	"locks a network file system does not keep reliably, so a run there can corrupt the store (a retried job on another " +
	"host beside a stale one)")

// checkLocalFS refuses a store whose directory is on a network file system (NFS and EFS, SMB/CIFS,
// 9p, Ceph, AFS, Lustre, GPFS, FUSE mounts such as s3fs, sshfs or virtiofs), naming the
// options that work: a local disk, or object storage.
func checkLocalFS(path string) error {
	k, err := statFS(filepath.Dir(path))
	if err != nil {
		return describe(path, fmt.Errorf("checking the file system of %s: %w", filepath.Dir(path), err))
	}
	if !k.Network {
		return nil
	}
	return &StoreError{Path: path, Problem: fmt.Sprintf("is on a network file system (%s)", k.Name), Err: errNetworkFS,
		Remedy: "put the checkpoint on a local disk, or keep it in object storage with --checkpoint s3://BUCKET/KEY " +
			"(the run works on a local copy and uploads snapshots to the bucket)"}
}
