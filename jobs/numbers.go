package jobs

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// maxima are the upper bounds of the numeric job keys that have one, by dotted key ("[]" for
// any list element). Every numeric key, listed here or not, must be finite and not negative
// (checkNumbers): no key takes a negative value, and a negative value is an error, never the
// default.
var maxima = map[string]float64{
	"sources[].max_body_bytes":           1 << 30,
	"checkpoint_sync.seconds":            86400,
	"checkpoint_sync.lease_seconds":      3600,
	"llm.concurrency":                    1024,
	"llm.temperature":                    2,
	"llm.frequency_penalty":              2,
	"llm.max_attempts":                   100,
	"llm.timeout_seconds":                86400,
	"llm.batch.max_requests":             1_000_000,
	"llm.batch.max_bytes":                1 << 31,
	"llm.batch.max_retries":              100,
	"llm.batch.poll_seconds":             86400,
	"embedder.dimensions":                8192,
	"embedder.batch_size":                2048,
	"stages.extract.context":             100,
	"stages.extract.context_tokens":      1_000_000,
	"stages.extract.window":              64,
	"stages.extract.window_tokens":       1_000_000,
	"stages.extract.window_gap_seconds":  1e9,
	"stages.resolve.minhash_threshold":   1,
	"stages.resolve.embedding_threshold": 1,
	"stages.resolve.grey_threshold":      1,
	"stages.resolve.batch_size":          1000,
	"stages.resolve.max_pairs":           10_000_000,
	"stages.temporal.max_candidates":     1000,
	"stages.summarize.batch_size":        1000,
	"stages.community.max_iterations":    100_000,
	"stages.community.max_summarized":    10_000,
	"sink.batch_size":                    100_000,
	"sink.batch_bytes":                   256 << 20,
	"sink.sessions":                      16,
	"sink.max_attempts":                  100,
	"sink.retry_seconds":                 60,
	"sink.lease_seconds":                 86400,
	"sink.lease_wait_seconds":            86400,
	"limits.max_error_ratio":             1,
	"limits.max_failed_ratio":            1,
	"limits.max_vanished_ratio":          1,
}

// checkNumbers walks the job and reports the first numeric key that is NaN, infinite, negative
// or above its maximum, naming the key as written in YAML.
func checkNumbers(j *Job) error {
	return walkNumbers(reflect.ValueOf(j).Elem(), "", "")
}

// walkNumbers checks v, whose key is path (with list indexes) and pattern (with "[]").
func walkNumbers(v reflect.Value, path, pattern string) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return walkNumbers(v.Elem(), path, pattern)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			if err := walkNumbers(v.Field(i), join(path, name), join(pattern, name)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if err := walkNumbers(v.Index(i), fmt.Sprintf("%s[%d]", path, i), pattern+"[]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
		for _, k := range keys {
			if err := walkNumbers(v.MapIndex(k), join(path, k.String()), join(pattern, "*")); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return checkNumber(float64(v.Int()), path, pattern)
	case reflect.Float32, reflect.Float64:
		return checkNumber(v.Float(), path, pattern)
	}
	return nil
}

func checkNumber(x float64, path, pattern string) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("validating job: %s: %g is not a finite number", path, x)
	case x < 0:
		return fmt.Errorf("validating job: %s: %g is negative", path, x)
	}
	if m, ok := maxima[pattern]; ok && x > m {
		return fmt.Errorf("validating job: %s: %g is above the maximum %g", path, x, m)
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
