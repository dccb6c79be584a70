package jobs

import (
	"fmt"
	"strings"
)

// emptyMeans lists the job keys whose empty value means something of its own, by dotted key
// ("*" for a list index), with what it means. Every other key given an empty value by --set KEY=
// or by a ${VAR} that is set but empty is an error naming the key (checkEmpty): that is what a
// script does with a variable it forgot to set, and the key's default would run silently instead.
var emptyMeans = map[string]string{
	"sources.*.default_group":             "no default group: rows without a group are quarantined",
	"sources.*.description":               "no source description",
	"sources.*.mapping.object":            "records are not snapshots of an object",
	"ontology.entity_types.*.description": "no description",
	"ontology.edge_types.*.description":   "no description",
	"llm.prompts_dir":                     "the embedded prompts",
	"sink.database":                       "the server's default database",
	"s3.endpoint":                         "AWS's own endpoint",
	"s3.region":                           "the configured region, else us-east-1",
	"s3.profile":                          "AWS_PROFILE, else the default profile",
}

// checkEmpty is the rule for an empty value given to the dotted key (list indexes as numbers):
// nil when the key documents what empty means (emptyMeans), else an error naming the key; how
// says where the empty value came from and what to do instead.
func checkEmpty(key, how string) error {
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			parts[i] = "*"
		}
	}
	if _, ok := emptyMeans[strings.Join(parts, ".")]; ok {
		return nil
	}
	return fmt.Errorf("%s: an empty value is an error (only the keys whose empty value means something take one, see the job spec): %s",
		key, how)
}
