package stub

import (
	"crypto/sha256"
	"encoding/json"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

// PrefixCache is the provider prompt cache the stub imitates: a request's prompt tokens are
// cached up to the longest prefix, in whole Blocks, that an earlier chat request of the same
// model sent, when that prefix is at least Min tokens. Tokens are the stub's measure: bytes ÷ 4
// of the json_schema response format's schema (as OpenAI, which caches it before the system
// message) and then the messages' contents, read in order, each after its role. OpenAI documents Min 1024
// and Block 128 (OpenAIPrefixCache).
type PrefixCache struct {
	Min   int // tokens; a shorter cached prefix counts as none
	Block int // tokens; 0 turns the cache off
}

// OpenAIPrefixCache is OpenAI's documented rule (pacing.OpenAIPromptCache): prompts of 1,024
// tokens or more, cached in increments of 128 tokens.
var OpenAIPrefixCache = PrefixCache{Min: pacing.OpenAIPromptCache.Min, Block: pacing.OpenAIPromptCache.Block}

// maxPrefixBlocks bounds the blocks the stub remembers; past it the memory starts afresh.
const maxPrefixBlocks = 1 << 20

// prefixes remembers the prefix blocks seen, as a chain of hashes (a block's hash covers every
// byte before it); the Server's mutex guards it.
type prefixes struct {
	rule PrefixCache
	seen map[[32]byte]bool
}

// lookup returns how many prompt tokens of a chat request are cached under the rule (with no
// minimum as shared, for Stats.PrefixSharedTokens), and remembers its blocks.
func (p *prefixes) lookup(body []byte) (cached, shared int) {
	if p.rule.Block <= 0 {
		return 0, 0
	}
	var req wire.ChatRequest
	if json.Unmarshal(body, &req) != nil {
		return 0, 0
	}
	text := wire.PromptPrefix(req.ResponseFormat.PromptSchema(), req.Messages) // OpenAI's prefix starts with the schema
	size := 4 * p.rule.Block
	if p.seen == nil || len(p.seen) > maxPrefixBlocks {
		p.seen = map[[32]byte]bool{}
	}
	h := sha256.Sum256([]byte(req.Model))
	hit := true
	for k := 0; (k+1)*size <= len(text); k++ {
		buf := append(h[:], text[k*size:(k+1)*size]...)
		h = sha256.Sum256(buf)
		if hit && p.seen[h] {
			shared += p.rule.Block
		} else {
			hit = false
		}
		p.seen[h] = true
	}
	if shared >= p.rule.Min {
		cached = shared
	}
	return cached, shared
}

// withCached writes cached into the usage of a chat answer (usage.prompt_tokens_details).
func withCached(body []byte, cached int) []byte {
	var resp map[string]json.RawMessage
	if json.Unmarshal(body, &resp) != nil {
		return body
	}
	var u map[string]json.RawMessage
	if json.Unmarshal(resp["usage"], &u) != nil || u == nil {
		return body
	}
	u["prompt_tokens_details"], _ = json.Marshal(map[string]int{"cached_tokens": cached})
	resp["usage"], _ = json.Marshal(u)
	out, err := json.Marshal(resp)
	if err != nil {
		return body
	}
	return out
}
