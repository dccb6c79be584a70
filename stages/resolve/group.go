package resolve

import (
	"context"
	"log/slog"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/namekey"
	"github.com/tkgraph/backfill/internal/unionfind"
	"github.com/tkgraph/backfill/stages"
)

// Result is the resolution of one group.
type Result struct {
	Entities []graph.Entity
	Mentions []graph.Mention
	Facts    []Fact // de-duplicated, in group order
	Memo     *Memo  // the LLM answers this resolution used, to store for the next run
	Stats    Stats
	// Bad holds the calls whose answers stayed bad: their pairs stayed apart and are not in
	// Memo, and the group unit is committed as failed (stages.Commit), to ask again next run.
	Bad *stages.Degraded
}

// Stats counts the work of one group's resolution.
type Stats struct {
	Names       int // distinct normalized names
	Entities    int // entities after resolution
	EntityPairs int // pairs of clusters in the grey zone
	EntityAsked int // of those, sent to the LLM (the others were answered by the memo)
	FactPairs   int // pairs of similar facts between the same endpoints
	FactAsked   int // of those, sent to the LLM
	Calls       int // LLM calls made
}

// resolver holds the state of one group's resolution.
type resolver struct {
	env   stages.Env
	opts  Options
	group string
	eps   []graph.Episode
	n     *names
	uf    *unionfind.Forest
	amb   []bool             // key id → too weak for the automatic fuzzy merges (Ambiguous)
	grey  map[[2]int]float64 // grey-zone key pairs → score
	prev  *Memo              // the stored memo, or nil
	used  *Memo              // the answers this resolution used
	stats Stats
	bad   *stages.Degraded // the calls whose answers stayed bad
}

// Resolve resolves the mentions and facts of one group (exs[i] is the extraction of eps[i], in
// group order), consulting prev for answers the LLM already gave. The passes, in order:
//
//  1. exact: mentions with the same Normalize key are one name;
//  2. particles: a name merges with its nearest stem that is itself a name of the group
//     ("지훈은" → "지훈"); names sharing a stem nobody says bare become a grey-zone pair;
//  3. word order: names with the same words merge ("Park Seoyeon", "Seoyeon Park");
//  4. MinHash: character 3-gram Jaccard ≥ Options.MinHashThreshold merges;
//  5. words: a name whose romanized words are inside another's, or equal in another script
//     ("Seoyeon" / "Seoyeon Park" / "서연"), makes a grey-zone pair;
//  6. embeddings: name cosine ≥ Options.EmbeddingThreshold merges, ≥ Options.GreyThreshold is
//     grey;
//  7. the LLM adjudicates the grey-zone pairs of clusters in batches (resolve_entities);
//  8. facts go to canonical endpoints, exact duplicates merge, similar ones between the same
//     endpoints are adjudicated by the LLM (dedupe_facts).
//
// Passes 3, 4 and 6 merge only names that pass the entropy gate (Ambiguous is false) and whose
// types are compatible; other pairs they find go to the grey zone. Union-find keeps every merge
// transitive; a cluster is named after its earliest mention. Nothing here reads another group.
func Resolve(ctx context.Context, env stages.Env, opts Options, group string, eps []graph.Episode, exs []stages.Extraction, prev *Memo) (Result, error) {
	opts = opts.WithDefaults()
	n := collect(opts, exs)
	r := &resolver{env: env, opts: opts, group: group, eps: eps, n: n, uf: unionfind.New(len(n.keys)),
		amb: make([]bool, len(n.keys)), grey: map[[2]int]float64{}, prev: prev, used: newMemo(memoVersion(env)), bad: &stages.Degraded{}}
	for i, k := range n.keys {
		r.amb[i] = namekey.Ambiguous(k)
	}
	r.particles()
	r.tokenSets()
	r.minHash()
	r.wordContainment()
	if err := r.embeddings(ctx); err != nil {
		return Result{}, err
	}
	if err := r.adjudicate(ctx); err != nil {
		return Result{}, err
	}
	b := r.entities()
	facts, err := r.dedupeFacts(ctx, r.mapFacts(b))
	if err != nil {
		return Result{}, err
	}
	facts = mergeByOrder(r.declaredFacts(b, exs), facts)
	return Result{Entities: b.entities, Mentions: b.mentions, Facts: facts, Memo: r.used, Stats: r.stats, Bad: r.bad}, nil
}

// mergeByOrder merges two lists of facts in group order into one, a's first on equal order.
func mergeByOrder(a, b []Fact) []Fact {
	out := make([]Fact, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].Order < a[0].Order {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// log is the env's logger, or the default one.
func (r *resolver) log() *slog.Logger { return logger(r.env) }
