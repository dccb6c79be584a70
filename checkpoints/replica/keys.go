package replica

import (
	"fmt"
	"time"

	"github.com/tkgraph/backfill/internal/options"
)

// MinEvery is the shortest snapshot period a job may set (checkpoint_sync.seconds).
const MinEvery = time.Second

// Sync says how a job's checkpoint kept in object storage is worked on and kept
// (checkpoint_sync.*): the local copy (Options.Local; "" is the opener's default place), the
// snapshot period in seconds (Options.Every) and the writer's lease in seconds
// (Options.LeaseTTL); a key left out is the default, a value below the minimum an error.
type Sync struct {
	Local        string
	Seconds      *float64 // nil: the default
	LeaseSeconds *float64 // nil: the default
}

// Declare declares the job keys of a checkpoint kept in object storage (checkpoint_sync.*) on
// c's fields.
func (c *Sync) Declare(s *options.Section) {
	s.String(&c.Local, "local", "the local copy runs work on", options.DefaultText("`<user cache>/backfill/checkpoints/<bucket>/<hash>-<name>`"))
	s.OptFloat(&c.Seconds, "seconds", "a snapshot at least this often while the store changes (at least 1; a value "+
		"below, `0` included, is an error: leave the key out for the default)",
		options.DefaultText(fmt.Sprint(DefaultEvery.Seconds())), options.Max(86400), options.Check(func() error {
			if m := MinEvery.Seconds(); c.Seconds != nil && *c.Seconds < m {
				return fmt.Errorf("%g is below %g (leave the key out for the default %g)", *c.Seconds, m, DefaultEvery.Seconds())
			}
			return nil
		}))
	s.OptFloat(&c.LeaseSeconds, "lease_seconds", "the writer's lease lasts this long unrenewed (at least 3; a value below, "+
		"`0` included, is an error: leave the key out for the default)",
		options.DefaultText(fmt.Sprint(DefaultLeaseTTL.Seconds())), options.Max(3600), options.Check(func() error {
			if s, m := c.LeaseSeconds, MinLeaseTTL.Seconds(); s != nil && *s < m {
				return fmt.Errorf("%g is below %g (servers date writes to the second; leave the key out for the default %g)",
					*s, m, DefaultLeaseTTL.Seconds())
			}
			return nil
		}))
}

// Options are the replica's options of the settings; the client, location, stop, callback and
// log are the caller's.
func (c *Sync) Options() Options {
	return Options{Local: c.Local, Every: seconds(c.Seconds), LeaseTTL: seconds(c.LeaseSeconds)}
}

// seconds is a duration of *s seconds (fractions allowed); 0 (the default) for nil.
func seconds(s *float64) time.Duration {
	if s == nil {
		return 0
	}
	return time.Duration(*s * float64(time.Second))
}
