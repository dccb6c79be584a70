// Package calls is the shape of an observed LLM or embeddings call, shared by the clients that
// make calls (llm, embed) and what watches them (telemetry): the Observer interface, what a call
// asks (CallInfo) and how it ended (CallEnd, CallOutcome). It sees no prompt and no answer.
package calls

import (
	"context"
	"errors"
	"time"

	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
)

// Operations of a call as the GenAI semantic conventions name them (gen_ai.operation.name).
const (
	OperationChat       = "chat"
	OperationEmbeddings = "embeddings"
)

// Outcomes of a call (CallEnd.Outcome).
const (
	CallOK       = "ok"       // a valid answer
	CallSalvaged = "salvaged" // an answer cut at max_tokens, kept up to its last complete list item
	CallInvalid  = "invalid"  // the answer stayed bad after the retries (transport.IsBadAnswer)
	CallPending  = "pending"  // batch mode: the request waits in a provider batch
	CallError    = "error"    // the request failed
)

// Observer watches a client's calls and usage; package telemetry implements it (a span per call
// in the GenAI conventions, the usage metrics). llm.Client.Observe sets it (embed.Client.Observe
// too); nil watches nothing. It sees no prompt and no answer.
type Observer interface {
	// Counted receives every change the client makes to its usage counters (Client.Usage,
	// pacing.StageUsage), with the stage and task it counts for: what the metrics sum is what
	// the run report sums. A change that carries tokens is one answer's usage (a request
	// answered online, or an answer of a provider batch delivered).
	Counted(stage, task string, d pacing.StageUsage)
	// Call is called when a call is about to send its first request (a call the cache answers
	// is only counted). The context it returns is the call's; end is called once when it ends.
	Call(ctx context.Context, c CallInfo) (context.Context, func(CallEnd))
	// Waited receives how long a request waited for the run's pacer (a slot, RPM, TPM) before
	// it was sent.
	Waited(stage, task string, d time.Duration)
}

// CallInfo is what a call is about to ask.
type CallInfo struct {
	Operation   string // OperationChat or OperationEmbeddings
	Stage, Task string
	MaxTokens   int     // chat: the first request's max_tokens
	Temperature float64 // chat
	Texts       int     // embeddings: the texts of the request
	Batch       bool    // through a provider batch (llm.mode or embedder.mode: batch)
}

// CallEnd is how a call ended.
type CallEnd struct {
	Outcome string // Call…
	Err     error
	// Usage sums the call's requests: Calls counts the requests sent (every retry included),
	// Retries those beyond the first, the tokens and cost those of the answers it got (a batch
	// answer's tokens, not its cost: that is counted when the batch is delivered).
	Usage  pacing.StageUsage
	Finish string // the finish reason of the last answer
}

// CallOutcome is the outcome of a call that returned err (CallOK when err is nil).
func CallOutcome(err error) string {
	switch {
	case err == nil:
		return CallOK
	case errors.Is(err, batch.ErrPending):
		return CallPending
	case transport.IsBadAnswer(err):
		return CallInvalid
	}
	return CallError
}
