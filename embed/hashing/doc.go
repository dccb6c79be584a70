// Package hashing is the offline embedder: feature hashing of words and character 3-grams into
// a fixed number of dimensions, with no model and no network. It satisfies embed.Embedder and
// backs the offline provider's /v1/embeddings (providers/offline); it imports nothing of the
// project, so both the embeddings client and the providers can use it.
//
// Contract:
//   - Embed returns one L2-normalised vector of Dimensions() floats per text, in input order;
//     a text with no letters or digits gets the zero vector.
//   - The same text and Dims always give the same vector.
//   - Model() is "hashing-v1"; Dims 0 means DefaultDims (256).
//   - It is a baseline for mechanics (similar strings get a high cosine), not a semantic
//     embedding.
package hashing
