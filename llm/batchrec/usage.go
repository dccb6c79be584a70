package batchrec

// Usage counts a Batcher's work in one run.
type Usage struct {
	Batches        int `json:"batches"`         // batches submitted
	Requests       int `json:"requests"`        // request lines submitted
	Resubmitted    int `json:"resubmitted"`     // of Requests, submitted again after a failure, an expiry, an unreadable answer or a loss
	Answers        int `json:"answers"`         // answers received (valid or not)
	Errors         int `json:"errors"`          // error lines received
	Unfinished     int `json:"unfinished"`      // requests a batch ended without (expired, cancelled, failed)
	InvalidLines   int `json:"invalid_lines"`   // output lines that could not be read
	FallbackOnline int `json:"fallback_online"` // requests sent online after their batch retries
	// Discarded counts the answers received for requests a forgetting marked ReqForgotten while
	// their batch was pending: paid (in CostUSD), never cached.
	Discarded    int     `json:"discarded,omitempty"`
	CostUSD      float64 `json:"cost_usd"`      // the answers received, at batch prices
	EstimatedUSD float64 `json:"estimated_usd"` // the estimate of the batches submitted
	// Lost counts the batches the provider lost (Lost): their unanswered requests were
	// submitted again (in Resubmitted) and counted in Unfinished.
	Lost int `json:"lost"`
	// Failures are the batches that ended failed or were lost, with the provider's reason (at
	// most maxFailures of them).
	Failures []Failure `json:"failures,omitempty"`
}

// Failure is a batch that failed at the provider or was lost, and why.
type Failure struct {
	Batch      string `json:"batch"`       // Record.ID
	ProviderID string `json:"provider_id"` // the provider's batch id
	State      string `json:"state"`       // wire.BatchFailed or Lost
	Reason     string `json:"reason"`      // Record.Reason
}

// maxFailures bounds Usage.Failures: a report names the first ones, Lost and the counts say
// how many there were.
const maxFailures = 20

// Fail adds a failure to u, up to maxFailures.
func (u *Usage) Fail(f Failure) {
	if len(u.Failures) < maxFailures {
		u.Failures = append(u.Failures, f)
	}
}

// Sum adds o to u.
func (u *Usage) Sum(o Usage) {
	u.Batches += o.Batches
	u.Requests += o.Requests
	u.Resubmitted += o.Resubmitted
	u.Answers += o.Answers
	u.Errors += o.Errors
	u.Unfinished += o.Unfinished
	u.InvalidLines += o.InvalidLines
	u.FallbackOnline += o.FallbackOnline
	u.Discarded += o.Discarded
	u.CostUSD += o.CostUSD
	u.EstimatedUSD += o.EstimatedUSD
	u.Lost += o.Lost
	for _, f := range o.Failures {
		u.Fail(f)
	}
}
