package checkpoints

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// LockedError is returned by Open when another process holds the store's write lock (and by
// package replica when another process holds the lease of a store kept in object storage).
type LockedError struct {
	Store string // the store's path
	Lock  string // the lock file
	PID   int    // the holder's process id (0 when the lock file does not say)
	Host  string // the holder's host name ("" when the lock file does not say)
	Since string // when the holder took the lock, RFC 3339 ("" when unknown)
	Note  string // more about the lock (a lease's last renewal), "" for nothing
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("pid %d on host %s", e.PID, orUnknown(e.Host))
		if e.Since != "" {
			who += " since " + e.Since
		}
	}
	lock := e.Lock
	if e.Note != "" {
		lock += "; " + e.Note
	}
	return fmt.Sprintf("checkpoint store %s is in use by %s (lock %s); wait for that run to end, or use another --checkpoint",
		e.Store, who, lock)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// writeLock is the exclusive OS lock (flock) a writer holds on <store>.lock for as long as the
// store is open. The kernel releases it when the process ends, however it ends, so a killed
// run never leaves a stale lock. The file is never removed: removing it would let two processes
// lock two different files of the same name. It is opened without following a symbolic link
// and must be a regular file with no other hard link (openLockFile), so that a name someone
// else planted beside the store never makes a run truncate a file the user did not name.
type writeLock struct{ f *os.File }

// lockPath is the lock file of a store.
func lockPath(store string) string { return store + ".lock" }

// acquireLock takes the write lock of a store without waiting, and records this process's pid,
// host and start time in the lock file for the error a second writer gets.
func acquireLock(store string) (*writeLock, error) {
	name := lockPath(store)
	f, err := openLockFile(name)
	if errors.Is(err, errPlanted) {
		return nil, &StoreError{Path: store, Problem: "cannot be locked", Err: err}
	}
	if err != nil {
		return nil, describe(store, fmt.Errorf("creating lock file %s: %w", name, err))
	}
	if err := ownFile(f, name); err != nil {
		f.Close()
		return nil, &StoreError{Path: store, Problem: "cannot be locked", Err: err}
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking checkpoint store %s (%s): %w", store, name, err)
	}
	if held {
		le := &LockedError{Store: store, Lock: name}
		readHolder(f, le)
		f.Close()
		return nil, le
	}
	host, _ := os.Hostname()
	stamp := fmt.Sprintf("pid=%d\nhost=%s\nsince=%s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(stamp), 0)
	}
	if err != nil {
		unlock(f)
		f.Close()
		return nil, describe(store, fmt.Errorf("writing lock file %s: %w", name, err))
	}
	return &writeLock{f: f}, nil
}

// readHolder fills the holder's pid, host and start time from the lock file.
func readHolder(f *os.File, le *LockedError) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil && !errors.Is(err, io.EOF) {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "pid":
			le.PID, _ = strconv.Atoi(v)
		case "host":
			le.Host = v
		case "since":
			le.Since = v
		}
	}
}

// release gives the lock up (closing the file releases it).
func (l *writeLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	unlock(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}
