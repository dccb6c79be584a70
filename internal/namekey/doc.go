// Package namekey is the one rule for comparing entity names: Normalize gives a name's
// comparison key (NFKC case folding, invisible characters dropped, whitespace collapsed,
// surrounding punctuation trimmed; idempotent), Stems the keys a Korean name may stand for with
// a particle stripped (StripParticle), and Entropy/Ambiguous the gate that keeps names too
// short or repetitive to merge on their own. Resolution clusters entities by these keys; the
// graph diff, the evaluation's gold matching and `backfill entities` compare names with the same
// functions, so every part of the tree agrees on when two names are the same.
package namekey
