package jobs

// DefaultMaxErrorRatio is limits.max_error_ratio when the job does not set it.
const DefaultMaxErrorRatio = 0.1

// DefaultMaxFailedRatio is limits.max_failed_ratio when the job does not set it.
const DefaultMaxFailedRatio = 0.5

// DefaultMaxVanishedRatio is limits.max_vanished_ratio when the job does not set it: a run may
// forget at most a tenth of a mirror source's episodes at once.
const DefaultMaxVanishedRatio = 0.1

// setDefault sets *v to def when it is the zero value.
func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}
