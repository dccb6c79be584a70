package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CompareDirs reports the first difference between the regular files of two directories: a file
// present in only one, or a file whose bytes differ. nil means the same files with equal bytes.
func CompareDirs(want, got string) error {
	wn, err := fileNames(want)
	if err != nil {
		return err
	}
	gn, err := fileNames(got)
	if err != nil {
		return err
	}
	if strings.Join(wn, ",") != strings.Join(gn, ",") {
		return fmt.Errorf("comparing %s with %s: files %v, want %v", got, want, gn, wn)
	}
	for _, n := range wn {
		a, err := os.ReadFile(filepath.Join(want, n))
		if err != nil {
			return fmt.Errorf("comparing exports: %w", err)
		}
		b, err := os.ReadFile(filepath.Join(got, n))
		if err != nil {
			return fmt.Errorf("comparing exports: %w", err)
		}
		if !bytes.Equal(a, b) {
			return fmt.Errorf("comparing exports: %s differs (%d bytes, want %d)", n, len(b), len(a))
		}
	}
	return nil
}

// fileNames lists the regular files of dir, sorted.
func fileNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Export runs `backfill export JOB --format parquet --out out` with the extra arguments and
// returns an error naming the exit code and the log's end when it fails.
func Export(ctx context.Context, bin, job, out string, extra ...string) error {
	res, err := Run(ctx, bin, append([]string{"export", job, "--format", "parquet", "--out", out}, extra...), Options{})
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return fmt.Errorf("backfill export %s: exit %d\n%s", job, res.Code, res.Stderr)
	}
	return nil
}

// FilterLoCoMo writes the first n samples (conversations) of a LoCoMo JSON file to dst.
func FilterLoCoMo(src, dst string, n int) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("reading %s: %w", src, err)
	}
	var samples []json.RawMessage
	if err := json.Unmarshal(b, &samples); err != nil {
		return fmt.Errorf("parsing %s: %w", src, err)
	}
	if n > 0 && n < len(samples) {
		samples = samples[:n]
	}
	out, err := json.Marshal(samples)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", dst, err)
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	return nil
}

// StubJobYAML is a job that reads one source and sends every chat and embeddings request to
// the server at baseURL with the given concurrency. source is the YAML of one sources[] entry
// (without the leading "- "), indented by four spaces after its first line.
func StubJobYAML(name, checkpoint, source, baseURL string, concurrency int) string {
	return fmt.Sprintf(`name: %s
checkpoint: %s
record_time: reference
sources:
  - %s
llm:
  provider: openai
  base_url: %s
  model: stub-chat
  concurrency: %d
embedder:
  provider: openai
  base_url: %s
  model: stub-embed
`, name, checkpoint, source, baseURL, concurrency, baseURL)
}

// QuarantineLine is one line of <checkpoint>.quarantine.jsonl.
type QuarantineLine struct {
	File   string `json:"file"`
	Row    int64  `json:"row"`
	Field  string `json:"field"`
	Reason string `json:"reason"`
	Raw    string `json:"raw"`
}

// ReadQuarantine reads the quarantine file of a checkpoint; no file means no lines.
func ReadQuarantine(checkpoint string) ([]QuarantineLine, error) {
	f, err := os.Open(checkpoint + ".quarantine.jsonl")
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the quarantine: %w", err)
	}
	defer f.Close()
	var out []QuarantineLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q QuarantineLine
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("reading quarantine line %q: %w", sc.Text(), err)
		}
		out = append(out, q)
	}
	return out, sc.Err()
}
