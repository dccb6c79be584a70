// Package vectors is arithmetic on embedding vectors that the write side (the embedder) and the
// read side (evaluation's search) share: a leaf, so that reading a graph's vectors needs no
// embedding client.
package vectors
