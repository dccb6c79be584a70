package stub

import (
	"encoding/json"
	"slices"

	"github.com/tkgraph/backfill/llm/wire"
)

// Kinds of bad answers: what a weak model writes. Unlike faults they are the same on every
// attempt of a logical request, so the client's validation retries and its length retry meet
// them again and the call fails.
const (
	BadTruncated = "truncated" // the first third of the answer, finish_reason "length"
	BadMalformed = "malformed" // the first half of the answer, finish_reason "stop"
	BadEmpty     = "empty"     // an empty content, finish_reason "stop"
)

// AllBadKinds lists every bad-answer kind, in the order the hash picks from.
func AllBadKinds() []string { return []string{BadTruncated, BadMalformed, BadEmpty} }

// pickBad decides the bad-answer kind of a logical request ("" for a good answer): a share
// BadRate of the requests of the BadTasks (every task when empty), fixed by the seed and the
// request alone.
func (s *Server) pickBad(key [32]byte, task string) string {
	if s.opts.BadRate <= 0 || (len(s.opts.BadTasks) > 0 && !slices.Contains(s.opts.BadTasks, task)) {
		return ""
	}
	if s.roll(key, 0, "bad") >= s.opts.BadRate {
		return ""
	}
	kinds := s.opts.BadKinds
	i := int(s.roll(key, 0, "bad-kind") * float64(len(kinds)))
	return kinds[min(i, len(kinds)-1)]
}

// spoil rewrites a good chat answer into a bad one of the given kind, keeping its envelope and
// usage.
func spoil(body []byte, kind string) []byte {
	var resp map[string]any
	if json.Unmarshal(body, &resp) != nil {
		return body
	}
	choices, _ := resp["choices"].([]any)
	if len(choices) == 0 {
		return body
	}
	choice, _ := choices[0].(map[string]any)
	msg, _ := choice["message"].(map[string]any)
	if msg == nil {
		return body
	}
	content, _ := msg["content"].(string)
	switch kind {
	case BadTruncated:
		msg["content"] = content[:len(content)/3]
		choice["finish_reason"] = wire.FinishLength
	case BadMalformed:
		msg["content"] = content[:len(content)/2]
	case BadEmpty:
		msg["content"] = ""
	}
	out, err := json.Marshal(resp)
	if err != nil {
		return body
	}
	return out
}
