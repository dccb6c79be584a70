package llm

import (
	"errors"
	"fmt"

	"github.com/tkgraph/backfill/llm/transport"
)

// ValidationError reports an answer that still broke the task's schema after the bounded number
// of validation retries. Err is the last *SchemaError (or JSON syntax error); Raw is the last
// answer as the model wrote it (at most 8 KiB), for the record of the failed unit.
type ValidationError struct {
	Task     string
	Attempts int // requests made
	Err      error
	Raw      []byte
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("answer to %s invalid after %d attempts: %v", e.Task, e.Attempts, e.Err)
}

func (e *ValidationError) Unwrap() error { return e.Err }

// IsBadAnswer reports whether err is a bad answer to one call rather than a failure of the
// service: an answer still invalid after the retries (*ValidationError) or a request the server
// refused as such (*StatusError, e.g. an input over the model's context). Such an error fails
// the unit that made the call, not the run.
func IsBadAnswer(err error) bool {
	var v *ValidationError
	var s *transport.StatusError
	return errors.As(err, &v) || errors.As(err, &s)
}
