// Package cache is what the LLM answer cache holds: an Entry is one answer (a chat answer's JSON
// or an embedding's packed float32s) with the namespace and the token usage of the call that
// paid for it; Keyed pairs it with its key. The checkpoint store keeps entries in its llm_cache
// table (Get and Put); Memory is the same in a map. The chat client, the embeddings client and
// batch delivery write entries (delivery in one transaction with the batch rows it settles, so
// the entry type sits below all three); each client declares the Get/Put it consumes.
//
// Contract:
//   - An entry holds only an answer that passed validation; Get reports a miss as
//     (zero, false, nil).
//   - Field writes one length-prefixed field ("len:s;") into a hash: every key of the LLM layer
//     (the chat cache key, the embedding key, a batch request's key, a task version) is built
//     from such fields, so no two different inputs share a key.
package cache
