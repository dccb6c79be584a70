package batchrec

import "time"

// Local states of a batch (Record.State) besides the provider's (wire.BatchValidating …).
const (
	// Queued: the batch's input file is being written on this machine; nothing was sent.
	Queued = "queued"
	// Submitting: the file is being uploaded and the batch created.
	Submitting = "submitting"
	// Delivered: the batch ended and its answers are in the cache and its request rows.
	Delivered = "delivered"
	// Lost: the provider no longer knows the batch (HTTP 404 or 410 on it, confirmed by a
	// second poll and by its batch list) or no longer serves its output or error file; the
	// requests it did not answer are marked ReqLost and submitted again.
	Lost = "lost"
)

// Kinds of batches (Record.Kind).
const (
	KindChat       = "chat"
	KindEmbeddings = "embeddings"
)

// Record is a batch as the checkpoint store records it. It is written before anything is
// sent (Queued) and updated at every step, so a run started again knows every batch an
// earlier run paid for.
type Record struct {
	ID         string // local id, also in the provider batch's metadata (MetaBatch)
	Kind       string // KindChat or KindEmbeddings
	Endpoint   string // EndpointChat or EndpointEmbeddings
	ProviderID string // the provider's batch id ("" until created)
	InputFile  string // the uploaded input file's id
	OutputFile string
	ErrorFile  string
	State      string // Queued, Submitting, a provider state, Delivered or Lost
	Ended      string // the provider state the batch ended in (once delivered), or was last seen in (lost)
	Reason     string // the provider's reason for a failed batch (its errors), or why it is lost
	Requests   int    // request lines
	Bytes      int64  // size of the input file
	EstCostUSD float64
	// Completed and Failed are the provider's request counts.
	Completed, Failed int
	// Answers, Invalid, Errors and Unfinished count the delivered requests: answers received
	// (valid or not), of which invalid, error lines, and requests the batch left undone.
	Answers, Invalid, Errors, Unfinished int
	CreatedAt, UpdatedAt                 time.Time
}

// Open reports whether the batch has not been delivered yet (nor lost).
func (r Record) Open() bool { return r.State != Delivered && r.State != Lost }

// Statuses of a request row (Request.Status).
const (
	ReqPending    = "pending"    // in a batch that has not ended
	ReqValid      = "valid"      // answered; the answer is in the cache (the row is then deleted)
	ReqInvalid    = "invalid"    // answered, but the answer failed validation (Detail, Raw, Finish)
	ReqFailed     = "failed"     // an error line (Code, Detail)
	ReqUnfinished = "unfinished" // the batch ended without it (expired, cancelled, failed)
	ReqLost       = "lost"       // the provider lost its batch (Lost) before it was answered
	// ReqForgotten: a forgetting removed the episodes whose text the request carried while its
	// batch was pending: its answer is discarded on delivery (counted, never cached), and a
	// unit that still asks the same request sends it anew.
	ReqForgotten = "forgotten"
)

// Request is one request line of a batch as the store records it.
type Request struct {
	Key    string   // Key: the line's custom_id
	Batch  string   // Record.ID
	Stage  string   // the stage that asked (usage counters, cache namespace)
	Task   string   // the chat task, or "embeddings"
	Keys   []string // cache keys of the answer: the chat cache key, or one per embedded text
	Status string   // Req…
	Detail string   // why an answer was invalid or a request failed
	Raw    []byte   // an invalid answer as written (as Settled.Raw bounds it)
	Finish string   // the finish reason of an invalid answer
	Code   int      // the HTTP status of a failed request
}
