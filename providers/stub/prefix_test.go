package stub

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/wire"
)

// The stub reports as cached the whole blocks of a prompt that an earlier request of the same
// model sent first, from the minimum on; Stats adds them up, and the client counts them.
func TestPrefixCache(t *testing.T) {
	s, srv := start(t, Options{PrefixCache: PrefixCache{Min: 32, Block: 16}})
	cached := func(body []byte) (int, int) {
		t.Helper()
		code, _, out := post(t, srv, "/v1/chat/completions", body)
		var resp wire.ChatResponse
		if code != 200 || json.Unmarshal(out, &resp) != nil || resp.Usage == nil || resp.Usage.PromptTokensDetails == nil {
			t.Fatalf("answer %d %s", code, out)
		}
		return resp.Usage.PromptTokensDetails.CachedTokens, resp.Usage.PromptTokens
	}
	first := chatBody(t, "Alice works at Naver.")
	if c, _ := cached(first); c != 0 {
		t.Errorf("first request: %d cached tokens", c)
	}
	c, prompt := cached(chatBody(t, strings.Repeat("Bob lives in Busan. ", 20)))
	var req wire.ChatRequest
	_ = json.Unmarshal(first, &req)
	system := (len(req.Messages[0].Role) + 1 + len(req.Messages[0].Content) + 1) / 4 // the shared system message, in tokens
	if c%16 != 0 || c < system/16*16 || c >= prompt-16 {
		t.Errorf("same system message: %d cached of %d, want the %d tokens of the system message (and the user message's start) in blocks of 16",
			c, prompt, system)
	}
	again, prompt := cached(first)
	if again < prompt-16 || again%16 != 0 {
		t.Errorf("a repeated request: %d cached of %d", again, prompt)
	}
	other := strings.Replace(string(first), `"model":"m"`, `"model":"other"`, 1)
	if c, _ := cached([]byte(other)); c != 0 {
		t.Errorf("another model: %d cached tokens", c)
	}
	st := s.Stats()
	if st.CachedPromptTokens != int64(c+again) || st.PrefixSharedTokens != st.CachedPromptTokens {
		t.Errorf("stats: cached %d, shared %d, want %d", st.CachedPromptTokens, st.PrefixSharedTokens, c+again)
	}

	// The json_schema format's schema comes first in the prefix, as OpenAI caches it: the same
	// messages under another schema share nothing; the schema is billed as prompt.
	s, srv = start(t, Options{PrefixCache: PrefixCache{Min: 16, Block: 16}})
	cached(first)
	reschema := strings.Replace(string(first), `"type":"object"`, `"type": "object"`, 1)
	if reschema == string(first) {
		t.Fatal("no schema to change")
	}
	if c, _ := cached([]byte(reschema)); c != 0 {
		t.Errorf("another schema: %d cached tokens", c)
	}
	if c, p := cached(first); c < 16*((len(req.ResponseFormat.PromptSchema())+system*4)/64) || p < len(req.ResponseFormat.PromptSchema())/4 {
		t.Errorf("the same schema and messages again: %d cached of %d prompt tokens", c, p)
	}

	// Below the minimum nothing is reported cached, though the stats count the shared blocks.
	s, srv = start(t, Options{PrefixCache: PrefixCache{Min: 100000, Block: 16}})
	cached(first)
	if c, _ := cached(first); c != 0 {
		t.Errorf("below the minimum: %d cached tokens", c)
	}
	if st := s.Stats(); st.CachedPromptTokens != 0 || st.PrefixSharedTokens == 0 {
		t.Errorf("stats below the minimum: %+v", st)
	}

	// Through the client, the usage counts them.
	s, srv = start(t, Options{PrefixCache: OpenAIPrefixCache})
	c2 := llm.NewClient(llm.Options{BaseURL: srv.URL + "/v1", Model: "m"}, srv.Client(), nil, nil)
	long := strings.Repeat("Alice works at Naver and lives in Seoul. ", 200)
	for i := range 2 {
		var out wire.NameOutput
		if err := c2.Call(t.Context(), "community", wire.TaskNameCommunity, wire.NameInput{Summary: long + strings.Repeat("x", i)}, &out); err != nil {
			t.Fatal(err)
		}
	}
	if u := c2.Usage().Total; u.CachedTokens < 1024 || u.CachedTokens != s.Stats().CachedPromptTokens {
		t.Errorf("client usage: %d cached tokens, stub %d", u.CachedTokens, s.Stats().CachedPromptTokens)
	}
}
