package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/tkgraph/backfill/llm/cache"
)

// Stage and Task are the stage and task the client's usage counts under, as the run report
// counts it: every stage's embeddings are the embed stage's (jobs/pipeline.Clients.Usage).
const (
	Stage = "embed"
	Task  = "embeddings"
)

// Embedder turns texts into vectors, one per text, in input order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dimensions() int
	Model() string
}

// Cache stores vectors by key: the checkpoint store (its llm_cache table), or cache.Memory.
// Get reports a miss as (zero, false, nil).
type Cache interface {
	Get(ctx context.Context, key string) (cache.Entry, bool, error)
	Put(ctx context.Context, key string, e cache.Entry) error
}

// CacheKey is the sha256 (hex) of a text's embedding identity: model, dimensions and text.
func CacheKey(model string, dims int, text string) string {
	h := sha256.New()
	for _, s := range []string{"embed-v1", model, fmt.Sprint(dims), text} {
		cache.Field(h, s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// packVector encodes v as little-endian float32s, the cache's storage form.
func packVector(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

// unpackVector decodes packVector's output; ok is false for a malformed length.
func unpackVector(b []byte) ([]float32, bool) {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, true
}
