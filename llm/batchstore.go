package llm

import (
	"context"
	"time"
)

// Local states of a batch (BatchRecord.State) besides the provider's (BatchValidating …).
const (
	// BatchQueued: the batch's input file is being written on this machine; nothing was sent.
	BatchQueued = "queued"
	// BatchSubmitting: the file is being uploaded and the batch created.
	BatchSubmitting = "submitting"
	// BatchDelivered: the batch ended and its answers are in the cache and its request rows.
	BatchDelivered = "delivered"
)

// Kinds of batches (BatchRecord.Kind).
const (
	KindChat       = "chat"
	KindEmbeddings = "embeddings"
)

// BatchRecord is a batch as the checkpoint store records it. It is written before anything is
// sent (BatchQueued) and updated at every step, so a run started again knows every batch an
// earlier run paid for.
type BatchRecord struct {
	ID         string // local id, also in the provider batch's metadata (MetaBatch)
	Kind       string // KindChat or KindEmbeddings
	Endpoint   string // EndpointChat or EndpointEmbeddings
	ProviderID string // the provider's batch id ("" until created)
	InputFile  string // the uploaded input file's id
	OutputFile string
	ErrorFile  string
	State      string // BatchQueued, BatchSubmitting, a provider state, or BatchDelivered
	Ended      string // the provider state the batch ended in (once delivered)
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

// Open reports whether the batch has not been delivered yet.
func (r BatchRecord) Open() bool { return r.State != BatchDelivered }

// Statuses of a request row (BatchRequest.Status).
const (
	ReqPending    = "pending"    // in a batch that has not ended
	ReqValid      = "valid"      // answered; the answer is in the cache (the row is then deleted)
	ReqInvalid    = "invalid"    // answered, but the answer failed validation (Detail, Raw, Finish)
	ReqFailed     = "failed"     // an error line (Code, Detail)
	ReqUnfinished = "unfinished" // the batch ended without it (expired, cancelled, failed)
)

// BatchRequest is one request line of a batch as the store records it.
type BatchRequest struct {
	Key    string   // BatchKey: the line's custom_id
	Batch  string   // BatchRecord.ID
	Stage  string   // the stage that asked (usage counters, cache namespace)
	Task   string   // the chat task, or "embeddings"
	Keys   []string // cache keys of the answer: the chat cache key, or one per embedded text
	Status string   // Req…
	Detail string   // why an answer was invalid or a request failed
	Raw    []byte   // an invalid answer as written (at most maxRawAnswer bytes)
	Finish string   // the finish reason of an invalid answer
	Code   int      // the HTTP status of a failed request
}

// KeyedEntry is a cache entry with its key.
type KeyedEntry struct {
	Key   string
	Entry CacheEntry
}

// BatchStore records batches and their requests; the checkpoint store satisfies it. Every
// method is one transaction.
type BatchStore interface {
	AddBatch(ctx context.Context, b BatchRecord) error
	UpdateBatch(ctx context.Context, b BatchRecord) error
	// DropBatch deletes a batch that was never created at the provider, with its requests.
	DropBatch(ctx context.Context, id string) error
	BatchRecord(ctx context.Context, id string) (BatchRecord, bool, error)
	// OpenBatches lists the batches of a kind that are not delivered, oldest first.
	OpenBatches(ctx context.Context, kind string) ([]BatchRecord, error)
	AddBatchRequest(ctx context.Context, r BatchRequest) error
	// BatchRequests lists the rows of a request key, oldest first.
	BatchRequests(ctx context.Context, key string) ([]BatchRequest, error)
	// BatchRequestIn returns the row of a key in one batch.
	BatchRequestIn(ctx context.Context, batch, key string) (BatchRequest, bool, error)
	// SettleBatchRequests records delivered rows (a valid row is deleted) and writes the cache
	// entries of the valid answers.
	SettleBatchRequests(ctx context.Context, rows []BatchRequest, entries []KeyedEntry) error
	// FinishBatch marks the rows of the batch still pending as unfinished, adds their number
	// to b.Unfinished and records b (delivered); it returns that number.
	FinishBatch(ctx context.Context, b BatchRecord) (int, error)
	// ForgetBatchRequests deletes the rows of the keys that are no longer pending.
	ForgetBatchRequests(ctx context.Context, keys []string) error
}
