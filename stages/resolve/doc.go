// Package resolve is the resolve stage: one unit per group. It clusters every entity mention of
// the group's extractions and writes the group's entities and MENTIONS edges, then maps every
// extracted fact to its canonical endpoints and de-duplicates facts between the same endpoints.
// The de-duplicated facts, in group order, are the unit's output for the temporal stage.
//
// Clustering (Resolve lists the passes): exact namekey.Normalize key (NFKC, case folding, whitespace,
// surrounding punctuation); Korean particles compared, not stripped (a name meets its stem only
// when the stem is itself a name of the group, so "이지은" stays whole and "지훈은" meets "지훈");
// the same words in another order; character 3-gram MinHash (Jaccard ≥ 0.9); name-embedding
// cosine (≥ 0.92 merges). Names that fail the entropy gate (namekey.Ambiguous) or whose ontology types
// disagree never merge automatically. Pairs in the grey zone (contained or cross-script names
// such as "Seoyeon" / "Seoyeon Park" / "서연", cosine ≥ 0.8, shared unattested stems) go to the
// LLM (wire.TaskResolveEntities) in batches, as pairs of clusters; union-find makes merges
// transitive. Facts: exact normalized text between the same endpoints merges; similar facts
// (3-gram Jaccard ≥ 0.5 or embedding cosine ≥ 0.85) go to the LLM (wire.TaskDedupeFacts); a merged
// fact keeps the earliest statement, and its episodes list starts with the creating episode. A
// fact the extraction cites to a previous episode (stages.Extraction.Quoted: its sentence repeats
// that episode) is that episode's fact: its episode, reference time and place in the group order.
//
// Ids: an entity's uuid is graph.EntityID(group, canonical key), the canonical key being the
// Normalize key of the cluster's earliest mention (or its stem, when the bare stem is in the
// cluster). A group is re-resolved from all its cached extractions whenever one changes, which
// gives the same ids. The LLM's answers are kept per group in a Memo (stored under MemoStage in
// the unit's transaction), so a re-run asks nothing and an incremental run asks only about pairs
// it has not seen; memo merges are applied before new pairs are formed, so a new spelling is
// compared with the entity earlier runs assembled.
//
// Ontology: a cluster's label is the ontology type its mentions were given most often (a custom
// type wins over "Entity"; types outside the ontology are ignored); its attributes are that
// type's attributes as extracted, the latest value winning. Mentions of excluded types are dropped
// with the facts that name them. A fact whose predicate is an edge type of the ontology but whose
// endpoints carry labels the edge type does not allow becomes RELATES_TO.
//
// Declared facts (stages.Extraction.Declared, from sources[].facts) are not clustered as facts: their
// subjects and objects join the name table (before the episode's LLM mentions, with the
// declarations' types) and resolve with LLM mentions as usual; then declaredFacts walks each
// object's snapshots in group order: a state pair opens a fact (Fact.Declared) at the first
// snapshot that shows it, valid from its reference time, and every later snapshot of the same
// object whose declaration no longer shows it, up to one that shows it again (which opens a new
// fact), is one of the fact's Closures (that snapshot's episode, reference time and record
// time); a snapshot lacking the declaration's fields closes nothing; an event pair is a fact of
// its snapshot. A declared fact's id is
// graph.DeclaredFactID (object and first episode included), so a pair that returns after it was
// closed is a new fact. Declared facts are merged into the group's facts in group order.
//
// Nothing crosses groups: a unit reads and writes one group only.
//
// Batch mode: up to 3 waves (the entity pairs, then the fact pairs, which depend on the merged
// entities, then the commit); 5 when the embedder sends batches too (the name embeddings before
// the entity pairs, the fact embeddings before the fact pairs).
package resolve
