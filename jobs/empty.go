package jobs

import (
	"fmt"

	"github.com/tkgraph/backfill/internal/options"
)

// checkEmpty is the rule for an empty value given to the dotted key (list indexes as numbers),
// by --set KEY= or by a ${VAR} set but empty: nil when the key declares what its empty value
// means (options.Empty), else an error naming the key; how says where the empty value came
// from and what to do instead. That is what a script does with a variable it forgot to set, and
// the key's default would run silently instead.
func checkEmpty(keys *options.Section, key, how string) error {
	if k := keys.Lookup(key); k != nil {
		if _, ok := k.EmptyMeaning(); ok {
			return nil
		}
	}
	return fmt.Errorf("%s: an empty value is an error (only the keys whose empty value means something take one, see the job spec): %s",
		key, how)
}
