package wire

import "encoding/json"

// Endpoints a provider batch carries (the "url" of its request lines and the batch's "endpoint").
const (
	EndpointChat       = "/v1/chat/completions"
	EndpointEmbeddings = "/v1/embeddings"
)

// Limits of the OpenAI Batch API: request lines per batch and bytes per input file.
const (
	BatchMaxRequests = 50_000
	BatchMaxBytes    = 200_000_000
)

// CompletionWindow is the completion window every batch is created with.
const CompletionWindow = "24h"

// Batch states as the provider reports them (Batch.Status).
const (
	BatchValidating = "validating"
	BatchInProgress = "in_progress"
	BatchFinalizing = "finalizing"
	BatchCompleted  = "completed"
	BatchFailed     = "failed"
	BatchExpired    = "expired"
	BatchCancelling = "cancelling"
	BatchCancelled  = "cancelled"
)

// BatchEnded reports whether a provider batch state is final: its output and error files hold
// everything it will ever answer.
func BatchEnded(state string) bool {
	switch state {
	case BatchCompleted, BatchFailed, BatchExpired, BatchCancelled:
		return true
	}
	return false
}

// BatchInputLine is one line of a batch's input file.
type BatchInputLine struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

// BatchOutputLine is one line of a batch's output or error file.
type BatchOutputLine struct {
	ID       string             `json:"id"`
	CustomID string             `json:"custom_id"`
	Response *BatchLineResponse `json:"response"`
	Error    *BatchLineError    `json:"error"`
}

// BatchLineResponse is the HTTP answer to one request of a batch.
type BatchLineResponse struct {
	StatusCode int             `json:"status_code"`
	RequestID  string          `json:"request_id,omitempty"`
	Body       json.RawMessage `json:"body"`
}

// BatchLineError is a request of a batch that got no HTTP answer (expired, cancelled, …).
type BatchLineError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error codes of request lines that a batch left undone: they are submitted again.
const (
	LineExpired   = "batch_expired"
	LineCancelled = "batch_cancelled"
)

// Batch is a provider batch (POST /v1/batches, GET /v1/batches/{id}).
type Batch struct {
	ID               string            `json:"id"`
	Object           string            `json:"object"`
	Endpoint         string            `json:"endpoint"`
	InputFileID      string            `json:"input_file_id"`
	CompletionWindow string            `json:"completion_window"`
	Status           string            `json:"status"`
	OutputFileID     string            `json:"output_file_id,omitempty"`
	ErrorFileID      string            `json:"error_file_id,omitempty"`
	CreatedAt        int64             `json:"created_at"`
	RequestCounts    BatchCounts       `json:"request_counts"`
	Metadata         map[string]string `json:"metadata,omitempty"`
	Errors           *BatchErrors      `json:"errors,omitempty"`
}

// BatchCounts are a batch's request counts as the provider reports them.
type BatchCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
}

// BatchErrors are the reasons a batch failed its validation.
type BatchErrors struct {
	Data []BatchLineError `json:"data"`
}

// BatchCreate is the body of POST /v1/batches.
type BatchCreate struct {
	InputFileID      string            `json:"input_file_id"`
	Endpoint         string            `json:"endpoint"`
	CompletionWindow string            `json:"completion_window"`
	Metadata         map[string]string `json:"metadata,omitempty"`
}

// BatchList is a page of GET /v1/batches, newest first.
type BatchList struct {
	Data    []Batch `json:"data"`
	HasMore bool    `json:"has_more"`
	LastID  string  `json:"last_id,omitempty"`
}

// FileObject is an uploaded file (POST /v1/files).
type FileObject struct {
	ID        string `json:"id"`
	Object    string `json:"object"`
	Bytes     int64  `json:"bytes"`
	CreatedAt int64  `json:"created_at"`
	Filename  string `json:"filename"`
	Purpose   string `json:"purpose"`
}
