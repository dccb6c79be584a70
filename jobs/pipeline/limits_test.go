package pipeline

import (
	"strings"
	"testing"

	"github.com/tkgraph/backfill/stages/ingest"
)

func TestMaxErrorRatio(t *testing.T) {
	tests := []struct {
		yaml string
		want float64
		err  string
	}{
		{"", ingest.DefaultMaxErrorRatio, ""},
		{"limits: {max_error_ratio: 0}\n", 0, ""}, // explicit zero: no bad row tolerated, not the default
		{"limits: {max_error_ratio: 0.5}\n", 0.5, ""},
		{"limits: {max_error_ratio: 1.5}\n", 0, "limits.max_error_ratio"},
		{"limits: {max_error_ratio: -0.1}\n", 0, "limits.max_error_ratio"},
		{"limits: {max_error_ratio: .nan}\n", 0, "limits.max_error_ratio"},
	}
	for _, tc := range tests {
		j, err := Parse([]byte("sources: [{path: x.jsonl}]\n"+tc.yaml), nil, func(string) (string, bool) { return "", false })
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err = %v, want one naming %s", tc.yaml, err, tc.err)
			}
			continue
		}
		if err != nil || *j.Limits.MaxErrorRatio != tc.want {
			t.Errorf("%q: ratio %v, err %v; want %g", tc.yaml, j.Limits.MaxErrorRatio, err, tc.want)
		}
	}
}
