package offline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tkgraph/backfill/embed/hashing"
)

// Model is the chat model a job with llm.provider offline names when it names none.
const Model = "offline-rules-v1"

// maxBody bounds the size of a request body the handler reads.
const maxBody = 32 << 20

// Options configures the handler.
type Options struct {
	// Dims is the embedding size used when a request names no dimensions; 0 means 256.
	Dims int
}

// NewHandler returns an http.Handler that serves POST …/chat/completions and POST …/embeddings in
// the OpenAI wire format, answering the tasks of package llm/wire with deterministic rules. Paths are
// matched by suffix, so base URLs with or without /v1 work.
func NewHandler(opts Options) http.Handler {
	return &handler{dims: opts.Dims}
}

type handler struct {
	dims int
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	var serve func(context.Context, http.ResponseWriter, []byte)
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		serve = h.serveChat
	case strings.HasSuffix(path, "/embeddings"):
		serve = h.serveEmbeddings
	default:
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "use POST")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "reading body: "+err.Error())
		return
	}
	if len(body) > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "request_too_large", "body larger than 32 MiB")
		return
	}
	serve(r.Context(), w, body)
}

// serveChat answers one chat completions request.
func (h *handler) serveChat(_ context.Context, w http.ResponseWriter, body []byte) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_json", "decoding request: "+err.Error())
		return
	}
	task := req.taskName()
	if !knownTask(task) {
		writeError(w, http.StatusBadRequest, "unknown_task",
			fmt.Sprintf("offline responder: unknown task %q (response_format names no task of package llm)", task))
		return
	}
	raw, err := taskInput(req.Messages)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_input", err.Error())
		return
	}
	content, err := answer(task, raw)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_input", err.Error())
		return
	}
	prompt := len(req.ResponseFormat.PromptSchema()) // billed as prompt, as OpenAI does
	for _, m := range req.Messages {
		prompt += len(m.text())
	}
	sum := sha256.Sum256([]byte(content))
	resp := chatResponse{
		ID:      "chatcmpl-offline-" + hex.EncodeToString(sum[:8]),
		Object:  "chat.completion",
		Model:   req.Model,
		Choices: make([]chatChoice, 1),
		Usage: usage{
			PromptTokens:     (prompt + 3) / 4,
			CompletionTokens: estimateTokens(content),
		},
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	resp.Choices[0].Message.Role = "assistant"
	resp.Choices[0].Message.Content = content
	resp.Choices[0].FinishReason = "stop"
	writeJSON(w, http.StatusOK, resp)
}

// serveEmbeddings answers one embeddings request with the hashing embedder.
func (h *handler) serveEmbeddings(ctx context.Context, w http.ResponseWriter, body []byte) {
	var req embeddingsRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_json", "decoding request: "+err.Error())
		return
	}
	texts, err := embeddingInputs(req.Input)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_input", err.Error())
		return
	}
	dims := req.Dimensions
	if dims <= 0 {
		dims = h.dims
	}
	if dims > 65536 {
		writeError(w, http.StatusBadRequest, "invalid_dimensions", "dimensions must be at most 65536")
		return
	}
	hasher := hashing.Embedder{Dims: dims}
	model := req.Model
	if model == "" {
		model = hasher.Model()
	}
	vecs, err := hasher.Embed(ctx, texts)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "cancelled", err.Error())
		return
	}
	resp := embeddingsResponse{Object: "list", Model: model, Data: make([]embeddingData, len(texts))}
	for i, t := range texts {
		resp.Data[i] = embeddingData{Object: "embedding", Index: i, Embedding: vecs[i]}
		resp.Usage.PromptTokens += estimateTokens(t)
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	writeJSON(w, http.StatusOK, resp)
}

// embeddingInputs decodes the input field: a string or a non-empty list of strings.
func embeddingInputs(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("input must be a string or a list of strings")
	}
	if len(many) == 0 {
		return nil, errors.New("input must not be empty")
	}
	return many, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		status, raw = http.StatusInternalServerError, []byte(`{"error":{"message":"encoding answer","type":"server_error","param":null,"code":"internal"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(raw)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var e errorBody
	e.Error.Message, e.Error.Code = msg, code
	e.Error.Type = "invalid_request_error"
	if status >= 500 {
		e.Error.Type = "server_error"
	}
	writeJSON(w, status, e)
}
