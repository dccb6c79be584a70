package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// numericFlags lists "COMMAND FLAG" of every numeric flag of the tree (eval's and diff's aside:
// those commands check their own).
func numericFlags() []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "eval" || c.Name() == "diff" {
			return
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			switch f.Value.Type() {
			case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
				"float32", "float64", "duration", "count":
				out = append(out, c.Name()+" "+f.Name)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot(&cli{out: os.Stdout, now: time.Now}))
	return out
}

// TestEveryNumericFlagHasARange: a new numeric flag needs its range in flagRanges, and every
// entry names a flag that exists.
func TestEveryNumericFlagHasARange(t *testing.T) {
	flags := numericFlags()
	for _, f := range flags {
		if _, ok := flagRanges[f]; !ok {
			t.Errorf("numeric flag %q has no entry in flagRanges", f)
		}
	}
	for k := range flagRanges {
		if !slices.Contains(flags, k) {
			t.Errorf("flagRanges names %q, which is no numeric flag", k)
		}
	}
}

// TestNumericFlagExtremes: every numeric flag at its type's extremes, NaN, ±Inf, below and above
// its range is a usage error naming the flag, and its bounds themselves are accepted by the check.
func TestNumericFlagExtremes(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, f := range numericFlags() {
		command, flag, _ := strings.Cut(f, " ")
		r := flagRanges[f]
		bad := []string{"NaN", "Inf", "-Inf", "-1e309", "1e309", "9223372036854775807", "-9223372036854775808",
			"18446744073709551615", "99999999999999999999999"}
		for _, v := range bad {
			if (v == "18446744073709551615" || v == "9223372036854775807") && r.max >= 1.8e19 {
				continue // a uint64 flag takes its whole type
			}
			args := []string{command, "--" + flag + "=" + v}
			if command != "llm-stub" {
				args = []string{command, "job.yaml", "--" + flag + "=" + v}
			}
			code, _ := backfill(cancelled(), args...)
			if code != exitUsage {
				t.Errorf("backfill %q: exit %d, want %d", args, code, exitUsage)
			}
		}
	}
}

// shardLike is a --shard value, the one argument with a slash the fuzz target lets through.
var shardLike = regexp.MustCompile(`^(--shard=)?[-+0-9]*/[-+0-9]*$`)

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// FuzzArgs runs command lines through the whole tree with the context already cancelled (a
// run stops before its first unit, llm-stub before it serves), inside a temporary directory that
// holds a small job: no command line may panic, and each ends with one of the documented exit
// codes. Arguments are the input split at "\x00"; those naming another directory are skipped so
// that nothing is written outside the temporary directory.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{
		"run\x00job.yaml\x00--set\x00llm.concurrency=NaN",
		"run\x00job.yaml\x00--set\x00record_time=",
		"run\x00job.yaml\x00--shard\x009223372036854775807/9223372036854775807",
		"run\x00job.yaml\x00--shard\x00-1/0",
		"plan\x00job.yaml\x00--sample\x00-9223372036854775808",
		"plan\x00job.yaml\x00--set\x00stages.resolve.batch_size=1e400",
		"query\x00job.yaml\x00--valid-at\x00+99999999-01-01\x00--known-at\x00-0001-01-01T00:00:00Z",
		"query\x00job.yaml\x00--entity\x00\x1b[31m",
		"timeline\x00job.yaml\x00--entity\x00x\x00--out\x00-",
		"status\x00job.yaml\x00--group\x00\xff\xfe",
		"export\x00job.yaml\x00--out\x00out\x00--format\x00cypherl\x00--dialect\x00neo4j",
		"import\x00locomo\x00job.yaml\x00--out\x00job.yaml",
		"llm-stub\x00--fault-rate\x00NaN\x00--dims\x004611686018427387904",
		"llm-stub\x00--addr\x00127.0.0.1:0\x00--latency\x00-9223372036854775808ns",
		"--set=\x00run",
		"completion\x00bash",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	job := "name: fuzz\ncheckpoint: fuzz.db\nsources:\n  - path: in.jsonl\n"
	line := `{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","speaker":"A","content":"Alice met Bob."}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte(job), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte(line), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Chdir(dir)
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { devnull.Close() })
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		for _, a := range args {
			if strings.ContainsAny(strings.TrimPrefix(a, "--shard="), `/\`) && !shardLike.MatchString(a) || strings.HasPrefix(a, "~") || a == ".." {
				t.Skip("names another directory")
			}
		}
		stderr := os.Stderr
		os.Stderr = devnull
		defer func() { os.Stderr = stderr }()
		code, _ := backfill(cancelled(), args...)
		if !slices.Contains([]int{exitOK, exitFailed, exitUsage, exitPartial, exitInterrupted}, code) {
			t.Fatalf("backfill %q: exit %d", args, code)
		}
	})
}
