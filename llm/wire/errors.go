package wire

import "fmt"

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
