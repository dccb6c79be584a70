package llm

import (
	"time"

	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// DefaultTimeoutSeconds is llm.timeout_seconds when the job does not set it.
const DefaultTimeoutSeconds = 120

// Settings are the chat client's job keys (llm.*: what a request asks and how a call is
// retried), in the job's words and units. The endpoint, pacing, prices, cache, mode and batch
// keys of the section are declared by the code that reads them.
type Settings struct {
	Model            string
	Temperature      float64
	FrequencyPenalty float64 // 0 sends none
	MaxAttempts      int
	TimeoutSecs      float64 // per attempt; fractions allowed
	PromptsDir       string  // "" is the embedded prompts
	ResponseFormat   string  // one of wire.Formats
	// MaxTokens overrides the max_tokens of the tasks it names (default: sized per request from
	// the task and its input, Client.MaxTokens).
	MaxTokens map[string]int
}

// Declare declares the chat client's job keys on s's fields.
func (s *Settings) Declare(sec *options.Section) {
	sec.String(&s.Model, "model", "the model (`openai` needs it; provider `offline` names its own)")
	sec.Float(&s.Temperature, "temperature", "sampling temperature, 0 to 2", options.Max(2))
	sec.Float(&s.FrequencyPenalty, "frequency_penalty", "the requests' `frequency_penalty`, 0 to 2 (0: not sent). Small "+
		"local models answering with a grammar can repeat one list item until `max_tokens` (bench/results.md, eval-local)",
		options.Max(2))
	sec.Int(&s.MaxAttempts, "max_attempts", "HTTP attempts per call", options.Default(transport.DefaultMaxAttempts), options.Max(100))
	sec.Float(&s.TimeoutSecs, "timeout_seconds", "per attempt, fractions allowed", options.Default(DefaultTimeoutSeconds),
		options.Max(86400))
	sec.String(&s.PromptsDir, "prompts_dir", "directory of `<task>.system.tmpl` / `<task>.user.tmpl` files that replace the "+
		"embedded prompts", options.Empty("the embedded prompts"))
	sec.String(&s.ResponseFormat, "response_format", "how a request asks for structured output: `json_schema` (`{type: "+
		"json_schema, json_schema: {name, strict, schema}}`: OpenAI, Azure, vLLM, Ollama, LM Studio, OpenRouter), "+
		"`json_object_schema` (`{type: json_object, schema}`, with `maxLength` caps on free-text strings: llama.cpp's "+
		"servers, which answer `json_schema` with HTTP 500), `grammar` (no response_format but a GBNF `grammar` of "+
		"compact JSON with the same caps: llama.cpp's servers; llama-server's own JSON-schema grammar lets a small "+
		"model indent and break lines, a third of its answer tokens) or `json_object` (`{type: json_object}`, the schema written "+
		"into the system message). Answers are validated locally in every format", options.Default(wire.FormatJSONSchema),
		options.Check(func() error { return wire.CheckFormat(s.ResponseFormat) }))
	sec.IntMap(&s.MaxTokens, "max_tokens", "`{TASK: N}` fixed `max_tokens` of the tasks named. An answer cut at the limit "+
		"(`finish_reason: length`) is asked again once with twice the limit before it counts as invalid",
		options.DefaultText("each request gets its task's base plus a share of its input's estimated tokens, at most 8192; "+
			"see `llm/limits.go`"),
		options.Check(func() error { return CheckMaxTokens(s.MaxTokens) }))
}

// Options are the client's options of the settings; the endpoint, key, pacer, budget, prices
// and log are the caller's.
func (s *Settings) Options() Options {
	return Options{Model: s.Model, Temperature: s.Temperature, FrequencyPenalty: s.FrequencyPenalty,
		MaxAttempts: s.MaxAttempts, Timeout: seconds(s.TimeoutSecs), ResponseFormat: s.ResponseFormat, MaxTokens: s.MaxTokens}
}

// seconds is a duration of s seconds (fractions allowed).
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
