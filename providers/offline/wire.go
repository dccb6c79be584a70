package offline

import (
	"encoding/json"
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
)

// chatRequest is the part of an OpenAI chat completions request the responder reads.
type chatRequest struct {
	Model          string               `json:"model"`
	Messages       []chatMessage        `json:"messages"`
	ResponseFormat *wire.ResponseFormat `json:"response_format"`
	Grammar        string               `json:"grammar"`
}

// chatMessage is one request message; content is a string or a list of {type, text} parts.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns the message content as one string.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// taskName is the task the request asks (wire.TaskOf: the json_schema name, the schema, or
// the task the system message names), or "" when it names none.
func (r chatRequest) taskName() string {
	if r.Grammar != "" {
		return wire.GrammarTask(r.Grammar)
	}
	var name, system string
	var schema json.RawMessage
	if rf := r.ResponseFormat; rf != nil {
		schema = rf.Schema
		if rf.JSONSchema != nil {
			name = rf.JSONSchema.Name
		}
	}
	if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
		system = r.Messages[0].text()
	}
	return wire.TaskOf(name, schema, system)
}

// chatResponse is an OpenAI chat completions answer with one choice.
type chatResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   usage        `json:"usage"`
}

type chatChoice struct {
	Index   int `json:"index"`
	Message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// embeddingsRequest is an OpenAI embeddings request; input is a string or a list of strings.
type embeddingsRequest struct {
	Model      string          `json:"model"`
	Input      json.RawMessage `json:"input"`
	Dimensions int             `json:"dimensions"`
}

type embeddingsResponse struct {
	Object string          `json:"object"`
	Data   []embeddingData `json:"data"`
	Model  string          `json:"model"`
	Usage  usage           `json:"usage"`
}

type embeddingData struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// errorBody is the OpenAI error shape: {"error":{message,type,param,code}}.
type errorBody struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    string  `json:"code"`
	} `json:"error"`
}

// estimateTokens is the token estimate of a text: ceil(bytes / 4).
func estimateTokens(s string) int { return (len(s) + 3) / 4 }
