package hostile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/jobs/pipeline"
)

// numericKeys lists the dotted keys of the job spec's numbers (setKeys, numbers only).
func numericKeys(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, k := range pipeline.Keys().Keys() {
		typ := k.Key.Type()
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Map || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		switch typ.Kind() {
		case reflect.Int, reflect.Int64, reflect.Float64:
			p := strings.ReplaceAll(strings.ReplaceAll(k.Path, "[]", ".0"), "*", "extract_graph")
			if k.Key.Type().Kind() == reflect.Map {
				p += ".extract_graph"
			}
			out = append(out, p)
		}
	}
	return out
}

// inRange are the extreme values some flags take: a seed is any uint64, -1 is "no cap".
var inRange = map[string]bool{"llm-stub --seed=9223372036854775807": true, "llm-stub --max-faults=-1": true}

// TestNumbersAtTheirExtremes: every numeric job key and every numeric flag of run, plan,
// status, query, timeline, export, import and llm-stub, given NaN, ±Inf, a negative number and the
// extremes of int64 and float64, is refused naming the key or flag or, where the value is in
// range, runs without a crash.
func TestNumbersAtTheirExtremes(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute: every numeric key and flag at 11 values")
	}
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.jsonl"), conversation())
	job := offlineJob(t, dir, "num", in, filepath.Join(dir, "num.db"), "")
	extremes := []string{"NaN", ".nan", "Inf", "-Inf", ".inf", "-1", "-9223372036854775808", "9223372036854775807",
		"18446744073709551616", "1.7976931348623157e308", "-1e-320"}
	keys := numericKeys(t)
	if len(keys) < 40 {
		t.Fatalf("only %d numeric keys found", len(keys))
	}
	accepted := map[string]bool{}
	for _, k := range keys {
		for _, v := range extremes {
			res := run(t, dir, nil, "plan", job, "--set", k+"="+v)
			switch {
			case res.Code == 0:
				if strings.HasPrefix(v, "-") && v != "-1e-320" || strings.Contains(strings.ToLower(v), "n") { // -1e-320 reads as 0
					t.Errorf("--set %s=%s accepted", k, v)
				}
				accepted[k+"="+v] = true
			case res.Code != 2 || !strings.Contains(res.Stderr, k[strings.LastIndex(k, ".")+1:]):
				t.Errorf("--set %s=%s: exit %d, want 2 naming the key\n%s", k, v, res.Code, res.Stderr)
			}
		}
	}
	// The values a key accepts at the top of its type run the whole pipeline without a crash.
	for kv := range accepted {
		if strings.Contains(kv, "e-320") {
			continue
		}
		cp := filepath.Join(dir, "acc.db")
		res := run(t, dir, nil, "run", job, "--checkpoint", cp, "--set", kv)
		t.Logf("run --set %s: exit %d", kv, res.Code)
		for _, suffix := range []string{"", "-wal", "-shm", ".quarantine.jsonl", ".failed.jsonl", ".lock"} {
			os.Remove(cp + suffix)
		}
	}
	n := 0
	for _, c := range commands {
		for flag, placeholder := range commandFlags(t, dir, c[0]) {
			if placeholder != "N" && placeholder != "F" && placeholder != "DURATION" {
				continue
			}
			for _, v := range append(extremes, "-1ns", "9999999h") {
				n++
				args := append(c, "--"+flag+"="+v)
				if c[0] == "llm-stub" { // a stub whose flags pass fails to listen instead of serving
					args = append(args, "--addr=256.0.0.1:1")
				}
				res := run(t, dir, nil, args...)
				if inRange[c[0]+" --"+flag+"="+v] {
					want(t, res, 1, "listening")
					continue
				}
				if res.Code != 2 || !strings.Contains(res.Stderr, "--"+flag) {
					t.Errorf("%s --%s=%s: exit %d, want 2 naming the flag\n%s", c[0], flag, v, res.Code, res.Stderr)
				}
			}
		}
	}
	t.Logf("%d numeric keys × %d values, %d numeric flag values", len(keys), len(extremes), n)
}
