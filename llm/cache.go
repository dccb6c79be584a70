package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/wire"
)

// Cache stores valid LLM answers by content key. The checkpoint store satisfies it with a
// SQLite table; cache.Memory is an in-memory version. Get reports a miss as (zero, false, nil).
type Cache interface {
	Get(ctx context.Context, key string) (cache.Entry, bool, error)
	Put(ctx context.Context, key string, e cache.Entry) error
}

// CacheKey is the sha256 (hex) of everything that determines a chat answer: the model, the
// rendered messages, the schema name and text, the temperature and any extra request options.
// Every field is length-prefixed, so no two different inputs share a key.
func CacheKey(model string, messages []wire.Message, schemaName string, schema []byte, temperature float64, extra ...string) string {
	h := sha256.New()
	cache.Field(h, "chat-v1")
	cache.Field(h, model)
	cache.Field(h, schemaName)
	cache.Field(h, string(schema))
	cache.Field(h, strconv.FormatFloat(temperature, 'g', -1, 64))
	cache.Field(h, strconv.Itoa(len(messages)))
	for _, m := range messages {
		cache.Field(h, m.Role)
		cache.Field(h, m.Content)
	}
	for _, e := range extra {
		cache.Field(h, e)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RequestKey is the cache key under which the client stores the answer to a chat request it
// sent (with any validation feedback removed), so a test server can tell which answers a
// checkpoint holds. It is "" for a request of no known task.
func RequestKey(req wire.ChatRequest) string {
	task := wire.RequestTask(req)
	t, err := wire.LookupTask(task)
	var schema []byte
	switch {
	case req.ResponseFormat != nil && req.ResponseFormat.JSONSchema != nil:
		schema = req.ResponseFormat.JSONSchema.Schema // the schema the client keys by, as it sent it
	case err == nil:
		schema = t.Raw
	default:
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
	if req.Grammar != "" {
		f = wire.FormatGrammar
	}
	if rf := req.ResponseFormat; rf != nil && rf.Type == "json_object" {
		f = wire.FormatJSONObject
		if len(rf.Schema) > 0 {
			f = wire.FormatJSONObjectSchema
		}
	}
	variant := ""
	if err == nil {
		variant = t.GrammarVariant
	}
	return CacheKey(req.Model, msgs, task, schema, req.Temperature, requestExtras(f, req.FrequencyPenalty, variant)...)
}

// requestExtras are CacheKey's extra fields of a request in response format f with the given
// frequency penalty (no field when 0, so the keys of answers cached without one stay valid) and,
// in FormatGrammar, the task's grammar variant (wire.Task.GrammarVariant; none for a task's own
// grammar).
func requestExtras(f string, frequencyPenalty float64, grammarVariant string) []string {
	out := []string{"format=" + f}
	if frequencyPenalty != 0 {
		out = append(out, "frequency_penalty="+strconv.FormatFloat(frequencyPenalty, 'g', -1, 64))
	}
	if f == wire.FormatGrammar && grammarVariant != "" {
		out = append(out, "grammar="+grammarVariant)
	}
	return out
}
