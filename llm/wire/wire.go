package wire

import "encoding/json"

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message on the wire.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is the body of POST {base_url}/chat/completions.
type ChatRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens,omitempty"` // the answer's length limit (MaxTokens)
	// FrequencyPenalty lowers the odds of a token by how often the answer already holds it
	// (OpenAI's and llama.cpp's -2..2); 0 is not sent.
	FrequencyPenalty float64         `json:"frequency_penalty,omitempty"`
	ResponseFormat   *ResponseFormat `json:"response_format,omitempty"`
	// Grammar is the GBNF the answer must follow (FormatGrammar, llama.cpp's extension).
	Grammar string `json:"grammar,omitempty"`
}

// ResponseFormat asks for structured output in one of the Formats:
// {"type":"json_schema","json_schema":{…}}, {"type":"json_object","schema":{…}} or
// {"type":"json_object"}.
type ResponseFormat struct {
	Type       string          `json:"type"`
	JSONSchema *JSONSchema     `json:"json_schema,omitempty"`
	Schema     json.RawMessage `json:"schema,omitempty"` // FormatJSONObjectSchema
}

// JSONSchema names the schema the answer must follow; Name is the task name.
type JSONSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

// ChatResponse is the body of a successful chat completions answer.
type ChatResponse struct {
	ID      string      `json:"id,omitempty"`
	Model   string      `json:"model,omitempty"`
	Choices []Choice    `json:"choices"`
	Usage   *TokenUsage `json:"usage,omitempty"`
}

// Choice is one completion; the client reads the first.
type Choice struct {
	Index        int         `json:"index"`
	Message      ChatMessage `json:"message"`
	FinishReason string      `json:"finish_reason,omitempty"` // "length" when max_tokens cut the answer
}

// FinishLength is the finish_reason of an answer cut by max_tokens.
const FinishLength = "length"

// ChatMessage is the assistant message of a choice.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Refusal string `json:"refusal,omitempty"`
}

// TokenUsage is the usage block of chat and embeddings answers.
type TokenUsage struct {
	PromptTokens            int                      `json:"prompt_tokens"`
	CompletionTokens        int                      `json:"completion_tokens"`
	TotalTokens             int                      `json:"total_tokens,omitempty"`
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
}

// PromptTokensDetails splits prompt tokens; cached tokens were served from the provider's
// prompt cache and are billed at a discount.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// CompletionTokensDetails splits completion tokens; reasoning tokens are billed as completion.
type CompletionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// EmbeddingsRequest is the body of POST {base_url}/embeddings.
type EmbeddingsRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format,omitempty"` // "float"
}

// EmbeddingsResponse is the body of a successful embeddings answer.
type EmbeddingsResponse struct {
	Data  []EmbeddingData `json:"data"`
	Model string          `json:"model,omitempty"`
	Usage *TokenUsage     `json:"usage,omitempty"`
}

// EmbeddingData is one vector; Index is the position of its text in the request.
type EmbeddingData struct {
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// ErrorResponse is the error body of OpenAI-compatible servers: {"error":{…}}.
type ErrorResponse struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"` // a string on OpenAI, a number on some servers
	} `json:"error"`
}
