package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// exportNames are the files an export writes (either format), the only ones --out may hold
// when it is replaced.
var exportNames = map[string]bool{
	"episodes.parquet": true, "entities.parquet": true, "facts.parquet": true, "fact_versions.parquet": true,
	"mentions.parquet": true, "communities.parquet": true, "has_member.parquet": true, CypherlFile: true,
}

// replaceDir writes a new generation of the directory out atomically: write fills a temporary
// directory beside out; once it succeeds its files get mode 0644, the directory 0755, and it
// takes out's place (on Linux in one atomic exchange; elsewhere by two renames, never leaving a
// mix of two generations). When write fails, out is left as it was and the temporary directory
// is removed. An existing out must be a directory holding only files an export writes: out is
// replaced as a whole, so it may not hold anything else.
func replaceDir(out string, write func(dir string) error) error {
	if err := checkOutDir(out); err != nil {
		return err
	}
	parent, base := filepath.Dir(out), filepath.Base(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".export-*")
	if err != nil {
		return fmt.Errorf("creating a directory beside %s: %w", out, err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := write(tmp); err != nil {
		return namingOut(err, tmp, out)
	}
	if err := setModes(tmp); err != nil {
		return namingOut(err, tmp, out)
	}
	if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(tmp, out); err != nil {
			return fmt.Errorf("moving the export into %s: %w", out, err)
		}
		done = true
		return nil
	}
	if err := exchange(tmp, out); err != nil {
		return fmt.Errorf("replacing %s: %w", out, err)
	}
	// tmp now holds the previous generation.
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("removing the previous export %s: %w", tmp, err)
	}
	done = true
	return nil
}

// checkOutDir accepts an absent out, or a directory holding only export files (and temporary
// files of an export).
func checkOutDir(out string) error {
	st, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", out, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("--out %s is not a directory", out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("reading %s: %w", out, err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !exportFile(e.Name()) {
			return fmt.Errorf("--out %s holds %s, which export does not write: the export replaces the whole directory, so use a new or empty one", out, e.Name())
		}
	}
	return nil
}

// exportFile reports whether name is a file an export writes, or a temporary file of one
// ("NAME.tmp", "NAME.*.tmp").
func exportFile(name string) bool {
	if exportNames[name] {
		return true
	}
	base, _, _ := strings.Cut(strings.TrimSuffix(name, ".tmp"), ".tmp")
	for n := range exportNames {
		if strings.HasSuffix(name, ".tmp") && (base == n || strings.HasPrefix(base, n+".")) {
			return true
		}
	}
	return false
}

// setModes gives the export directory mode 0755 and its files 0644.
func setModes(dir string) error {
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", dir, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading %s: %w", dir, err)
	}
	for _, e := range ents {
		if err := os.Chmod(filepath.Join(dir, e.Name()), 0o644); err != nil {
			return fmt.Errorf("setting the mode of %s: %w", e.Name(), err)
		}
	}
	return nil
}

// renameDirs swaps the directories a and b with renames through a third name; there is a moment
// when b is absent, never one when it holds a mix. When the second rename fails, b is put back.
func renameDirs(a, b string) error {
	side := a + ".swap"
	if err := os.Rename(b, side); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		if rerr := os.Rename(side, b); rerr != nil {
			return fmt.Errorf("%w (and restoring %s from %s: %v)", err, b, side, rerr)
		}
		return err
	}
	return os.Rename(side, a)
}

// outError is an error of a write into the temporary directory whose message names out instead,
// the directory the user gave (the temporary one is gone by the time it is read).
type outError struct {
	msg string
	err error
}

func (e *outError) Error() string { return e.msg }
func (e *outError) Unwrap() error { return e.err }

// namingOut returns err with every mention of the temporary directory tmp replaced by out.
func namingOut(err error, tmp, out string) error {
	msg := err.Error()
	if !strings.Contains(msg, tmp) {
		return err
	}
	return &outError{msg: strings.ReplaceAll(msg, tmp, out), err: err}
}

// replaceFiles writes a new generation of the export files of dir, a directory that also holds
// files export did not write: write fills a temporary directory beside dir, then each file it
// wrote takes the place of its namesake in dir (a rename each: a reader sees the old file or the
// new one, never a part), and the export files of dir the new generation does not have are
// removed. Files export did not write are left as they are.
func replaceFiles(dir string, write func(dir string) error) error {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".export-*")
	if err != nil {
		return fmt.Errorf("creating a directory beside %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp)
	if err := write(tmp); err != nil {
		return namingOut(err, tmp, dir)
	}
	if err := setModes(tmp); err != nil {
		return namingOut(err, tmp, dir)
	}
	fresh, err := os.ReadDir(tmp)
	if err != nil {
		return fmt.Errorf("reading %s: %w", tmp, err)
	}
	wrote := map[string]bool{}
	for _, e := range fresh {
		wrote[e.Name()] = true
		if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("replacing %s in %s: %w", e.Name(), dir, err)
		}
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading %s: %w", dir, err)
	}
	for _, e := range old {
		if e.Type().IsRegular() && exportFile(e.Name()) && !wrote[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("removing the previous export's %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}
