package resolve

import (
	"context"
	"fmt"
	"math"
)

// embeddings compares the name embeddings of every pair of names: a cosine of at least
// Options.EmbeddingThreshold merges two strong names of compatible types, and a cosine of at
// least Options.GreyThreshold (or a merge-level cosine of weak or differently typed names) makes
// a grey-zone pair. Names are embedded by their first spelling, the text the embed stage embeds
// for an entity, so the embedder's cache serves both. Groups of fewer than 2000 names compare
// all pairs; larger ones only the random-hyperplane LSH candidates (candidatePairs). When the
// embeddings answer stays bad, the pass is left out and the group fails (it runs again).
func (r *resolver) embeddings(ctx context.Context) error {
	if r.env.Embedder == nil || len(r.n.keys) < 2 || r.opts.GreyThreshold >= 1 && r.opts.EmbeddingThreshold >= 1 {
		return nil
	}
	vecs, err := r.env.Embedder.Embed(ctx, r.n.spell)
	if err != nil {
		if r.bad.Absorb(err) == nil {
			return nil // a bad answer: no embedding pass, and the group fails (stages.Degraded)
		}
		return fmt.Errorf("embedding names: %w", err)
	}
	if len(vecs) != len(r.n.spell) {
		return fmt.Errorf("embedding names: %d vectors for %d names", len(vecs), len(r.n.spell))
	}
	unit := normalized(vecs)
	candidatePairs(unit, func(i, j int) {
		cos := dot(unit[i], unit[j])
		switch {
		case cos >= r.opts.EmbeddingThreshold && r.opts.EmbeddingThreshold < 1:
			r.mergeOrGrey(i, j, cos)
		case cos >= r.opts.GreyThreshold && r.opts.GreyThreshold < 1:
			r.addGrey(i, j, cos)
		}
	})
	return nil
}

// normalized returns the vectors scaled to length 1; a zero or malformed vector becomes nil.
func normalized(vecs [][]float32) [][]float32 {
	out := make([][]float32, len(vecs))
	dims := -1
	for i, v := range vecs {
		if dims < 0 {
			dims = len(v)
		}
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		if s == 0 || len(v) != dims || math.IsNaN(s) || math.IsInf(s, 0) {
			continue
		}
		inv := 1 / math.Sqrt(s)
		u := make([]float32, len(v))
		for k, x := range v {
			u[k] = float32(float64(x) * inv)
		}
		out[i] = u
	}
	return out
}

// dot is the dot product of two vectors of the same length.
func dot(a, b []float32) float64 {
	var s float64
	for k := range a {
		s += float64(a[k]) * float64(b[k])
	}
	return s
}
