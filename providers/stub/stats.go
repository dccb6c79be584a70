package stub

import (
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// Stats are the stub's counters, served by GET /stats.
type Stats struct {
	Calls            int64 `json:"calls"` // API requests received, faults included
	ChatCalls        int64 `json:"chat_calls"`
	EmbeddingCalls   int64 `json:"embedding_calls"`
	PromptTokens     int64 `json:"prompt_tokens"` // of the answers given (malformed ones included)
	CompletionTokens int64 `json:"completion_tokens"`
	// CachedPromptTokens are the prompt tokens reported cached under Options.PrefixCache;
	// PrefixSharedTokens the prompt tokens, in whole blocks, an earlier request had sent first,
	// whatever their length (what a cache with no minimum would serve).
	CachedPromptTokens int64            `json:"cached_prompt_tokens"`
	PrefixSharedTokens int64            `json:"prefix_shared_tokens"`
	Faults             int64            `json:"faults"`
	FaultsByKind       map[string]int64 `json:"faults_by_kind"`
	MaxInFlight        int              `json:"max_in_flight"`
	InFlight           int              `json:"in_flight"`
	Answered           int64            `json:"answered"`    // good answers given
	BadAnswers         int64            `json:"bad_answers"` // answers made bad on purpose (Options.BadRate)
	Repeated           int64            `json:"repeated"`    // good answers to a logical request answered before
	CallsPerMinute     []int64          `json:"calls_per_minute"`
	MaxCallsInWindow   int              `json:"max_calls_in_window"` // most calls started in any sliding Window
	WindowSeconds      float64          `json:"window_seconds"`
	Seconds            float64          `json:"seconds"` // since the stub started
	// Batches: files uploaded, batches created, request lines submitted, distinct requests
	// (by the line's url, custom_id and body), lines whose request was submitted in an
	// earlier batch, the most batches one request was submitted in, error lines, undone
	// requests, unreadable lines, and batches that expired or were cancelled.
	BatchFiles          int64 `json:"batch_files"`
	Batches             int64 `json:"batches"`
	BatchRequests       int64 `json:"batch_requests"`
	BatchDistinct       int64 `json:"batch_distinct"`
	BatchResubmitted    int64 `json:"batch_resubmitted"`
	BatchMaxSubmissions int   `json:"batch_max_submissions"`
	BatchErrorLines     int64 `json:"batch_error_lines"`
	BatchUnfinished     int64 `json:"batch_unfinished"`
	BatchInvalidLines   int64 `json:"batch_invalid_lines"`
	BatchesExpired      int64 `json:"batches_expired"`
	BatchesCancelled    int64 `json:"batches_cancelled"`
	// Vanishing state: batches forgotten, batches failed with a reason, batches whose files
	// were forgotten, the request lines in lost batches or lost files, and the fewest and most
	// batches one of those requests was submitted in, in all.
	BatchesLost             int64 `json:"batches_lost"`
	BatchesFailed           int64 `json:"batches_failed"`
	BatchFilesLost          int64 `json:"batch_files_lost"`
	BatchLostRequests       int64 `json:"batch_lost_requests"`
	BatchLostMinSubmissions int   `json:"batch_lost_min_submissions"`
	BatchLostMaxSubmissions int   `json:"batch_lost_max_submissions"`
}

// counters accumulate Stats; the Server's mutex guards them.
type counters struct {
	Stats
	began  time.Time
	window time.Duration
	recent []time.Time // call starts within the last window, oldest first
}

func newCounters(now time.Time, window time.Duration) counters {
	return counters{Stats: Stats{FaultsByKind: map[string]int64{}, WindowSeconds: window.Seconds()}, began: now, window: window}
}

// start counts a request arriving at now.
func (c *counters) start(now time.Time, chat bool, fault string) {
	c.Calls++
	if chat {
		c.ChatCalls++
	} else {
		c.EmbeddingCalls++
	}
	if fault != "" {
		c.Faults++
		c.FaultsByKind[fault]++
	}
	c.InFlight++
	c.MaxInFlight = max(c.MaxInFlight, c.InFlight)
	minute := int(now.Sub(c.began) / time.Minute)
	for len(c.CallsPerMinute) <= minute {
		c.CallsPerMinute = append(c.CallsPerMinute, 0)
	}
	c.CallsPerMinute[minute]++
	drop := 0
	for drop < len(c.recent) && now.Sub(c.recent[drop]) >= c.window {
		drop++
	}
	c.recent = append(c.recent[drop:], now)
	c.MaxCallsInWindow = max(c.MaxCallsInWindow, len(c.recent))
}

// answered counts an answer's tokens, and whether it was good and a repeat.
func (c *counters) answered(u wire.TokenUsage, good, repeat bool) {
	c.PromptTokens += int64(u.PromptTokens)
	c.CompletionTokens += int64(u.CompletionTokens)
	if good {
		c.Answered++
	}
	if repeat {
		c.Repeated++
	}
}

// snapshot copies the counters.
func (c *counters) snapshot() Stats {
	s := c.Stats
	s.FaultsByKind = make(map[string]int64, len(c.FaultsByKind))
	for k, v := range c.FaultsByKind {
		s.FaultsByKind[k] = v
	}
	s.CallsPerMinute = append([]int64{}, c.CallsPerMinute...)
	s.Seconds = time.Since(c.began).Seconds()
	return s
}
