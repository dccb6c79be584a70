package jobs

import "time"

// Location is the job's timezone.
func (j *Job) Location() *time.Location {
	loc, err := time.LoadLocation(j.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}
