package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagRange is the range a numeric flag's value must lie in (durations in seconds).
type flagRange struct{ min, max float64 }

// flagRanges bound the numeric flags, by "COMMAND FLAG" (checkFlags). A value outside its range,
// NaN or infinite is a usage error naming the flag, before the command does anything; a test
// requires an entry for every numeric flag of these commands. (eval's and diff's flags are checked
// by those commands.)
var flagRanges = map[string]flagRange{
	"plan sample": {1, 10_000_000},

	"llm-stub latency":               {0, 3600},
	"llm-stub jitter":                {0, 3600},
	"llm-stub fault-rate":            {0, 1},
	"llm-stub seed":                  {0, math.MaxUint64},
	"llm-stub max-faults":            {-1, 1000},
	"llm-stub retry-after":           {0, 3600},
	"llm-stub stall":                 {0, 3600},
	"llm-stub window":                {0.001, 86400},
	"llm-stub dims":                  {0, 8192}, // as embedder.dimensions
	"llm-stub bad-rate":              {0, 1},
	"llm-stub batch-delay":           {0, 86400},
	"llm-stub batch-fail-rate":       {0, 1},
	"llm-stub batch-expire-rate":     {0, 1},
	"llm-stub batch-invalid-rate":    {0, 1},
	"llm-stub batch-lose-rate":       {0, 1},
	"llm-stub batch-lose-after":      {0, 1_000_000},
	"llm-stub batch-failed-rate":     {0, 1},
	"llm-stub batch-lose-files-rate": {0, 1},
	"llm-stub batch-max-requests":    {0, 1_000_000},
	"llm-stub batch-max-bytes":       {0, 1 << 31},
	"llm-stub prefix-cache-block":    {0, 1 << 20},
	"llm-stub prefix-cache-min":      {0, 1 << 24},
}

// checkFlags checks the flags given to cmd: a string flag given an empty value (what a script
// passes for a variable it forgot to set) is an error, never the flag's default; a numeric flag
// must be finite and in its flagRanges range.
func checkFlags(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		switch f.Value.Type() {
		case "string":
			if strings.TrimSpace(f.Value.String()) == "" {
				err = fmt.Errorf("--%s: an empty value is an error (leave the flag out for its default)", f.Name)
			}
		case "int", "int64", "uint64", "float64", "duration":
			err = checkNumber(cmd.Name(), f)
		}
	})
	return err
}

// checkNumber checks a numeric flag against its range.
func checkNumber(command string, f *pflag.Flag) error {
	r, ok := flagRanges[command+" "+f.Name]
	if !ok {
		return nil
	}
	var x float64
	if f.Value.Type() == "duration" {
		d, err := time.ParseDuration(f.Value.String())
		if err != nil {
			return fmt.Errorf("--%s %s: %w", f.Name, f.Value, err)
		}
		x = d.Seconds()
	} else {
		var err error
		if x, err = strconv.ParseFloat(f.Value.String(), 64); err != nil {
			return fmt.Errorf("--%s %s: not a number", f.Name, f.Value)
		}
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || x < r.min || x > r.max {
		unit := ""
		if f.Value.Type() == "duration" {
			unit = " seconds"
		}
		return fmt.Errorf("--%s %s: want a number from %g to %g%s", f.Name, f.Value, r.min, r.max, unit)
	}
	return nil
}
