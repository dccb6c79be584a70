package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"sync"

	"github.com/tkgraph/backfill/llm/wire"
)

// Cache stores valid LLM answers by content key. The checkpoint store satisfies it with a
// SQLite table; MemoryCache is an in-memory version. Get reports a miss as (zero, false, nil).
type Cache interface {
	Get(ctx context.Context, key string) (CacheEntry, bool, error)
	Put(ctx context.Context, key string, e CacheEntry) error
}

// CacheEntry is one cached answer with the usage of the call that produced it.
type CacheEntry struct {
	Namespace        string // the stage that made the call ("embed" for embeddings)
	Response         []byte // the answer content (JSON for chat, packed float32 for embeddings)
	PromptTokens     int
	CompletionTokens int
}

// CacheKey is the sha256 (hex) of everything that determines a chat answer: the model, the
// rendered messages, the schema name and text, the temperature and any extra request options.
// Every field is length-prefixed, so no two different inputs share a key.
func CacheKey(model string, messages []wire.Message, schemaName string, schema []byte, temperature float64, extra ...string) string {
	h := sha256.New()
	field(h, "chat-v1")
	field(h, model)
	field(h, schemaName)
	field(h, string(schema))
	field(h, strconv.FormatFloat(temperature, 'g', -1, 64))
	field(h, strconv.Itoa(len(messages)))
	for _, m := range messages {
		field(h, m.Role)
		field(h, m.Content)
	}
	for _, e := range extra {
		field(h, e)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RequestKey is the cache key under which the client stores the answer to a chat request it
// sent (with any validation feedback removed), so a test server can tell which answers a
// checkpoint holds. It is "" for a request of no known task.
func RequestKey(req wire.ChatRequest) string {
	task := wire.RequestTask(req)
	var schema []byte
	if rf := req.ResponseFormat; rf != nil && rf.JSONSchema != nil {
		schema = rf.JSONSchema.Schema // the schema the client keys by, as it sent it
	} else if t, err := wire.LookupTask(task); err == nil {
		schema = t.Raw
	} else {
		return ""
	}
	msgs := make([]wire.Message, len(req.Messages))
	for i, m := range req.Messages {
		if m.Role == wire.RoleUser {
			m.Content = wire.StripFeedback(m.Content)
		}
		msgs[i] = m
	}
	f := wire.FormatJSONSchema
	if rf := req.ResponseFormat; rf != nil && rf.Type == "json_object" {
		f = wire.FormatJSONObject
		if len(rf.Schema) > 0 {
			f = wire.FormatJSONObjectSchema
		}
	}
	return CacheKey(req.Model, msgs, task, schema, req.Temperature, requestExtras(f, req.FrequencyPenalty)...)
}

// requestExtras are CacheKey's extra fields of a request in response format f with the given
// frequency penalty (no field when 0, so the keys of answers cached without one stay valid).
func requestExtras(f string, frequencyPenalty float64) []string {
	out := []string{"format=" + f}
	if frequencyPenalty != 0 {
		out = append(out, "frequency_penalty="+strconv.FormatFloat(frequencyPenalty, 'g', -1, 64))
	}
	return out
}

// field writes one length-prefixed field into h.
func field(h hash.Hash, s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }

// MemoryCache is a Cache in a map, safe for concurrent use. Entries are copied in and out.
type MemoryCache struct {
	mu      sync.Mutex
	entries map[string]CacheEntry
}

// NewMemoryCache returns an empty MemoryCache.
func NewMemoryCache() *MemoryCache { return &MemoryCache{entries: map[string]CacheEntry{}} }

// Get returns the entry stored under key.
func (m *MemoryCache) Get(_ context.Context, key string) (CacheEntry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	e.Response = append([]byte(nil), e.Response...)
	return e, ok, nil
}

// Put stores e under key, replacing any earlier entry.
func (m *MemoryCache) Put(_ context.Context, key string, e CacheEntry) error {
	e.Response = append([]byte(nil), e.Response...)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries[key] = e
	return nil
}

// Len is the number of stored entries.
func (m *MemoryCache) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}
