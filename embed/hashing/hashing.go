package hashing

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// Model is the model name the hashing embedder reports.
const Model = "hashing-v1"

// DefaultDims is the vector size of an Embedder whose Dims is zero.
const DefaultDims = 256

// Embedder is an offline embedder: feature hashing of lower-cased word tokens and character
// 3-grams (FNV-1a, signed buckets), L2-normalised. It needs no model and no network, works on
// runes (so Korean and other scripts hash by character, not by byte), and gives similar strings
// a high cosine similarity. It is a baseline for mechanics, not a semantic embedding.
type Embedder struct {
	Dims int // vector size; 0 means DefaultDims
}

// Embed returns one L2-normalised vector per text, in input order. An empty text (no letters or
// digits) gets the zero vector.
func (h Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	dims := h.Dimensions()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("hashing text %d: %w", i, err)
		}
		out[i] = hashVector(t, dims)
	}
	return out, nil
}

// Dimensions is the vector size.
func (h Embedder) Dimensions() int {
	if h.Dims <= 0 {
		return DefaultDims
	}
	return h.Dims
}

// Model is the model name, "hashing-v1".
func (h Embedder) Model() string { return Model }

// Feature weights: whole words count more than their 3-grams.
const (
	wordWeight    = 1.0
	trigramWeight = 0.5
)

// hashVector builds the normalised vector of one text.
func hashVector(text string, dims int) []float32 {
	acc := make([]float64, dims)
	for _, tok := range wordTokens(text) {
		addFeature(acc, "w\x00"+tok, wordWeight)
		runes := []rune(" " + tok + " ")
		for i := 0; i+3 <= len(runes); i++ {
			addFeature(acc, "g\x00"+string(runes[i:i+3]), trigramWeight)
		}
	}
	var norm float64
	for _, v := range acc {
		norm += v * v
	}
	vec := make([]float32, dims)
	if norm == 0 {
		return vec
	}
	norm = math.Sqrt(norm)
	for i, v := range acc {
		vec[i] = float32(v / norm)
	}
	return vec
}

// addFeature adds weight to the feature's bucket, with a sign taken from another bit of its hash
// so that collisions cancel out on average.
func addFeature(acc []float64, feature string, weight float64) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	sum := h.Sum64()
	bucket := int(sum % uint64(len(acc)))
	if sum>>63 == 1 {
		weight = -weight
	}
	acc[bucket] += weight
}

// wordTokens splits a lower-cased text into runs of letters and digits.
func wordTokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
