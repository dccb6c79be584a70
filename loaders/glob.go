package loaders

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// globMeta are the characters that make a name a pattern.
const globMeta = `*?[\`

// HasGlobMeta reports whether a name holds glob metacharacters.
func HasGlobMeta(name string) bool { return strings.ContainsAny(name, globMeta) }

// MatchPath reports whether a '/'-separated name matches a '/'-separated pattern: each segment
// matches as in path.Match (so * and ? never cross '/'), and a segment "**" matches any number
// of whole segments, none included.
func MatchPath(pattern, name string) (bool, error) {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(p, n []string) (bool, error) {
	for len(p) > 0 {
		if p[0] == "**" {
			for len(p) > 1 && p[1] == "**" {
				p = p[1:]
			}
			for i := 0; i <= len(n); i++ {
				if ok, err := matchSegments(p[1:], n[i:]); ok || err != nil {
					return ok, err
				}
			}
			return false, nil
		}
		if len(n) == 0 {
			return false, nil
		}
		if ok, err := path.Match(p[0], n[0]); err != nil || !ok {
			return false, err
		}
		p, n = p[1:], n[1:]
	}
	return len(n) == 0, nil
}

// localGlob lists the regular files a pattern matches on the local file system, walking only
// the directories the pattern can reach. A segment "**" matches any number of directories
// (symbolic links to directories are not followed there, so a loop cannot trap it). A directory
// that cannot be listed, and a match that cannot be examined (a dangling symbolic link, say),
// are errors naming them; matched directories are not input files and are left out; any other
// match that is not a regular file (a FIFO, a device) is an error.
func localGlob(ctx context.Context, pattern string) ([]string, error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, fmt.Errorf("globbing %s: %w", pattern, err)
	}
	segs := strings.Split(filepath.ToSlash(pattern), "/")
	base := "."
	if segs[0] == "" { // an absolute pattern
		base, segs = "/", segs[1:]
	}
	for len(segs) > 1 && !HasGlobMeta(segs[0]) {
		base, segs = filepath.Join(base, segs[0]), segs[1:]
	}
	g := &globber{ctx: ctx, seen: map[string]bool{}}
	if err := g.walk(base, segs); err != nil {
		return nil, err
	}
	sort.Strings(g.out)
	return g.out, nil
}

type globber struct {
	ctx  context.Context
	out  []string
	seen map[string]bool
}

// walk adds the files under dir that the remaining pattern segments match.
func (g *globber) walk(dir string, segs []string) error {
	if err := g.ctx.Err(); err != nil {
		return err
	}
	if len(segs) == 0 {
		return g.add(dir)
	}
	seg, rest := segs[0], segs[1:]
	if seg == "**" {
		if err := g.walk(dir, rest); err != nil {
			return err
		}
		ents, err := g.list(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.IsDir() { // not a symbolic link to one
				if err := g.walk(filepath.Join(dir, e.Name()), segs); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if !HasGlobMeta(seg) {
		next := filepath.Join(dir, seg)
		if _, err := os.Lstat(next); errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return fmt.Errorf("finding %s: %w", next, err)
		}
		return g.step(next, rest)
	}
	ents, err := g.list(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if ok, _ := filepath.Match(seg, e.Name()); ok {
			if err := g.step(filepath.Join(dir, e.Name()), rest); err != nil {
				return err
			}
		}
	}
	return nil
}

// step goes on from a matched name: the match itself when the pattern ends, else into it when
// it is a directory (following a symbolic link).
func (g *globber) step(name string, rest []string) error {
	if len(rest) == 0 {
		return g.add(name)
	}
	st, err := os.Stat(name)
	if err != nil {
		return fmt.Errorf("finding %s: %w", name, err)
	}
	if !st.IsDir() {
		return nil
	}
	return g.walk(name, rest)
}

// list reads a directory the pattern reaches; a directory that does not exist has no matches.
func (g *globber) list(dir string) ([]fs.DirEntry, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(dir); errors.Is(lerr, fs.ErrNotExist) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	return ents, nil
}

// add records a matched name if it is a regular file.
func (g *globber) add(name string) error {
	ok, err := inputFile(name)
	if err != nil || !ok || g.seen[name] {
		return err
	}
	g.seen[name] = true
	g.out = append(g.out, name)
	return nil
}

// inputFile reports whether name is a regular file to read (following symbolic links); a
// directory is not, and anything that cannot be examined or is neither is an error.
func inputFile(name string) (bool, error) {
	st, err := os.Stat(name)
	if err != nil {
		if lst, lerr := os.Lstat(name); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(name)
			return false, fmt.Errorf("reading %s: a symbolic link to %s, which cannot be read: %w", name, target, err)
		}
		return false, fmt.Errorf("reading %s: %w", name, err)
	}
	switch {
	case st.Mode().IsRegular():
		return true, nil
	case st.IsDir():
		return false, nil
	}
	return false, fmt.Errorf("reading %s: not a regular file (%s)", name, st.Mode().Type())
}
