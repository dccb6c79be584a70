package cache

import (
	"context"
	"fmt"
	"hash"
	"sync"
)

// Entry is one cached answer with the usage of the call that produced it.
type Entry struct {
	Namespace        string // the stage that made the call ("embed" for embeddings)
	Response         []byte // the answer content (JSON for chat, packed float32 for embeddings)
	PromptTokens     int
	CompletionTokens int
}

// Keyed is an entry with its key.
type Keyed struct {
	Key   string
	Entry Entry
}

// Field writes one length-prefixed field into h: "len:s;". Every key of the LLM layer (a chat
// answer's, an embedding's, a batch request's, a task version) hashes its parts this way, so no
// two different inputs share a key.
func Field(h hash.Hash, s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }

// Memory is a cache in a map (Get and Put like the checkpoint store), safe for concurrent use.
// Entries are copied in and out.
type Memory struct {
	mu      sync.Mutex
	entries map[string]Entry
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{entries: map[string]Entry{}} }

// Get returns the entry stored under key.
func (m *Memory) Get(_ context.Context, key string) (Entry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	e.Response = append([]byte(nil), e.Response...)
	return e, ok, nil
}

// Put stores e under key, replacing any earlier entry.
func (m *Memory) Put(_ context.Context, key string, e Entry) error {
	e.Response = append([]byte(nil), e.Response...)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries[key] = e
	return nil
}

// Len is the number of stored entries.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}
